/**
 * How a resource is stored, derived from its record schema. The record's fields are the
 * columns (or document fields); each field's storage kind is read from its schema, so an
 * adapter derives its column lists, row mapping and statements from the record alone, and a
 * new field is the schema, a migration and a test.
 *
 * Every stored resource has an id, belongs to one merchant and environment, is listed newest
 * first by (`createdAt`, `id`) (D6) and is updated under an optimistic `version`; the merchant
 * directory's records, which belong to no merchant's scope, are tables too (`makeUnscoped`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Environment } from "../resources/Schemas.js"
import * as tableConstruct from "./internal/tableConstruct.js"
import * as tableFields from "./internal/tableFields.js"

/** The annotation that names how a field is stored. @since 0.1.0 @category annotations */
export const StorageKindId: typeof tableFields.StorageKindId = tableFields.StorageKindId

/**
 * How a value is stored. `text`: a string. `amount`: a string of minor units stored as a
 * 64-bit integer where the store has one (D4). `integer`: a safe integer. `millis`: epoch
 * milliseconds stored as a timestamp with millisecond precision. `json`: an object or array,
 * stored so it reads back with its keys in the order written. `boolean`. `bytes`: binary
 * data (a receipt's file), byte for byte.
 *
 * @since 0.1.0 @category models
 */
export type StorageKind = tableFields.StorageKind

/** Epoch milliseconds (D4 times are rendered from these). @since 0.1.0 @category fields */
export const Millis = Schema.Number.annotations({ [StorageKindId]: "millis", description: "epoch milliseconds" })

/** A safe integer, such as a version. @since 0.1.0 @category fields */
export const Integer = Schema.Int.annotations({ [StorageKindId]: "integer" })

/** An amount in minor units, as a string (D4: at most 18 digits). @since 0.1.0 @category fields */
export const AmountText = Schema.String.annotations({ [StorageKindId]: "amount" })

/**
 * A field that may be null and is null unless set: `Record.make` fills it, so a new
 * optional field needs no change where records are built.
 *
 * @since 0.1.0 @category fields
 */
export const OrNull = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.NullOr(schema).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => null))

/** The annotation that names what a record written before the field existed holds in it. @since 0.1.0 @category annotations */
export const MissingId: typeof tableFields.MissingId = tableFields.MissingId

/**
 * An amount that starts at "0" (a counter such as a payment's refunded amount): `Record.make`
 * fills "0", and a record stored before the field existed reads as "0" (a store without
 * migrations, such as MongoDB, applies `Field.missing`).
 *
 * @since 0.1.0 @category fields
 */
export const AmountFromZero = AmountText.annotations({ [MissingId]: "0" }).pipe(
  Schema.propertySignature,
  Schema.withConstructorDefault(() => "0")
)

/**
 * A record schema's constructor: `schema.make(props, true)` (defaults filled, no validation: the
 * caller built the values from checked input), made fast (docs/performance.md, "HTTP and core").
 * @since 0.1.0 @category constructors
 */
export const constructor = tableConstruct.constructor

/** `schema.make(props, true)` through the schema's `constructor`, made once per schema: what every record is built with. @since 0.1.0 @category constructors */
export const construct = tableConstruct.construct

/**
 * `record` frozen with every object and array inside it, as a store hands it back (the rule of
 * reads on `Storage`). Bytes are left as they are: a typed array cannot be frozen.
 *
 * @since 0.1.0 @category constructors
 */
export const freeze = <A extends object>(record: A): A => {
  for (const value of Object.values(record)) {
    if (typeof value === "object" && value !== null && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) freeze(value)
  }
  return Object.freeze(record)
}

/** Binary data, stored byte for byte (PostgreSQL `bytea`). @since 0.1.0 @category fields */
export const Bytes = Schema.Uint8ArrayFromSelf.annotations({ [StorageKindId]: "bytes" })

/**
 * The fields every record begins with: its id, and the merchant and environment it belongs to
 * (4.2: nothing is read outside them).
 *
 * @since 0.1.0 @category fields
 */
export const scopeFields = {
  id: Schema.String,
  merchantId: Schema.String,
  environment: Environment
}

/**
 * The fields a record that changes after it is written ends with: when it was created and last
 * changed, and the `version` its updates are checked against.
 *
 * @since 0.1.0 @category fields
 */
export const changeFields = {
  createdAt: Millis,
  updatedAt: Millis,
  version: Integer
}

