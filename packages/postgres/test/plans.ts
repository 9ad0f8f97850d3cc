/**
 * Query plans of every list shape of 4.3, on a table filled with enough rows that the
 * planner's choice means something. Shared by QueryPlans.test.ts and bench/postgres/plans.ts.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import type { Storage, Table } from "@tender/core"
import { PaymentIntent, Refund, TopupIntent } from "@tender/core"
import { Effect } from "effect"
import { PgMigrations } from "../src/index.js"
import { listStatement } from "../src/internal/queries.js"
import { tables, validatePrefix } from "../src/internal/tables.js"

export const merchants = 50

type Query = Storage.ListQuery<PaymentIntent.PaymentIntentRecord>
const start = Date.UTC(2026, 0, 1)

/** Migrate `prefix`, fill `table` through `insert` (given the client and the table's name), and ANALYZE it for the planner. */
const filled = <E, R>(prefix: string, table: Table.Table<any>, insert: (sql: SqlClient, into: string) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    yield* PgMigrations.run({ tablePrefix: prefix })
    const sql = (yield* SqlClient).withoutTransforms()
    const into = tables(yield* validatePrefix(prefix)).of(table)
    yield* insert(sql, into)
    yield* sql`ANALYZE ${sql(into)}`
  })

/** Migrate `prefix` and fill it with `rows` intents over 50 merchants, both environments, every status. */
export const populate = (prefix: string, rows: number) =>
  filled(prefix, PaymentIntent.table, (sql, into) =>
    sql`INSERT INTO ${sql(into)} (id, merchant_id, environment, amount, currency, country, checkout_mode,
          status, merchant_reference, payment_method, customer, fingerprint, created_at, updated_at, version)
        SELECT 'dord_' || lpad(g::text, 24, '0'), 'mch_' || (g % ${merchants}), CASE WHEN g % 7 = 0 THEN 'live' ELSE 'test' END,
          1000 + g, (ARRAY['THB', 'USD', 'VND'])[1 + g % 3], (ARRAY['TH', 'VN'])[1 + g % 2], 'merchant',
          (ARRAY['requires_action', 'processing', 'succeeded', 'failed', 'expired'])[1 + (g / ${merchants}) % 5],
          'order-' || g, 'th_promptpay', '{}', 'f', ${new Date(start).toISOString()}::timestamptz + g * interval '1 second',
          ${new Date(start).toISOString()}::timestamptz + g * interval '1 second', 1
        FROM generate_series(1, ${rows}) AS g`)

const scope = { merchantId: "mch_7", environment: "test" as const }
/** A row about halfway down mch_7's test intents: a position 1,000 pages of 10 deep and more. */
const middle = (rows: number) => {
  const g = Math.floor(rows / 2 / merchants) * merchants + 7
  return { createdAt: start + g * 1000, id: "dord_" + String(g).padStart(24, "0") }
}

/** Every list shape of 4.3 with its name. */
export const shapes = (rows: number): ReadonlyArray<readonly [string, Query]> => [
  ["first page, no filter", { ...scope, limit: 26 }],
  ["deep page (cursor halfway down)", { ...scope, limit: 11, after: middle(rows) }],
  ["status (one)", { ...scope, limit: 26, where: { status: ["failed"] } }],
  ["status (several)", { ...scope, limit: 26, where: { status: ["requires_action", "processing", "failed"] } }],
  ["country", { ...scope, limit: 26, where: { country: "VN" } }],
  ["currency", { ...scope, limit: 26, where: { currency: "USD" } }],
  ["merchant_reference", { ...scope, limit: 26, where: { merchantReference: "order-1007" } }],
  ["created_after and created_before", { ...scope, limit: 26, createdAfter: start + 1_000_000, createdBefore: start + 2_000_000 }],
  ["every filter at once, deep", {
    ...scope,
    limit: 26,
    where: { country: "TH", currency: "THB", status: ["succeeded", "expired"] },
    createdAfter: start,
    createdBefore: start + rows * 1000,
    after: middle(rows)
  }]
]

/** The plan PostgreSQL chooses for the adapter's list statement of `table`, optionally with the rows each node read. */
const explainListOf = <A extends Table.StoredRecord>(table: Table.Table<A>) => (prefix: string, query: Storage.ListQuery<A>, analyze = false) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    const [text, params] = listStatement(sql, t, table, query).compile()
    const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(
      `EXPLAIN (COSTS OFF${analyze ? ", ANALYZE, TIMING OFF, SUMMARY OFF" : ""}) ${text}`,
      params
    )
    return rows.map((r) => r["QUERY PLAN"]).join("\n")
  })

/** The plan of the adapter's payment intent list statement. */
export const explain = explainListOf(PaymentIntent.table)

/** The shapes every list has, named after `name`: its first page, a page deep down (ids of `idPrefix`), and several statuses. */
const everyList = <A extends Table.StoredRecord>(
  name: string,
  idPrefix: string,
  statuses: ReadonlyArray<string>,
  rows: number
): ReadonlyArray<readonly [string, Storage.ListQuery<A>]> => [
  [`${name}: first page, no filter`, { ...scope, limit: 26 }],
  [`${name}: deep page`, { ...scope, limit: 11, after: { ...middle(rows), id: middle(rows).id.replace("dord_", idPrefix) } }],
  [`${name}: status (several)`, { ...scope, limit: 26, where: { status: statuses } as Storage.ListQuery<A>["where"] }]
]

