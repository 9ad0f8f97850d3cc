/**
 * `createTender`'s options, decoded before anything starts: a bad option is a
 * `validation_failed` whose message is one line, `createTender: option "<path>" <problem>, got
 * <value>` (a secret's value is never shown, only its length). A key Tender does not know is
 * refused at any depth, with the nearest known name (`createTender: unknown option "storge"; did
 * you mean "storage"?`): a misspelt `storage` must not start Tender on the memory store. The
 * known names are the fields declared below, the one place an option is added.
 */
import { CredentialVault } from "@tender/core"
import { Schema } from "effect"
import { TenderError } from "../TenderError.js"
import {
  at,
  boolean,
  check,
  fields,
  firstProblem,
  fn,
  isObject,
  knownKeys,
  millisUpTo,
  nonEmptyString,
  nonNegativeInt,
  positiveInt,
  show,
  unknownKey
} from "./checks.js"
import { suggestion } from "./nearest.js"

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
  tablePrefix: check<string>(
    "must be 1 to 30 lowercase letters, digits or underscores, starting with a letter",
    (u) => typeof u === "string" && /^[a-z][a-z0-9_]{0,29}$/.test(u)
  ),
  statementTimeoutMs: millisUpTo(day, "one day at most"),
  preparedStatements: boolean
})

const mongodb = fields({
  mongodb: methods(["db", "startSession"], "must be a MongoClient (db and startSession)"),
  database: nonEmptyString,
  collectionPrefix: nonEmptyString
})

const memory = fields({ memory: check<true>("must be true", (u) => u === true) })

const provider = fields(
  {
    code: nonEmptyString,
    methods: check<ReadonlyArray<unknown>>("must be an array of payment methods", Array.isArray),
    createPayment: fn,
    confirmPayment: fn,
    getPaymentStatus: fn
  },
  "must be a payment provider (an object: use defineProvider for a Promise adapter)",
  ["code", "methods", "createPayment", "confirmPayment", "getPaymentStatus"],
  true
)

const logger = fields({ info: fn, warn: fn, error: fn, debug: fn }, "must be an object with info, warn and error methods (pino, console)", [
  "info",
  "warn",
  "error"
], true)

const webhooks = fields({
  encryptionKey: nonEmptyString,
  allowPrivateUrls: boolean,
  timeoutMillis: millisUpTo(10 * 60 * 1000, "ten minutes at most"),
  disableAfterMillis: millisUpTo(365 * day, "a year at most"),
  resendsPerHour: positiveInt,
  concurrency: positiveInt,
  perEndpoint: positiveInt,
  endpointBackoffMillis: nonNegativeInt
})

const workers = fields({
  concurrency: positiveInt,
  deliveryConcurrency: positiveInt,
  perEndpoint: positiveInt,
  perMerchant: positiveInt,
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

/** Checked by the form given (`storageKinds`, `simulator`, `workers`, `providerAccountKeys`), not as one schema. */
const byForm = Schema.Unknown

const options = fields({
  publicUrl,
  checkoutSecret: check<string>("must be a string of at least 8 characters", (u) => typeof u === "string" && u.length >= 8),
  merchants: check<unknown>("must be a seed object or the path of a seed JSON file", (u) => isObject(u) || (typeof u === "string" && u.length > 0)),
  providers: Schema.Array(provider).annotations({ message: () => "must be an array of payment providers" }),
  logger,
  migrate: boolean,
  webhooks,
  routeHealth,
  maxConcurrentUploads: positiveInt,
  providerAccountKeys: byForm,
  storage: byForm,
  simulator: byForm,
  workers: byForm
}, "must be an object")

const storageKinds = { memory, postgres, mongodb } as const

/** A bad option, as `createTender` rejects it. */
export const badOption = (path: string, problem: string, value: unknown): TenderError =>
  new TenderError({
    code: "validation_failed",
    status: 400,
    param: path === "" ? undefined : path,
    message: path === ""
      ? `createTender: options ${problem}, got ${show(value)}`
      : `createTender: option "${path}" ${problem}, got ${show(value, secrets.has(path))}`
  })

/** A key Tender does not know, named with its path and the nearest known name. */
const unknownOption = (path: ReadonlyArray<string>, known: ReadonlyArray<string>): TenderError => {
  const parent = path.slice(0, -1)
  const qualify = (k: string) => [...parent, k].join(".")
  return new TenderError({
    code: "validation_failed",
    status: 400,
    param: path.join("."),
    message: `createTender: unknown option "${path.join(".")}"; ${suggestion(path[path.length - 1]!, known, qualify)}`
  })
}

const problemIn = (schema: Schema.Schema<any, any>, input: unknown, prefix: Array<string>): TenderError | undefined => {
  const unknown = unknownKey(schema, input)
  if (unknown !== undefined) return unknownOption([...prefix, ...unknown.path], unknown.known)
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
    const names = Object.keys(storageKinds) as Array<keyof typeof storageKinds>
    const kinds = isObject(storage) ? names.filter((k) => storage[k] !== undefined) : []
    if (kinds.length === 0 && isObject(storage)) {
      // `{ postgress: pool }` names no form: the misspelt key is the fault, not a missing form.
      const known = [...new Set(names.flatMap((k) => knownKeys(storageKinds[k])))]
      const stray = Object.keys(storage).find((k) => storage[k] !== undefined && !known.includes(k))
      if (stray !== undefined) return unknownOption(["storage", stray], names)
    }
    if (kinds.length !== 1) return badOption("storage", "must be one of { memory: true }, { postgres: pool } or { mongodb: client }", storage)
    const problem = problemIn(storageKinds[kinds[0]!], storage, ["storage"])
    if (problem !== undefined) return problem
  }
  const sim = input["simulator"]
  const simProblem = sim === undefined || typeof sim === "boolean" ? undefined : problemIn(simulator, sim, ["simulator"])
  if (simProblem !== undefined) return simProblem
  const keys = input["providerAccountKeys"]
  if (keys !== undefined) {
    if (!Array.isArray(keys)) return badOption("providerAccountKeys", "must be an array of { id, key }", keys)
    try {
      CredentialVault.make(keys)
    } catch (error) {
      // Its message names the key by id, never its bytes; the value is not shown.
      return new TenderError({
        code: "validation_failed",
        status: 400,
        param: "providerAccountKeys",
        message: `createTender: option "providerAccountKeys": ${(error as Error).message}`
      })
    }
  }
  const w = input["workers"]
  return w === undefined || w === false ? undefined : problemIn(workers, w, ["workers"])
}
