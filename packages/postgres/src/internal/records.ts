/**
 * Records and rows, derived from a core `Table`: the select list, the value of each column
 * and the record read back, so a new field of a record needs a migration here and nothing
 * else. Every value is read as text and converted here, so the host's type parsers and name
 * transforms can never change what comes back: amounts stay exact strings, times exact
 * milliseconds, JSON keeps its bytes and key order (`json` columns, not `jsonb`).
 */
import { Schemas, Table } from "@tender/core"

/** A row as Tender's selects read it: every column as text (casts in the select list), booleans as read. */
export type Row = { readonly [column: string]: string | boolean | null }

/**
 * Epoch ms as a `timestamptz` literal: exact, whatever the session's time zone. The text of
 * `toISOString`, by core's integer arithmetic (its `Date` round trip was 0.8 % of a create's CPU,
 * `npm run bench:profile` with `DATABASE_URL`).
 */
export const timestamp = (millis: number): string => Schemas.formatTimestamp(millis)

/** A `timestamptz` column read as epoch milliseconds in text. */
export const millisColumn = (column: string, alias = column) => `(extract(epoch FROM ${column}) * 1000)::bigint::text AS ${alias}`

const selectOf = (f: Table.Field, qualifier: string): string => {
  const column = qualifier + f.column
  switch (f.kind) {
    case "text":
    case "boolean":
      return qualifier === "" ? column : `${column} AS ${f.column}`
    case "amount":
    case "integer":
    case "json":
      return `${column}::text AS ${f.column}`
    case "millis":
      return millisColumn(column, f.column)
    case "bytes":
      return `encode(${column}, 'base64') AS ${f.column}`
  }
}

const selectLists = new WeakMap<Table.Table<any>, Map<string, string>>()

/** The select list of a table's rows, every column read as text; `qualifier` names the table (`t.`). */
export const selectList = (table: Table.Table<any>, qualifier = ""): string => {
  // Built once per table and qualifier: every read statement uses it (0.5 % of a get's CPU when rebuilt each time,
  // `BENCH_PROFILE=get npm run bench:profile` with `DATABASE_URL`).
  const byQualifier = selectLists.get(table) ?? new Map<string, string>()
  selectLists.set(table, byQualifier)
  let list = byQualifier.get(qualifier)
  if (list === undefined) {
    list = table.fields.map((f) => selectOf(f, qualifier)).join(", ")
    byQualifier.set(qualifier, list)
  }
  return list
}

/** The column names of a table, in record order. */
export const columns = (table: Table.Table<any>): ReadonlyArray<string> => table.fields.map((f) => f.column)

const encode = (f: Table.Field, value: unknown): string | number | boolean | Buffer | null => {
  if (value === null || value === undefined) return null
  switch (f.kind) {
    case "text":
    case "amount":
      return value as string
    case "integer":
      return value as number
    case "boolean":
      return value as boolean
    case "json":
      return JSON.stringify(value)
    case "millis":
      return timestamp(value as number)
    case "bytes": {
      // A view of the same memory, not a copy: a 5 MiB file need not be held twice while it is written.
      const bytes = value as Uint8Array
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    }
  }
}

/** The value of every column of `record`, in record order. */
export const values = (table: Table.Table<any>, record: object): ReadonlyArray<string | number | boolean | Buffer | null> =>
  table.fields.map((f) => encode(f, (record as Record<string, unknown>)[f.name]))

type Decode = (value: string | boolean | null | undefined) => unknown

const decoderOf = (f: Table.Field): Decode => {
  switch (f.kind) {
    case "text":
    case "amount":
    case "boolean":
      return (value) => value ?? null
    case "integer":
    case "millis":
      return (value) => value === null || value === undefined ? null : Number(value)
    case "json":
      return (value) => value === null || value === undefined ? null : JSON.parse(value as string)
    case "bytes":
      return (value) => value === null || value === undefined ? null : new Uint8Array(Buffer.from(value as string, "base64"))
  }
}

interface RowReader {
  readonly names: ReadonlyArray<string>
  readonly columns: ReadonlyArray<string>
  readonly decoders: ReadonlyArray<Decode>
  /** The rows last read by id, with the record each became and the row's characters (`toRecord`). */
  readonly recent: Map<string, { readonly row: Row; readonly record: object; readonly chars: number }>
  /** The characters of the rows in `recent`, summed. */
  chars: number
}

