/**
 * What a host's values must be, as Effect schemas with the words a message says: every
 * `createTender` option and every Promise API argument is decoded with them, and a bad one is a
 * `validation_failed` that names it and shows what was given (`must be a positive integer, got
 * -1`). An option given as `undefined` is one not given (`withoutUndefined`).
 */
import { Either, ParseResult, Schema, SchemaAST } from "effect"

/** A value given, as a message shows it: short, and never the text of a secret. */
export const show = (value: unknown, secret = false): string => {
  if (value === undefined || value === null || typeof value === "boolean" || typeof value === "number") return String(value)
  if (typeof value === "bigint") return `${value}n`
  if (typeof value === "string") {
    if (secret) return `a string of ${value.length} characters`
    return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value)
  }
  if (typeof value === "function") return "a function"
  if (typeof value === "symbol") return value.toString()
  if (Array.isArray(value)) return `an array of ${value.length}`
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === "string" && name !== "Object" && name !== "" ? `a ${name}` : "an object"
}

/** A schema of the values `ok` accepts; `problem` is what a message says of any other (`must be …`). */
export const check = <A>(problem: string, ok: (u: unknown) => boolean): Schema.Schema<A> =>
  Schema.declare((u: unknown): u is A => ok(u), { message: () => problem })

const isInt = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u)

/** An integer of at least 1. */
export const positiveInt = check<number>("must be a positive integer", (u) => isInt(u) && u >= 1)
/** An integer of at least 0. */
export const nonNegativeInt = check<number>("must be an integer of 0 or more", (u) => isInt(u) && u >= 0)
/** Milliseconds from 1 up to `max` (a bound a host meant, never `Infinity`). */
export const millisUpTo = (max: number, what: string) =>
  check<number>(`must be a whole number of milliseconds from 1 to ${max} (${what})`, (u) => isInt(u) && u >= 1 && u <= max)
/** `true` or `false`, never a truthy stand-in such as `"no"`. */
export const boolean = check<boolean>("must be true or false", (u) => typeof u === "boolean")
/** A string of at least one character. */
export const nonEmptyString = check<string>("must be a non-empty string", (u) => typeof u === "string" && u.length > 0)
/** A function. */
export const fn = check<(...args: Array<any>) => unknown>("must be a function", (u) => typeof u === "function")
/** A plain object (not an array, not `null`). */
export const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether `u` is an object literal (not a class instance such as a pool, whose fields are its own). */
const isPlain = (u: unknown): u is Record<string, unknown> =>
  isObject(u) && (Object.getPrototypeOf(u) === Object.prototype || Object.getPrototypeOf(u) === null)

/** `input` with every key whose value is `undefined` left out, in object literals at any depth: given as `undefined` is not given. */
export const withoutUndefined = (input: unknown): unknown =>
  isPlain(input) ? Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined).map(([k, v]) => [k, withoutUndefined(v)])) : input

/** Marks the objects whose other keys are not options: a pool, a logger, an adapter. */
const Open = Symbol.for("@tender/server/OpenObject")

/**
 * The fields of an object: those in `required` must be given, the others may be left out. Any
 * other key is refused (`unknownKey`) unless `open` (a logger or an adapter: its other keys are
 * its own). The fields declared here are the one list of known names: a message's "did you
 * mean" comes from them, so a new option is known once it is declared.
 */
export const fields = (shape: Record<string, Schema.Schema<any>>, problem = "must be an object", required: ReadonlyArray<string> = [], open = false) =>
  Schema.Struct(Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, required.includes(k) ? s : Schema.optionalWith(s, { exact: true })])))
    .annotations({ message: () => problem, [Open]: open }) as Schema.Schema<Record<string, unknown>>

/** The names `schema` (a `fields` object) declares. */
export const knownKeys = (schema: Schema.Schema<any, any>): ReadonlyArray<string> =>
  SchemaAST.isTypeLiteral(schema.ast) ? schema.ast.propertySignatures.map((p) => String(p.name)) : []

/**
 * The first key of `input` that `schema` does not declare, looked for in every object literal
 * within it whose field is itself declared with `fields` (not in an open one): its path, and
 * the names known beside it. A key given as `undefined` is one not given.
 */
export const unknownKey = (
  schema: Schema.Schema<any, any>,
  input: unknown
): { readonly path: ReadonlyArray<string>; readonly known: ReadonlyArray<string> } | undefined => {
  const walk = (ast: SchemaAST.AST, value: unknown, path: ReadonlyArray<string>): ReturnType<typeof unknownKey> => {
    if (!SchemaAST.isTypeLiteral(ast) || !isPlain(value) || ast.annotations[Open] === true) return undefined
    const declared = new Map(ast.propertySignatures.map((p) => [String(p.name), p.type]))
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue
      const type = declared.get(key)
      if (type === undefined) return { path: [...path, key], known: [...declared.keys()] }
      const inner = walk(type, v, [...path, key])
      if (inner !== undefined) return inner
    }
    return undefined
  }
  return walk(schema.ast, input, [])
}

/** The first problem of `input` against `schema`: the path of the value at fault (`["workers", "concurrency"]`) and what it must be. */
export const firstProblem = (
  schema: Schema.Schema<any, any>,
  input: unknown
): { readonly path: ReadonlyArray<PropertyKey>; readonly problem: string } | undefined => {
  const result = Schema.decodeUnknownEither(schema)(withoutUndefined(input))
  if (Either.isRight(result)) return undefined
  const issue = ParseResult.ArrayFormatter.formatErrorSync(result.left)[0]
  return { path: issue?.path ?? [], problem: issue?.message ?? "is invalid" }
}

/** The value at `path` inside `input`. */
export const at = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>((v, k) => (isObject(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[k] : undefined), input)
