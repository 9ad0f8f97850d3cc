/**
 * A resource's wire shape (its schema, for the API and its OpenAPI document) and its render
 * from the stored record, both from one list of fields. A wire field whose value is the
 * record's field of the same name in camelCase (`merchant_reference` from `merchantReference`)
 * is named once, with its schema; a time (D4) is the record's epoch milliseconds of that name,
 * rendered; only a field that is computed (a masked account number, a nested object) says how.
 * Before, each resource listed its fields three times (record, wire schema, render), and a
 * field added to two of them and not the third went unnoticed until a wire test ran.
 *
 * The render is made once per resource: it runs on every create and on every read of a record
 * not yet rendered (`RenderedView`), so no schema is walked per call.
 */
import { Schema } from "effect"
import { formatTimestamp, Timestamp } from "../Schemas.js"

/** The record field a wire field of the same name is read from: `created_at` from `createdAt`. */
export type RecordKey<K extends string> = K extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<RecordKey<Tail>>}` : K

/** `recordKey` at run time. */
const recordKey = (wireKey: string): string => wireKey.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** A field that is always `value`: a resource's `object`. */
export interface Constant<S extends Schema.Schema.All> {
  readonly _tag: "Constant"
  readonly schema: S
  readonly value: Schema.Schema.Type<S>
}

/** A time (D4): the record's epoch milliseconds of the same name, as a timestamp. */
export interface Time<S extends Schema.Schema.All> {
  readonly _tag: "Time"
  readonly schema: S
}

/** A field computed from the record and the render's context (the time a balance is shown at). */
export interface Computed<S extends Schema.Schema.All, R, C> {
  readonly _tag: "Computed"
  readonly schema: S
  readonly render: (record: R, context: C) => Schema.Schema.Type<S>
}

/** One wire field: a schema alone is the record's field of the same name, as it is stored. */
export type Field<R, C> = Schema.Schema.All | Constant<Schema.Schema.All> | Time<Schema.Schema.All> | Computed<Schema.Schema.All, R, C>

/** `object: constant("refund")`. */
export const constant = <const L extends string>(value: L): Constant<Schema.Literal<[L]>> => ({
  _tag: "Constant",
  schema: Schema.Literal(value),
  value
})

/** A time shown as `schema` (a `Timestamp`, or an unnamed string where the wire shape always had one). */
export const timeAs = <S extends Schema.Schema<string, string, never>>(schema: S): Time<S> => ({ _tag: "Time", schema })

/** A time shown as a `Timestamp` (D4). */
export const time: Time<typeof Timestamp> = timeAs(Timestamp)

/**
 * The two fields every resource's wire shape begins with: its `object` and its `id`, described by
 * the prefix its table gives ids (`Begins with rfnd_`).
 */
export const identity = <const L extends string>(object: L, idPrefix: string) => ({
  object: constant(object),
  id: Schema.String.annotations({ description: `Begins with ${idPrefix}` })
})

const isWrapped = <R, C>(field: Field<R, C>): field is Constant<Schema.Schema.All> | Time<Schema.Schema.All> | Computed<Schema.Schema.All, R, C> =>
  !Schema.isSchema(field)

/** Why a resource carried out at a provider failed, null until it does: the wire side of `Table.providerFields`. */
export const failure = {
  failure_code: Schema.NullOr(Schema.String),
  failure_message: Schema.NullOr(Schema.String)
}

/** When a resource was created and last changed: the wire side of `Table.requestFields`. */
export const times = { created_at: time, updated_at: time }

/** The schema of each field. */
export type SchemaFields<F> = {
  readonly [K in keyof F]: F[K] extends { readonly _tag: "Constant" | "Time" | "Computed"; readonly schema: infer S extends Schema.Schema.All } ? S
    : F[K] extends Schema.Schema.All ? F[K]
    : never
}

/** A field as checked against the record: a plain schema must match the record's field of that name; a time must be a number. */
type Checked<R, K, X> = X extends { readonly _tag: "Constant" | "Computed" } ? X
  : K extends string ? RecordKey<K> extends keyof R ? X extends Time<Schema.Schema.All> ? R[RecordKey<K>] extends number ? X : never
      : X extends Schema.Schema.All ? R[RecordKey<K>] extends Schema.Schema.Type<X> ? X : never
      : never
    : never
  : never

/** A wire shape: its schema and its render. */
export interface WireShape<R, C, F> {
  readonly schema: Schema.Struct<SchemaFields<F>>
  readonly render: (record: R, context: C) => Schema.Struct.Type<SchemaFields<F>>
}

/** The wire shapes of records `R`, rendered with a context `C` (none by default). */
export const of = <R, C = void>() => ({
  /** A field computed by `render`. */
  computed: <S extends Schema.Schema.All>(schema: S, render: (record: R, context: C) => Schema.Schema.Type<S>): Computed<S, R, C> => ({
    _tag: "Computed",
    schema,
    render
  }),
  /** The wire shape of `fields`, in their order (the order of the JSON the API sends). */
  make: <const F extends Record<string, Field<R, C>>>(fields: F & { readonly [K in keyof F]: Checked<R, K, F[K]> }): WireShape<R, C, F> => {
    const schemas: Record<string, Schema.Schema.All> = {}
    const keys: Array<string> = []
    const renders: Array<(record: R, context: C) => unknown> = []
    for (const [key, field] of Object.entries(fields as Record<string, Field<R, C>>)) {
      keys.push(key)
      if (!isWrapped(field)) {
        schemas[key] = field
        const from = recordKey(key) as keyof R
        renders.push((record) => record[from])
        continue
      }
      schemas[key] = field.schema
      switch (field._tag) {
        case "Constant": {
          const value = field.value
          renders.push(() => value)
          break
        }
        case "Time": {
          const from = recordKey(key) as keyof R
          renders.push((record) => formatTimestamp(record[from] as number))
          break
        }
        case "Computed":
          renders.push(field.render)
      }
    }
    const count = keys.length
    return {
      schema: Schema.Struct(schemas) as unknown as Schema.Struct<SchemaFields<F>>,
      render: (record, context) => {
        const out: Record<string, unknown> = {}
        for (let i = 0; i < count; i++) out[keys[i]!] = renders[i]!(record, context)
        return out as Schema.Struct.Type<SchemaFields<F>>
      }
    }
  }
})
