/** The list query of 4.3, shared by the adapter and the query-plan checks. */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { Statement } from "@effect/sql/Statement"
import type { Storage } from "@tender/core"
import type { PaymentIntentRow } from "./rows.js"
import { paymentIntentColumns, timestamp } from "./rows.js"
import type { Tables } from "./tables.js"

/**
 * One page of a list, newest first by (created_at, id). Every shape is an index range:
 * the scope and at most one equality filter lead an index that ends in the keyset order,
 * and the cursor is a row comparison on that order, so page 1,000 costs what page 1 does.
 */
export const listStatement = (sql: SqlClient, t: Tables, q: Storage.PaymentIntentQuery): Statement<PaymentIntentRow> => {
  const where = [
    sql`merchant_id = ${q.merchantId}`,
    sql`environment = ${q.environment}`,
    ...(q.country !== undefined ? [sql`country = ${q.country}`] : []),
    ...(q.currency !== undefined ? [sql`currency = ${q.currency}`] : []),
    ...(q.merchantReference !== undefined ? [sql`merchant_reference = ${q.merchantReference}`] : []),
    ...(q.createdAfter !== undefined ? [sql`created_at >= ${timestamp(q.createdAfter)}::timestamptz`] : []),
    ...(q.createdBefore !== undefined ? [sql`created_at < ${timestamp(q.createdBefore)}::timestamptz`] : []),
    ...(q.after !== undefined ? [sql`(created_at, id) < (${timestamp(q.after.createdAt)}::timestamptz, ${q.after.id}::text)`] : [])
  ]
  const columns = sql.literal(paymentIntentColumns)
  const table = sql(t.paymentIntents)
  // The order names the table's columns: a bare created_at would be the text alias of the select
  // list, which no index serves (PostgreSQL would sort the merchant's every row).
  const page = (status?: string) =>
    sql<PaymentIntentRow>`SELECT ${columns} FROM ${table}
      WHERE ${sql.and(status === undefined ? where : [...where, sql`status = ${status}`])}
      ORDER BY ${table}.created_at DESC, ${table}.id DESC LIMIT ${q.limit}`
  const statuses = q.statuses === undefined ? [] : [...new Set(q.statuses)]
  if (statuses.length <= 1) return page(statuses[0])
  // Several statuses: one index range per status, merged, so a page never sorts the whole set.
  // The branches select the columns already rendered as text; the outer order is on those texts,
  // which sort like the values (epoch milliseconds of equal length, ids of one length).
  return sql<PaymentIntentRow>`SELECT * FROM (${sql.join(" UNION ALL ", false)(statuses.map((s) => sql`(${page(s)})`))}) AS pages
    ORDER BY length(created_at) DESC, created_at DESC, id DESC LIMIT ${q.limit}`
}
