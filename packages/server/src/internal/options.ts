/**
 * `createTender`'s options, decoded before anything starts: a bad option is a
 * `validation_failed` whose message is one line, `createTender: option "<path>" <problem>, got
 * <value>` (a secret's value is never shown, only its length). Keys Tender does not read are
 * left alone.
 */
import { Schema } from "effect"
import { TenderError } from "../TenderError.js"
import { at, boolean, check, fields, firstProblem, fn, isObject, millisUpTo, nonEmptyString, nonNegativeInt, positiveInt, show } from "./checks.js"

const day = 24 * 60 * 60 * 1000

const publicUrl = check<string>("must be an absolute http or https URL", (u) => {
  if (typeof u !== "string") return false
  try {
    return ["http:", "https:"].includes(new URL(u).protocol)
  } catch {
    return false
  }
})

/** The options a message shows only the length of. */
const secrets = new Set(["checkoutSecret", "webhooks.encryptionKey"])

const methods = (names: ReadonlyArray<string>, problem: string) =>
  check<object>(problem, (u) => isObject(u) && names.every((n) => typeof (u as Record<string, unknown>)[n] === "function"))

const postgres = fields({
  postgres: methods(["connect", "query", "on", "end"], "must be a pg.Pool (connect, query, on and end)"),
  tablePrefix: check<string>("must be 1 to 30 lowercase letters, digits or underscores, starting with a letter", (u) => typeof u === "string" && /^[a-z][a-z0-9_]{0,29}$/.test(u)),
  statementTimeoutMs: millisUpTo(day, "one day at most"),
  preparedStatements: boolean
})

const mongodb = fields({
  mongodb: methods(["db", "startSession"], "must be a MongoClient (db and startSession)"),
  database: nonEmptyString,
  collectionPrefix: nonEmptyString
})

const memory = fields({ memory: check<true>("must be true", (u) => u === true) })

const provider = fields({
  code: nonEmptyString,
  methods: check<ReadonlyArray<unknown>>("must be an array of payment methods", Array.isArray),
  createPayment: fn,
  confirmPayment: fn,
  getPaymentStatus: fn
}, "must be a payment provider (an object: use defineProvider for a Promise adapter)", ["code", "methods", "createPayment", "confirmPayment", "getPaymentStatus"])

const logger = fields({ info: fn, warn: fn, error: fn, debug: fn }, "must be an object with info, warn and error methods (pino, console)", ["info", "warn", "error"])

const webhooks = fields({
  encryptionKey: nonEmptyString,
  allowPrivateUrls: boolean,
  timeoutMillis: millisUpTo(10 * 60 * 1000, "ten minutes at most"),
  disableAfterMillis: millisUpTo(365 * day, "a year at most"),
  concurrency: positiveInt,
  perEndpoint: positiveInt,
  endpointBackoffMillis: nonNegativeInt
})

const workers = fields({
  concurrency: positiveInt,
  deliveryConcurrency: positiveInt,
  perEndpoint: positiveInt,
  leaseMillis: millisUpTo(day, "one day at most"),
  pollMillis: millisUpTo(day, "one day at most"),
  owner: nonEmptyString
}, "must be false or an object")

const simulatorTimings = fields({
  shortExpiryMillis: millisUpTo(day, "one day at most"),
  slowConfirmationMillis: millisUpTo(day, "one day at most"),
  slowRefundMillis: millisUpTo(day, "one day at most")
})

const simulator = fields({ notificationSecret: nonEmptyString, timings: simulatorTimings }, "must be true, false or an object")

const routeHealth = fields({
  failureThreshold: positiveInt,
  cooldownMillis: millisUpTo(day, "one day at most")
})

const options = fields({
  publicUrl,
  checkoutSecret: check<string>("must be a string of at least 8 characters", (u) => typeof u === "string" && u.length >= 8),
  merchants: check<unknown>("must be a seed object or the path of a seed JSON file", (u) => isObject(u) || (typeof u === "string" && u.length > 0)),
  providers: Schema.Array(provider).annotations({ message: () => "must be an array of payment providers" }),
  logger,
  migrate: boolean,
  webhooks,
  routeHealth
}, "must be an object")

const storageKinds = ["memory", "postgres", "mongodb"] as const

/** A bad option, as `createTender` rejects it. */
export const badOption = (path: string, problem: string, value: unknown): TenderError =>
  new TenderError({
    code: "validation_failed",
    status: 400,
    param: path === "" ? undefined : path,
    message: path === "" ? `createTender: options ${problem}, got ${show(value)}` : `createTender: option "${path}" ${problem}, got ${show(value, secrets.has(path))}`
  })

const problemIn = (schema: Schema.Schema<any, any>, input: unknown, prefix: Array<string>): TenderError | undefined => {
  const found = firstProblem(schema, input)
  if (found === undefined) return undefined
  const path = [...prefix, ...found.path.map(String)]
  return badOption(path.join("."), found.problem === "is missing" ? "is required" : found.problem, at(input, found.path))
}

/**
 * The first bad option of `input`, or undefined when every option Tender reads is well formed.
 * `publicUrl` and `checkoutSecret` are required; `storage` is one of its three forms,
 * `simulator` a boolean or its settings and `workers` `false` or its settings (checked here, not as a schema union, so that a message
 * names the field at fault rather than every form it failed).
 */
export const problemOf = (input: unknown): TenderError | undefined => {
  if (!isObject(input)) return badOption("", "must be an object", input)
  for (const required of ["publicUrl", "checkoutSecret"]) {
    if (input[required] === undefined) return badOption(required, "is required", undefined)
  }
  const top = problemIn(options, input, [])
  if (top !== undefined) return top
  const storage = input["storage"]
  if (storage !== undefined) {
    const kinds = isObject(storage) ? storageKinds.filter((k) => storage[k] !== undefined) : []
    if (kinds.length !== 1) return badOption("storage", "must be one of { memory: true }, { postgres: pool } or { mongodb: client }", storage)
    const kind = kinds[0]!
    const problem = problemIn(kind === "memory" ? memory : kind === "postgres" ? postgres : mongodb, storage, ["storage"])
    if (problem !== undefined) return problem
  }
  const sim = input["simulator"]
  const simProblem = sim === undefined || typeof sim === "boolean" ? undefined : problemIn(simulator, sim, ["simulator"])
  if (simProblem !== undefined) return simProblem
  const w = input["workers"]
  return w === undefined || w === false ? undefined : problemIn(workers, w, ["workers"])
}