const readers = new WeakMap<Table.Table<any>, RowReader>()

const readerOf = (table: Table.Table<any>): RowReader => {
  let reader = readers.get(table)
  if (reader === undefined) {
    reader = { names: table.fields.map((f) => f.name), columns: columns(table), decoders: table.fields.map(decoderOf), recent: new Map(), chars: 0 }
    readers.set(table, reader)
  }
  return reader
}

/**
 * How many rows of each table `toRecord` remembers. A payment intent's record and its rendered
 * view are a few KiB: some 10 MiB for a table at most, and the recent rows of a busy merchant
 * (its first pages, the intents being paid) fit.
 */
export const recentRows = 2048

/**
 * The most characters of row text each table's remembered rows hold together (a payment
 * intent's row is 1 to 3 thousand, so 2,048 of them fit). The count alone let 2,048 rows of any
 * size stay: an asset's row is its file in base64, so every receipt a task read back stayed in
 * memory twice over, as text and as bytes (docs/reliability.md, "Memory after a burst of uploads").
 */
export const recentChars = 8 * 1024 * 1024

/**
 * A row longer than this is never remembered (an asset's, an intent with a near-1 MiB metadata):
 * it is rebuilt on each read, and the rows that are read again stay.
 */
export const largestRecentRow = 128 * 1024

/** The characters of a row's text: what remembering it holds, as the record made from it is of its size. */
const charsOf = (columns: ReadonlyArray<string>, row: Row): number => {
  let chars = 0
  for (let i = 0; i < columns.length; i++) {
    const value = row[columns[i]!]
    if (typeof value === "string") chars += value.length
  }
  return chars
}

const sameRow = (columns: ReadonlyArray<string>, a: Row, b: Row): boolean => {
  for (let i = 0; i < columns.length; i++) if (a[columns[i]!] !== b[columns[i]!]) return false
  return true
}

/**
 * The record a row read with `selectList` holds, frozen with its nested values (`Table.freeze`,
 * the port's rule of reads). A record is a function of its row's text alone, so a row read again
 * with every column the same text is the same record: the object made the first time is handed
 * back, and with it the view core rendered from it (`RenderedView`). A list page of 25 built and
 * rendered 25 records on every read, 12 % of its CPU (`BENCH_PROFILE=list npm run bench:profile`
 * with `DATABASE_URL`; docs/performance.md, "PostgreSQL"). A row
 * that differs in any column, a single changed byte of its metadata, is built anew.
 *
 * Every record of a table is built by the same assignments in the same order, so they share one
 * object shape: `Object.fromEntries` of the field pairs made a fresh array per field and was 11 %
 * of a list page's CPU.
 */
export const toRecord = <A extends Table.BaseRecord>(table: Table.Table<A>, row: Row): A => {
  const reader = readerOf(table)
  const { columns, decoders, names, recent } = reader
  const id = row["id"]
  const seen = typeof id === "string" ? recent.get(id) : undefined
  if (seen !== undefined && sameRow(columns, seen.row, row)) return seen.record as A
  const record: Record<string, unknown> = {}
  for (let i = 0; i < names.length; i++) record[names[i]!] = decoders[i]!(row[columns[i]!])
  Table.freeze(record)
  if (typeof id === "string") {
    // First made, first out: a Map iterates in insertion order, a row built anew is inserted anew,
    // and a hit does not move its row (it would cost a delete and a set on every read).
    if (seen !== undefined) {
      recent.delete(id)
      reader.chars -= seen.chars
    }
    const chars = charsOf(columns, row)
    if (chars <= largestRecentRow) {
      recent.set(id, { row, record, chars })
      reader.chars += chars
      while (recent.size > recentRows || reader.chars > recentChars) {
        const [oldest, entry] = recent.entries().next().value!
        recent.delete(oldest)
        reader.chars -= entry.chars
      }
    }
  }
  return record as A
}

/**
 * How many rows of `table` are remembered and their characters, counted afresh (what the bounds
 * above hold).
 *
 * @internal
 */
export const remembered = (table: Table.Table<any>): { readonly rows: number; readonly chars: number } => {
  const { columns, recent } = readerOf(table)
  let chars = 0
  for (const { row } of recent.values()) chars += charsOf(columns, row)
  return { rows: recent.size, chars }
}
