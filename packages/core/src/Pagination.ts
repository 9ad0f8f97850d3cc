/**
 * Keyset cursors (D6): opaque base64url of the last row's (created_at, id). A cursor
 * carries position only; merchant, environment and filters always come from the request.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { ValidationFailed } from "./Errors.js"

/** @since 0.1.0 @category models */
export interface Position {
  readonly createdAt: number
  readonly id: string
}

/** @since 0.1.0 */
export const encode = (p: Position): string => Buffer.from(JSON.stringify([p.createdAt, p.id])).toString("base64url")

/** A cursor that does not decode: 400 `param: "cursor"` (D6). @since 0.1.0 */
export const decode = (cursor: string, idPrefix: string): Effect.Effect<Position, ValidationFailed> => {
  const invalid = Effect.fail(ValidationFailed.at("cursor", "cursor is not a cursor this API issued; pass next_cursor unchanged."))
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return invalid
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    if (
      Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && value[0] >= 0 &&
      typeof value[1] === "string" && value[1].startsWith(idPrefix) && value[1].length <= 64
    ) {
      return Effect.succeed({ createdAt: value[0] as number, id: value[1] })
    }
  } catch {
    // fall through
  }
  return invalid
}