/** The `changeFields` of a record as it is first written, at `now`: version 1. @since 0.1.0 @category fields */
export const firstWrite = (now: number) => ({ createdAt: now, updatedAt: now, version: 1 })

/**
 * The fields a resource created by a merchant's request ends with: the fingerprint of that
 * request (a repeated `merchant_reference` with another body is a conflict, 4.9), when it was
 * created and last changed, and the `version` its updates are checked against.
 *
 * @since 0.1.0 @category fields
 */
export const requestFields = {
  fingerprint: Schema.String,
  ...changeFields
}

/**
 * The fields a resource carried out at a provider ends with, before `requestFields`: why it
 * failed (null until it does), the provider that took it, and the merchant's own account at that
 * provider (D13), kept for its whole life; null: the deployment's.
 *
 * @since 0.1.0 @category fields
 */
export const providerFields = {
  failureCode: OrNull(Schema.String),
  failureMessage: OrNull(Schema.String),
  providerCode: OrNull(Schema.String),
  providerAccount: OrNull(Schema.String)
}

/**
 * `merchant_reference` unique per merchant and environment (4.9 merchant_reference rule 1, D4),
 * as every resource a merchant creates under its own reference declares it.
 *
 * @since 0.1.0 @category models
 */
export const uniqueReference = [{ name: "reference", fields: ["merchantReference"] }] as const

/**
 * The fields every record has, whether or not it belongs to a merchant and environment: the
 * records of an unscoped table (`Table.scoped` false) are only these and their own.
 *
 * @since 0.1.0 @category models
 */
export interface BaseRecord {
  readonly id: string
  readonly createdAt: number
  readonly version: number
}

/** The fields every record of a scoped table has: it belongs to one merchant and environment. @since 0.1.0 @category models */
export interface StoredRecord extends BaseRecord {
  readonly merchantId: string
  readonly environment: Environment
}

/** One field of a record as an adapter stores it: its key, column, storage kind, nullability and what a record stored before it existed holds. @since 0.1.0 @category models */
export type Field = tableFields.Field

/**
 * A unique constraint within a merchant and environment (on an unscoped table: across the
 * table); null values never collide.
 *
 * @since 0.1.0 @category models
 */
export interface Unique<A> {
  readonly name: string
  readonly fields: ReadonlyArray<keyof A & string>
  /** Only records holding these exact text values are constrained (a partial index); absent: every record. */
  readonly where?: { readonly [K in keyof A & string]?: string } | undefined
}

/** Whether `record` falls under the constraint `u` (its `where` holds). @since 0.1.0 */
export const constrains = <A>(u: Unique<A>, record: A): boolean =>
  u.where === undefined || Object.entries(u.where).every(([field, value]) => (record as Record<string, unknown>)[field] === value)

/**
 * How a table's records expire (docs/retention.md): a record is due once its `from` time is
 * before the cutoff `Storage.purgeExpired` is given for the table, unless it holds one of the
 * `keep` values. Read by every store's purge, so a new kind of purged record is this
 * declaration and a retention option, never a change to an adapter.
 *
 * @since 0.1.0 @category models
 */
export interface Retention<A> {
  /** The time field a record's age counts from: a `Table.Millis` field, such as `createdAt`. */
  readonly from: keyof A & string
  /** Records holding this text value are kept whatever their age (a pending task is work still to do). */
  readonly keep?: { readonly field: keyof A & string; readonly value: string } | undefined
}

/** Whether `record` is due under `retention` at `cutoff` (exclusive). @since 0.1.0 */
export const isDue = <A>(retention: Retention<A>, record: A, cutoff: number): boolean => {
  const r = record as Record<string, unknown>
  return (r[retention.from] as number) < cutoff && (retention.keep === undefined || r[retention.keep.field] !== retention.keep.value)
}

/** A stored resource. @since 0.1.0 @category models */
export interface Table<A extends BaseRecord> {
  /** The table or collection name, under the adapter's prefix: `payment_intents`. */
  readonly name: string
  /** The prefix of its ids (D4): cursors name it. */
  readonly idPrefix: string
  readonly record: Schema.Schema<A, any>
  readonly fields: ReadonlyArray<Field>
  readonly unique: ReadonlyArray<Unique<A>>
  /** How its records expire; absent: they are kept for ever. */
  readonly retention?: Retention<A> | undefined
  /**
   * True: every record belongs to one merchant and environment (`StoredRecord`), is read with
   * `get` and `list` in its scope, and its unique constraints hold within the scope. False: the
   * records belong to no scope (the merchant directory: merchants, their keys, the host's word on
   * routes); they are read with `find`, `findBy` and `walk`, never `get` or `list`, and their
   * unique constraints hold across the table.
   */
  readonly scoped: boolean
}

