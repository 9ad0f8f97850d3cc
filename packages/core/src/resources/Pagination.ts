/**
 * Lists (4.3, 2.6, D6): keyset cursors, page size, the envelope. Cursors: opaque base64url of the last row's (created_at, id). A cursor
 * carries position only; merchant, environment and filters always come from the request.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { ValidationFailed } from "./Errors.js"
import { DateTimeWithOffset, MerchantReference, withMessage } from "./Schemas.js"

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
      typeof value[1] === "string" && value[1].startsWith(idPrefix) && value[1].length <= 64 &&
      // Ids are letters, digits and underscores: anything else (a NUL, which PostgreSQL refuses in
      // a statement) is no cursor this API issued.
      /^[A-Za-z0-9_]+$/.test(value[1])
    ) {
      return Effect.succeed({ createdAt: value[0] as number, id: value[1] })
    }
  } catch {
    // fall through
  }
  return invalid
}

/** `limit` (4.3, D6): an integer from 1 to 100, default 25. @since 0.1.0 @category request */
export const Limit = withMessage(
  Schema.String.pipe(Schema.pattern(/^\d{1,3}$/), Schema.filter((s) => Number(s) >= 1 && Number(s) <= 100)),
  "must be an integer from 1 to 100"
).annotations({
  description: "1 to 100; default 25",
  jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 25 }
})

/** The page size when `limit` is absent (4.3). @since 0.1.0 */
export const defaultLimit = 25

/** `cursor` (4.3, D6): the `next_cursor` of the previous page. @since 0.1.0 @category request */
export const Cursor = withMessage(Schema.String.pipe(Schema.minLength(1)), "must be the next_cursor of the previous page")

/** A query value that may be sent once, comma-separated, or repeated (4.3 `status`). @since 0.1.0 @category request */
export const ValueList = Schema.Union(Schema.String, Schema.Array(Schema.String))

/**
 * Parse a single, comma-separated or repeated query value into known values; anything
 * else is a 400 naming `param`.
 *
 * @since 0.1.0
 */
export const parseValues = <A extends string>(
  param: string,
  raw: string | ReadonlyArray<string> | undefined,
  allowed: ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A> | undefined, ValidationFailed> => {
  if (raw === undefined) return Effect.succeed(undefined)
  const values = (typeof raw === "string" ? [raw] : raw).flatMap((s) => s.split(",")).map((s) => s.trim())
  const unknown = values.filter((v) => !(allowed as ReadonlyArray<string>).includes(v))
  if (values.length === 0 || unknown.length > 0) {
    return Effect.fail(ValidationFailed.at(
      param,
      `${param} must be one or more of ${allowed.join(", ")}; unknown: ${unknown.map((u) => JSON.stringify(u)).join(", ")}`
    ))
  }
  return Effect.succeed(values as Array<A>)
}

/** The list envelope (2.6). @since 0.1.0 @category wire */
export const ListEnvelope = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), has_more: Schema.Boolean, next_cursor: Schema.NullOr(Schema.String) })

/**
 * One page of the list envelope from `limit + 1` rows read newest first: the extra row
 * only says there is more (D6).
 *
 * @since 0.1.0
 */
export const page = <A extends Position, B>(rows: ReadonlyArray<A>, limit: number, view: (row: A) => B) => {
  const shown = rows.slice(0, limit)
  const last = shown[shown.length - 1]
  const hasMore = rows.length > limit
  return { data: shown.map(view), has_more: hasMore, next_cursor: hasMore && last !== undefined ? encode(last) : null }
}

/**
 * A page whose items are already JSON text, written as the text `ListEnvelope` encodes to (its
 * fields in its order): a list can then send items rendered once (`PaymentIntent.toResourceJson`).
 *
 * @since 0.1.0
 */
export const pageJson = (p: { readonly data: ReadonlyArray<string>; readonly has_more: boolean; readonly next_cursor: string | null }): string =>
  `{"data":[${p.data.join(",")}],"has_more":${p.has_more},"next_cursor":${JSON.stringify(p.next_cursor)}}`

/**
 * The creation window every list takes (4.3): `created_after` inclusive, `created_before`
 * exclusive. A resource's list adds its own filters beside it and `pageFields`.
 *
 * @since 0.1.0 @category request
 */
export const createdFields = {
  created_after: Schema.optional(DateTimeWithOffset),
  created_before: Schema.optional(DateTimeWithOffset)
}

/** The `status` filter of a list (4.3): one or more statuses, checked by the list itself. @since 0.1.0 @category request */
export const statusField = {
  status: Schema.optional(ValueList.annotations({ description: "One or more statuses: single, comma-separated or repeated" }))
}

/**
 * The filters of 4.3 that the lists of top-ups, payouts and refunds take beside their own, in
 * this order: the creation window, `merchant_reference`, `status`.
 *
 * @since 0.1.0 @category request
 */
export const sharedFilters = {
  ...createdFields,
  merchant_reference: Schema.optional(MerchantReference),
  ...statusField
}

/** The page size and position every list takes (4.3, D6). @since 0.1.0 @category request */
export const pageFields = {
  limit: Schema.optional(Limit),
  cursor: Schema.optional(Cursor)
}

/**
 * A list's query: its `filters`, then `pageFields`; decoding reports every error at once and
 * refuses a parameter the list does not know (D1).
 *
 * @since 0.1.0 @category request
 */
export const listParams = <F extends Schema.Struct.Fields>(filters: F) =>
  Schema.Struct({ ...filters, ...pageFields }).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })

/**
 * A window bound in whole milliseconds, as creation times are kept. `Date.parse` drops digits
 * past the millisecond; a bound between two milliseconds is the next one up, for both ends: a
 * time at or after `…956500` is one from `…957` on (inclusive lower bound), and a time before
 * `…956001` one up to `…956`, so before `…957` (exclusive upper bound).
 *
 * @since 0.1.0
 */
export const boundMillis = (text: string): number => {
  const millis = Date.parse(text)
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? ""
  return /[1-9]/.test(fraction.slice(3)) ? millis + 1 : millis
}

/**
 * The page size, cursor position and creation window of a list request, as the storage port
 * takes them: `limit + 1` rows are read, the extra one only saying there is more (`page`).
 *
 * @since 0.1.0
 */
export const window = (
  params: {
    readonly limit?: string | undefined
    readonly cursor?: string | undefined
    readonly created_after?: string | undefined
    readonly created_before?: string | undefined
  },
  idPrefix: string
) =>
  Effect.map(
    params.cursor === undefined ? Effect.succeed(undefined) : decode(params.cursor, idPrefix),
    (after) => {
      const limit = params.limit === undefined ? defaultLimit : Number(params.limit)
      return {
        limit,
        query: {
          after,
          limit: limit + 1,
          createdAfter: params.created_after === undefined ? undefined : boundMillis(params.created_after),
          createdBefore: params.created_before === undefined ? undefined : boundMillis(params.created_before)
        }
      }
    }
  )
