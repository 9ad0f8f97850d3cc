/** The list query of 4.3 for any stored resource, shared by the adapter and the query-plan checks. */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { Fragment, Statement } from "@effect/sql/Statement"
import type { Storage, Table } from "@tender/core"
import { storable } from "./errors.js"
import { type Row, selectList, timestamp } from "./records.js"
import type { Tables } from "./tables.js"

/**
 * One page of a list, newest first by (created_at, id). Every shape is an index range:
 * the scope and at most one equality filter lead an index that ends in the keyset order,
 * and the cursor is a row comparison on that order, so page 1,000 costs what page 1 does.
 */
export const listStatement = <A extends Table.StoredRecord>(
  sql: SqlClient,
  t: Tables,
  table: Table.Table<A>,
  q: Storage.ListQuery<A>
): Statement<Row> => {
  const columnOf = (field: string) => {
    const f = table.fields.find((x) => x.name === field)
    if (f === undefined) throw new Error(`${table.name} has no field ${field}`)
    return f.column
  }
  const filters = Object.entries(q.where ?? {}).flatMap(([field, value]) =>
    value === undefined ? [] : [{
      column: columnOf(field),
      // A value holding U+0000 matches no row (no text value holds it) and is never sent: a
      // statement carrying one fails (SQLSTATE 22021). A filter left without values matches nothing.
      values: [...new Set(typeof value === "string" ? [value] : value as ReadonlyArray<string>)].filter(storable)
    }]
  )
  // The one filter with several values is answered as one index range per value, merged, so a page never sorts the whole set.
  const split = filters.find((f) => f.values.length > 1)
  const where = [
    sql`merchant_id = ${q.merchantId}`,
    sql`environment = ${q.environment}`,
    // Any other filter with several values (a top-up list by status and source_type) is a plain IN.
    ...filters.filter((f) => f !== split).map((f) =>
      f.values.length === 1 ? sql`${sql(f.column)} = ${f.values[0]!}` : f.values.length === 0 ? sql`false` : sql`${sql(f.column)} IN ${sql.in(f.values)}`
    ),
    ...(q.createdAfter !== undefined ? [sql`created_at >= ${timestamp(q.createdAfter)}::timestamptz`] : []),
    ...(q.createdBefore !== undefined ? [sql`created_at < ${timestamp(q.createdBefore)}::timestamptz`] : []),
    ...(q.after !== undefined ? [sql`(created_at, id) < (${timestamp(q.after.createdAt)}::timestamptz, ${q.after.id}::text)`] : [])
  ]
  const columns = sql.literal(selectList(table))
  const name = sql(t.of(table))
  // The order names the table's columns: a bare created_at would be the text alias of the select
  // list, which no index serves (PostgreSQL would sort the merchant's every row).
  const page = (extra?: Fragment) =>
    sql<Row>`SELECT ${columns} FROM ${name}
      WHERE ${sql.and(extra === undefined ? where : [...where, extra])}
      ORDER BY ${name}.created_at DESC, ${name}.id DESC LIMIT ${q.limit}`
  if (split === undefined) return page()
  // The branches select the columns already rendered as text; the outer order is on those texts,
  // which sort like the values (epoch milliseconds of equal length, ids of one length).
  return sql<Row>`SELECT * FROM (${sql.join(" UNION ALL ", false)(split.values.map((v) => sql`(${page(sql`${sql(split.column)} = ${v}`)})`))}) AS pages
    ORDER BY length(created_at) DESC, created_at DESC, id DESC LIMIT ${q.limit}`
}

/** The column of `field` in `table`; a defect for a field the table does not have. */
const columnOf = (table: Table.Table<any>, field: string) => {
  const f = table.fields.find((x) => x.name === field)
  if (f === undefined) throw new Error(`${table.name} has no field ${field}`)
  return f.column
}

/**
 * `Storage.findBy`: the one row of an unscoped table whose unique column holds `value`, through
 * the column's unique index (an API key by its public key, D2).
 */
export const findByStatement = <A extends Table.BaseRecord>(sql: SqlClient, t: Tables, table: Table.Table<A>, field: string, value: string): Statement<Row> => {
  if (table.scoped || !table.unique.some((u) => u.fields.length === 1 && u.fields[0] === field)) {
    throw new Error(`Storage.findBy: ${field} is not a unique field of the unscoped table ${table.name}`)
  }
  return sql<Row>`SELECT ${sql.literal(selectList(table))} FROM ${sql(t.of(table))} WHERE ${sql(columnOf(table, field))} = ${value}`
}

/** `Storage.walk`: a page in id order (ids `COLLATE "C"`: by UTF-8 byte, which is code point order, `Table.compareIds`), on the primary key or an index leading with a `where` column. */
export const walkStatement = <A extends Table.BaseRecord>(sql: SqlClient, t: Tables, table: Table.Table<A>, q: Storage.WalkQuery<A>): Statement<Row> => {
  const name = sql(t.of(table))
  const where = [
    ...Object.entries(q.where ?? {}).flatMap(([field, value]) =>
      value === undefined ? [] : typeof value === "string" && !storable(value) ? [sql`false`] : [sql`${sql(columnOf(table, field))} = ${value}`]
    ),
    ...(q.after === null ? [] : [sql`${name}.id > ${q.after}`])
  ]
  return sql<Row>`SELECT ${sql.literal(selectList(table))} FROM ${name}
    WHERE ${where.length === 0 ? sql`true` : sql.and(where)} ORDER BY ${name}.id LIMIT ${q.limit}`
}