/**
 * The retention of `table`: a defect for a table that declares none (a purge asked for a table
 * whose records are kept for ever is a programming error of core).
 *
 * @since 0.1.0
 */
export const retentionOf = <A extends BaseRecord>(table: Table<A>): Retention<A> => {
  if (table.retention === undefined) throw new Error(`Table: ${table.name} declares no retention`)
  return table.retention
}

/** `merchantReference` -> `merchant_reference`. @since 0.1.0 */
export const columnName = tableFields.columnName

/** The storage fields of a record schema, in its declared order; a number field without a storage kind throws at module load. @since 0.1.0 */
export const fieldsOf = tableFields.fieldsOf

/**
 * Describe a stored resource. Fails at module load when a field's storage kind cannot be
 * told, so a new field without one never reaches an adapter.
 *
 * @since 0.1.0 @category constructors
 */
export const make = <A extends StoredRecord, I>(options: {
  readonly name: string
  readonly idPrefix: string
  readonly record: Schema.Schema<A, I>
  readonly unique?: ReadonlyArray<Unique<A>>
  readonly retention?: Retention<A> | undefined
}): Table<A> => ({
  name: options.name,
  idPrefix: options.idPrefix,
  record: options.record,
  fields: fieldsOf(options.record),
  unique: options.unique ?? [],
  ...(options.retention === undefined ? {} : { retention: options.retention }),
  scoped: true
})

/**
 * Describe a resource a merchant creates by a request under its own `merchant_reference` (a
 * payment, refund, payout or top-up intent): `make` with that reference unique per merchant and
 * environment (`uniqueReference`), the one constraint these resources declare.
 *
 * @since 0.1.0 @category constructors
 */
export const makeReferenced = <A extends StoredRecord & { readonly merchantReference: string | null }, I>(options: {
  readonly name: string
  readonly idPrefix: string
  readonly record: Schema.Schema<A, I>
}): Table<A> => make({ ...options, unique: uniqueReference })

/**
 * Describe a stored record that belongs to no merchant and environment (`Table.scoped` false):
 * read by id (`find`), by a field unique across the table (`findBy`) and in id order (`walk`).
 * A unique constraint of such a table has exactly one field, so that `findBy` is one index lookup.
 *
 * @since 0.1.0 @category constructors
 */
export const makeUnscoped = <A extends BaseRecord, I>(options: {
  readonly name: string
  readonly idPrefix: string
  readonly record: Schema.Schema<A, I>
  readonly unique?: ReadonlyArray<Unique<A>>
}): Table<A> => {
  const unique = options.unique ?? []
  for (const u of unique) if (u.fields.length !== 1) throw new Error(`Table: ${options.name}.${u.name} must have exactly one field`)
  return { name: options.name, idPrefix: options.idPrefix, record: options.record, fields: fieldsOf(options.record), unique, scoped: false }
}

/**
 * The order of ids in every store: by code point, the order of their UTF-8 bytes (PostgreSQL's
 * `COLLATE "C"`, MongoDB's binary string order), not JavaScript's `<` by UTF-16 code unit, which
 * puts a character past U+FFFF (a surrogate, 0xd800–0xdfff) below U+E000–U+FFFF. @since 0.1.0
 */
export const compareIds = (a: string, b: string): number => {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return unitRank(x) - unitRank(y)
  }
  return a.length - b.length
}

/** A code unit's place in code point order: surrogates (0xd800–0xdfff) moved above 0xe000–0xffff, the order within each kept. */
const unitRank = (u: number) => (u < 0xd800 ? u : u < 0xe000 ? u + 0x2000 : u - 0x800)

/** Descending (createdAt, id) order of every list (D6); ids compare by code point (`compareIds`). @since 0.1.0 */
export const compareNewestFirst = (
  a: { readonly createdAt: number; readonly id: string },
  b: { readonly createdAt: number; readonly id: string }
): number => (a.createdAt !== b.createdAt ? b.createdAt - a.createdAt : compareIds(b.id, a.id))