type TopupQuery = Storage.ListQuery<TopupIntent.TopupIntentRecord>

/** Migrate `prefix` and fill it with `rows` top-ups over 50 merchants: every status, source type, country, currency. */
export const populateTopups = (prefix: string, rows: number) =>
  filled(prefix, TopupIntent.table, (sql, into) =>
    sql`INSERT INTO ${sql(into)} (id, merchant_id, environment, status, merchant_reference, country,
          destination_amount, destination_currency, credited_amount, source_type, source_provider, source_currency, source_amount,
          converted_amount, fee_amount, spread_amount, fx_rate, fx_spread, fee_rate, fee_fixed, provider_topup_id, expires_at,
          fingerprint, created_at, updated_at, version)
        SELECT 'tuin_' || lpad(g::text, 24, '0'), 'mch_' || (g % ${merchants}), CASE WHEN g % 7 = 0 THEN 'live' ELSE 'test' END,
          (ARRAY['requires_payment', 'processing', 'succeeded', 'failed', 'expired'])[1 + (g / ${merchants}) % 5],
          'topup-' || g, (ARRAY['TH', 'SG'])[1 + g % 2], 1000 + g, (ARRAY['THB', 'USDT', 'USD'])[1 + g % 3], '0',
          (ARRAY['test_funding', 'manual_receipt', 'provider_gateway'])[1 + (g / 3) % 3], 'simulator', 'THB', (1000 + g)::text,
          (1000 + g)::text, '0', '0', '1', '0', '0', '0', 'simtu', ${new Date(start).toISOString()}::timestamptz,
          'f', ${new Date(start).toISOString()}::timestamptz + g * interval '1 second',
          ${new Date(start).toISOString()}::timestamptz + g * interval '1 second', 1
        FROM generate_series(1, ${rows}) AS g`)

/** Every list shape of 4.8 (the filters of 4.3 and `source_type`, D3) with its name. */
export const topupShapes = (rows: number): ReadonlyArray<readonly [string, TopupQuery]> => [
  ...everyList<TopupIntent.TopupIntentRecord>("top-ups", "tuin_", ["requires_payment", "failed"], rows),
  ["top-ups: source_type (one)", { ...scope, limit: 26, where: { sourceType: ["manual_receipt"] } }],
  ["top-ups: source_type (several)", { ...scope, limit: 26, where: { sourceType: ["manual_receipt", "provider_gateway"] } }],
  ["top-ups: country", { ...scope, limit: 26, where: { country: "SG" } }],
  ["top-ups: currency", { ...scope, limit: 26, where: { destinationCurrency: "USDT" } }],
  ["top-ups: merchant_reference", { ...scope, limit: 26, where: { merchantReference: "topup-1007" } }],
  ["top-ups: every filter at once", {
    ...scope,
    limit: 26,
    where: { country: "TH", destinationCurrency: "THB", status: ["succeeded", "expired"], sourceType: ["test_funding", "provider_gateway"] },
    createdAfter: start,
    createdBefore: start + rows * 1000
  }]
]

type RefundQuery = Storage.ListQuery<Refund.RefundRecord>

/** Migrate `prefix` and fill it with `rows` refunds over 50 merchants, every status, a few per payment. */
export const populateRefunds = (prefix: string, rows: number) =>
  filled(prefix, Refund.table, (sql, into) =>
    sql`INSERT INTO ${sql(into)} (id, merchant_id, environment, payment_intent_id, amount, currency, status,
          merchant_reference, fingerprint, created_at, updated_at, version)
        SELECT 'rfnd_' || lpad(g::text, 24, '0'), 'mch_' || (g % ${merchants}), CASE WHEN g % 7 = 0 THEN 'live' ELSE 'test' END,
          'dord_' || lpad((g / 3)::text, 24, '0'), 1000 + g, 'THB', (ARRAY['pending', 'succeeded', 'failed'])[1 + (g / ${merchants}) % 3],
          'refund-' || g, 'f', ${new Date(start).toISOString()}::timestamptz + g * interval '1 second',
          ${new Date(start).toISOString()}::timestamptz + g * interval '1 second', 1
        FROM generate_series(1, ${rows}) AS g`)

/** Every list shape of GET /refunds (D10: the filters of 4.3 that apply, and `payment_intent`) with its name. */
export const refundShapes = (rows: number): ReadonlyArray<readonly [string, RefundQuery]> => [
  ...everyList<Refund.RefundRecord>("refunds", "rfnd_", ["pending", "failed"], rows),
  ["refunds: payment_intent", { ...scope, limit: 26, where: { paymentIntentId: "dord_" + "1002".padStart(24, "0") } }],
  ["refunds: merchant_reference", { ...scope, limit: 26, where: { merchantReference: "refund-1007" } }],
  ["refunds: created_after and created_before", { ...scope, limit: 26, createdAfter: start + 1_000_000, createdBefore: start + 2_000_000 }]
]

/** The plan of the adapter's refund list statement. */
export const explainRefunds = explainListOf(Refund.table)

/** The plan of the adapter's top-up list statement. */
export const explainTopups = explainListOf(TopupIntent.table)
