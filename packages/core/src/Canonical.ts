/**
 * Canonical JSON and SHA-256 fingerprints (D5): keys sorted, absent values dropped, so two
 * requests that mean the same thing hash the same.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

/** Canonical JSON text: object keys sorted at every depth, `undefined` members dropped. @since 0.1.0 */
export const stringify = (value: unknown): string => JSON.stringify(sortDeep(value))

const sortDeep = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortDeep)
  if (value !== null && typeof value === "object") {
    // Entries, not assignments: a key named `__proto__` (request text) stays an own member, so
    // it is hashed like any other instead of silently changing the object's prototype.
    return Object.fromEntries(
      Object.keys(value).sort().flatMap((key) => {
        const v = (value as Record<string, unknown>)[key]
        return v === undefined ? [] : [[key, sortDeep(v)]]
      })
    )
  }
  return value
}

/** Hex SHA-256 of a string. @since 0.1.0 */
export const sha256 = (text: string | Uint8Array): string => createHash("sha256").update(text).digest("hex")

/** The fingerprint of a value: SHA-256 of its canonical JSON. @since 0.1.0 */
export const fingerprint = (value: unknown): string => sha256(stringify(value))
