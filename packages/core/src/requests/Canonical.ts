/**
 * Canonical JSON and SHA-256 fingerprints (D5): keys sorted, absent values dropped, so two
 * requests that mean the same thing hash the same.
 *
 * @since 0.1.0
 */
import * as crypto from "node:crypto"

/**
 * Canonical JSON text: object keys sorted at every depth, `undefined` members dropped. The text
 * is exactly `JSON.stringify` of a copy with its keys sorted (fingerprints are stored and
 * compared across versions: `Canonical.test.ts` holds the two equal on arbitrary values), written
 * directly: building the sorted copy was 2 to 4 % of a create's and a replay's CPU
 * (`BENCH_PROFILE=create` or `replay npm run bench:profile`).
 *
 * @since 0.1.0
 */
export const stringify = (value: unknown): string => write(value) as string

/** An array index as JavaScript orders own keys: a canonical integer below 2^32 - 1. */
const isArrayIndex = (key: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295

/**
 * The order the sorted copy's `JSON.stringify` wrote keys in: a JavaScript object lists its
 * array-index keys first, in numeric order, then the others in the order they were added, which
 * for the copy was sorted. `Object.keys` already lists the index keys first, in numeric order.
 */
const canonicalOrder = (keys: Array<string>): Array<string> => {
  let indices = 0
  while (indices < keys.length && isArrayIndex(keys[indices]!)) indices++
  if (indices === 0) return keys.sort()
  return keys.slice(0, indices).concat(keys.slice(indices).sort())
}

/** A value's text, or undefined where `JSON.stringify` leaves a member out (undefined, a function, a symbol). */
const write = (value: unknown): string | undefined => {
  if (value === null) return "null"
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value)
    case "object": {
      if (Array.isArray(value)) {
        let out = "["
        for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + (write(value[i]) ?? "null")
        return out + "]"
      }
      // Own keys only, read as members: a key named `__proto__` (request text) is written like any
      // other, never followed to the object's prototype.
      const keys = canonicalOrder(Object.keys(value))
      let out = "{"
      for (const key of keys) {
        const text = write((value as Record<string, unknown>)[key])
        if (text !== undefined) out += (out.length === 1 ? "" : ",") + JSON.stringify(key) + ":" + text
      }
      return out + "}"
    }
    default:
      // undefined, functions and symbols are left out, as by JSON.stringify; a bigint throws as it does.
      return JSON.stringify(value)
  }
}

// Node's one-shot `crypto.hash` (20.12 and later) takes a third of `createHash`'s time for a short
// text: every authenticated request hashes the presented secret, and every create its fingerprint.
const oneShot: ((algorithm: string, data: string | Uint8Array, encoding: "hex") => string) | undefined = typeof crypto.hash === "function"
  ? crypto.hash
  : undefined

/** Hex SHA-256 of a string. @since 0.1.0 */
export const sha256 = (text: string | Uint8Array): string =>
  oneShot === undefined ? crypto.createHash("sha256").update(text).digest("hex") : oneShot("sha256", text, "hex")

/** The fingerprint of a value: SHA-256 of its canonical JSON. @since 0.1.0 */
export const fingerprint = (value: unknown): string => sha256(stringify(value))

/**
 * `value`, or undefined when it is an empty object: in a canonical request an empty object means
 * the same as an absent one (4.9 merchant_reference rule 4, D5).
 *
 * @since 0.1.0
 */
export const nonEmpty = <A extends object>(value: A | undefined): A | undefined => value !== undefined && Object.keys(value).length > 0 ? value : undefined
