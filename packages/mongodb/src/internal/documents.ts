/**
 * Records and documents, derived from a core `Table`: one document field per record field,
 * named by its column, stored by its kind. A new field of a record is its schema; nothing here
 * changes. Values are converted here both ways, so what comes back never depends on the host's
 * BSON options (the adapter also opens its `Db` with explicit ones, see `MongoStorage`).
 */
import { Table, Task } from "@tender/core"
import { Effect } from "effect"
import { Binary, type Document } from "mongodb"
import { fold } from "./errors.js"

/**
 * A JSON value as stored: exactly what `JSON.stringify` keeps, as plain objects and arrays in
 * the order written. An absent optional field (`undefined`) stays absent instead of becoming
 * BSON null, and the value reads back as the PostgreSQL adapter's `json` column does.
 */
export const jsonValue = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** One field's value as stored. */
export const encodeValue = (field: Table.Field, value: unknown): unknown => {
  if (value === null || value === undefined) return null
  switch (field.kind) {
    case "text":
    case "boolean":
      return value
    case "amount":
      // A string, not a number or Decimal128: 18 digits (D4) exceed a double, and a string reads back as written.
      return String(value)
    case "integer":
      return value as number
    case "millis":
      return new Date(value as number)
    case "json":
      return jsonValue(value)
    case "bytes":
      return new Binary(value as Uint8Array)
  }
}

const toNumber = (value: unknown): number => {
  if (typeof value === "number") return value
  if (typeof value === "bigint") return Number(value)
  if (value instanceof Date) return value.getTime()
  if (typeof value === "object" && value !== null && "toNumber" in value && typeof value.toNumber === "function") {
    return (value as { toNumber: () => number }).toNumber()
  }
  return Number(value)
}

const toBytes = (value: unknown): Uint8Array => {
  // A copy: a Binary's buffer may be a view into a larger one the driver reuses.
  if (value instanceof Binary) return new Uint8Array(value.value())
  if (value instanceof Uint8Array) return new Uint8Array(value)
  if (typeof value === "object" && value !== null && "value" in value && typeof value.value === "function") {
    return new Uint8Array((value as { value: () => Uint8Array }).value())
  }
  throw new TypeError("a bytes field holds no binary value")
}

/** One field's value read back; a missing field is null. */
export const decodeValue = (field: Table.Field, value: unknown): unknown => {
  if (value === null || value === undefined) return null
  switch (field.kind) {
    case "text":
    case "json":
    case "boolean":
      return value
    case "amount":
      return typeof value === "string" ? value : String(value)
    case "integer":
    case "millis":
      return toNumber(value)
    case "bytes":
      return toBytes(value)
  }
}

/**
 * The document of a record: its fields in record order, each under its column name. A task's also
 * carries its pool (`Task.poolOf`), which the claim's partial indexes select on (internal/taskClaims.ts).
 */
export const toDocument = (table: Table.Table<any>, record: object): Document => {
  const doc: Document = {}
  for (const f of table.fields) doc[f.column] = encodeValue(f, (record as Record<string, unknown>)[f.name])
  if (table.name === Task.table.name) doc["pool"] = Task.poolOf(record as Task.TaskRecord)
  return doc
}

/**
 * The record a document holds. Fields the document lacks are null (`Table.OrNull`), or what the
 * field says a record written before it existed holds (`Table.AmountFromZero`): MongoDB has no
 * migrations to fill them.
 */
export const toRecord = <A extends Table.BaseRecord>(table: Table.Table<A>, doc: Document): A => {
  const record: Record<string, unknown> = {}
  for (const f of table.fields) record[f.name] = doc[f.column] === undefined && f.missing !== undefined ? f.missing : decodeValue(f, doc[f.column])
  // Frozen whole, as the port's rule of reads asks (`Storage`): core keeps each record's rendered view with it.
  return Table.freeze(record) as unknown as A
}

/** A field of `table` by record name; an unknown name is a programming error of the caller. */
export const fieldOf = (table: Table.Table<any>, name: string): Table.Field => {
  const f = table.fields.find((x) => x.name === name)
  if (f === undefined) throw new Error(`${table.name} has no field ${name}`)
  return f
}

/** `toRecord` as an Effect: a document that cannot be read (a corrupt field) is a `StorageFailure`, never a defect. */
export const readRecord = <A extends Table.BaseRecord>(table: Table.Table<A>, doc: Document) =>
  Effect.try({ try: () => toRecord(table, doc), catch: fold(`read ${table.name}`) })
