/**
 * The Promise API's arguments, decoded before an operation runs: a bad one fails with
 * `validation_failed` (400) naming it, and the message says which method, which argument or
 * option, what it must be and what was given: `paymentIntents.retrieve: option "environment"
 * must be "test" or "live", got "prod"`. `param` is the argument's or option's name. Bodies and list
 * queries are decoded after this by the schemas their HTTP routes use.
 */
import { Errors } from "@tender/core"
import { Effect, type Schema } from "effect"
import type * as Api from "../PromiseTypes.js"
import { at, boolean, check, fields, firstProblem, isObject, nonEmptyString, show } from "./checks.js"

/** The longest id the HTTP API reads in a path (`maxParamLength` of `@tender/http`): a longer one names nothing. */
const maxIdLength = 100

const environment = check<Api.Environment>(`must be "test" or "live"`, (u) => u === "test" || u === "live")
const id = check<string>(
  `must be a non-empty string of at most ${maxIdLength} characters`,
  (u) => typeof u === "string" && u.length > 0 && u.length <= maxIdLength
)
const idempotencyKey = check<string>("must be a string of 1 to 255 printable ASCII characters", (u) => typeof u === "string" && /^[\x20-\x7E]{1,255}$/.test(u))
const publicKey = check<string>("must be a public key (pk_test_… or pk_live_…)", (u) => typeof u === "string" && /^pk_(test|live)_[\x21-\x7E]{1,200}$/.test(u))

const scope = { merchant: nonEmptyString, environment }
const scopeProblem = "must be an object with merchant and environment"
const scopeOptions = fields(scope, scopeProblem, ["merchant", "environment"])
const writeOptions = fields({ ...scope, idempotencyKey }, scopeProblem, ["merchant", "environment"])

/** The failure of an argument (or of one option inside `options`). */
const bad = (method: string, kind: "argument" | "option", name: string, problem: string, value: unknown) =>
  Errors.ValidationFailed.at(name, `${method}: ${kind} "${name}" ${problem === "is missing" ? "is required" : problem}, got ${show(value)}`)

/** `value`, the argument `name` of `method`, if `schema` accepts it. */
const argument = <A>(method: string, name: string, schema: Schema.Schema<A, any>, value: unknown): Effect.Effect<A, Errors.ValidationFailed> => {
  const problem = firstProblem(schema, value)
  return problem === undefined ? Effect.succeed(value as A) : Effect.fail(bad(method, "argument", name, problem.problem, value))
}

/** The `options` argument: an object, each option named on its own when it is the one at fault. */
const optionsOf = <A>(method: string, schema: Schema.Schema<any, any>, value: unknown): Effect.Effect<A, Errors.ValidationFailed> => {
  if (!isObject(value)) return Effect.fail(bad(method, "argument", "options", scopeProblem, value))
  const problem = firstProblem(schema, value)
  if (problem === undefined) return Effect.succeed(value as A)
  const name = problem.path.map(String).join(".")
  return Effect.fail(bad(method, "option", name, problem.problem, at(value, problem.path)))
}

/** The checks of one method's arguments, each failing with a message that names `method`. */
export const of = (method: string) => ({
  id: (value: unknown, name = "id") => argument<string>(method, name, id, value),
  scope: (value: unknown) => optionsOf<Api.MerchantScope>(method, scopeOptions, value),
  write: (value: unknown) => optionsOf<Api.WriteOptions>(method, writeOptions, value),
  /** A body: an object (its fields are the route's schema's to check). */
  body: (value: unknown, name = "params") => isObject(value) ? Effect.succeed(value) : Effect.fail(bad(method, "argument", name, "must be an object", value)),
  /** A body or list query that may be left out. */
  optionalBody: (value: unknown, name: string) =>
    value === undefined || isObject(value) ? Effect.succeed(value ?? {}) : Effect.fail(bad(method, "argument", name, "must be an object or undefined", value)),
  /** A file's bytes (an upload). */
  file: (value: unknown) =>
    value instanceof Uint8Array ? Effect.succeed(value) : Effect.fail(bad(method, "argument", "file", "must be a Uint8Array (the file's bytes)", value)),
  environment: (value: unknown) => argument<Api.Environment>(method, "environment", environment, value),
  publicKey: (value: unknown) => argument<string>(method, "publicKey", publicKey, value),
  name: (value: unknown, name: string) => argument<string>(method, name, nonEmptyString, value),
  boolean: (value: unknown, name: string) => argument<boolean>(method, name, boolean, value)
})
