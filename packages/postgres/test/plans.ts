/**
 * Query plans of every list shape of 4.3, on a table filled with enough rows that the
 * planner's choice means something. Shared by QueryPlans.test.ts and bench/postgres/plans.ts.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import type { Storage } from "@tender/core"
import { PaymentIntent, Refund, TopupIntent } from "@tender/core"
import { Effect } from "effect"
import { listStatement } from "../src/internal/queries.js"
import { tables, validatePrefix } from "../src/internal/tables.js"
import { PgMigrations } from "../src/index.js"

export const merchants = 50

type Query = Storage.ListQuery<PaymentIntent.PaymentIntentRecord>
const start = Date.UTC(2026, 0, 1)

/** Migrate `prefix` and fill it with `rows` intents over 50 merchants, both environments, every status. */
export const populate = (prefix: string, rows: number) =>
  Effect.gen(function*() {
    yield* PgMigrations.run({ tablePrefix: prefix })
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    yield* sql`INSERT INTO ${sql(t.of(PaymentIntent.table))} (id, merchant_id, environment, amount, currency, country, checkout_mode,
        status, merchant_reference, payment_method, customer, fingerprint, created_at, updated_at, version)
      SELECT 'dord_' || lpad(g::text, 24, '0'), 'mch_' || (g % ${merchants}), CASE WHEN g % 7 = 0 THEN 'live' ELSE 'test' END,
        1000 + g, (ARRAY['THB', 'USD', 'VND'])[1 + g % 3], (ARRAY['TH', 'VN'])[1 + g % 2], 'merchant',
        (ARRAY['requires_action', 'processing', 'succeeded', 'failed', 'expired'])[1 + (g / ${merchants}) % 5],
        'order-' || g, 'th_promptpay', '{}', 'f', ${new Date(start).toISOString()}::timestamptz + g * interval '1 second',
        ${new Date(start).toISOString()}::timestamptz + g * interval '1 second', 1
      FROM generate_series(1, ${rows}) AS g`
    yield* sql`ANALYZE ${sql(t.of(PaymentIntent.table))}`
  })

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

/** The plan PostgreSQL chooses for the adapter's own statement, optionally with the rows each node read. */
export const explain = (prefix: string, query: Query, analyze = false) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    const [text, params] = listStatement(sql, t, PaymentIntent.table, query).compile()
    const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(
      `EXPLAIN (COSTS OFF${analyze ? ", ANALYZE, TIMING OFF, SUMMARY OFF" : ""}) ${text}`,
      params
    )
    return rows.map((r) => r["QUERY PLAN"]).join("\n")
  })

type TopupQuery = Storage.ListQuery<TopupIntent.TopupIntentRecord>

/** Migrate `prefix` and fill it with `rows` top-ups over 50 merchants: every status, source type, country, currency. */
export const populateTopups = (prefix: string, rows: number) =>
  Effect.gen(function*() {
    yield* PgMigrations.run({ tablePrefix: prefix })
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    yield* sql`INSERT INTO ${sql(t.of(TopupIntent.table))} (id, merchant_id, environment, status, merchant_reference, country,
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
      FROM generate_series(1, ${rows}) AS g`
    yield* sql`ANALYZE ${sql(t.of(TopupIntent.table))}`
  })

/** Every list shape of 4.8 (the filters of 4.3 and `source_type`, D3) with its name. */
export const topupShapes = (rows: number): ReadonlyArray<readonly [string, TopupQuery]> => [
  ["top-ups: first page, no filter", { ...scope, limit: 26 }],
  ["top-ups: deep page", { ...scope, limit: 11, after: { ...middle(rows), id: middle(rows).id.replace("dord_", "tuin_") } }],
  ["top-ups: status (several)", { ...scope, limit: 26, where: { status: ["requires_payment", "failed"] } }],
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
  Effect.gen(function*() {
    yield* PgMigrations.run({ tablePrefix: prefix })
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    yield* sql`INSERT INTO ${sql(t.of(Refund.table))} (id, merchant_id, environment, payment_intent_id, amount, currency, status,
        merchant_reference, fingerprint, created_at, updated_at, version)
      SELECT 'rfnd_' || lpad(g::text, 24, '0'), 'mch_' || (g % ${merchants}), CASE WHEN g % 7 = 0 THEN 'live' ELSE 'test' END,
        'dord_' || lpad((g / 3)::text, 24, '0'), 1000 + g, 'THB', (ARRAY['pending', 'succeeded', 'failed'])[1 + (g / ${merchants}) % 3],
        'refund-' || g, 'f', ${new Date(start).toISOString()}::timestamptz + g * interval '1 second',
        ${new Date(start).toISOString()}::timestamptz + g * interval '1 second', 1
      FROM generate_series(1, ${rows}) AS g`
    yield* sql`ANALYZE ${sql(t.of(Refund.table))}`
  })

/** Every list shape of GET /refunds (D10: the filters of 4.3 that apply, and `payment_intent`) with its name. */
export const refundShapes = (rows: number): ReadonlyArray<readonly [string, RefundQuery]> => [
  ["refunds: first page, no filter", { ...scope, limit: 26 }],
  ["refunds: deep page", { ...scope, limit: 11, after: { ...middle(rows), id: middle(rows).id.replace("dord_", "rfnd_") } }],
  ["refunds: status (several)", { ...scope, limit: 26, where: { status: ["pending", "failed"] } }],
  ["refunds: payment_intent", { ...scope, limit: 26, where: { paymentIntentId: "dord_" + "1002".padStart(24, "0") } }],
  ["refunds: merchant_reference", { ...scope, limit: 26, where: { merchantReference: "refund-1007" } }],
  ["refunds: created_after and created_before", { ...scope, limit: 26, createdAfter: start + 1_000_000, createdBefore: start + 2_000_000 }]
]

/** The plan PostgreSQL chooses for the adapter's refund list statement. */
export const explainRefunds = (prefix: string, query: RefundQuery) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    const [text, params] = listStatement(sql, t, Refund.table, query).compile()
    const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${text}`, params)
    return rows.map((r) => r["QUERY PLAN"]).join("\n")
  })

/** The plan PostgreSQL chooses for the adapter's top-up list statement. */
export const explainTopups = (prefix: string, query: TopupQuery) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(yield* validatePrefix(prefix))
    const [text, params] = listStatement(sql, t, TopupIntent.table, query).compile()
    const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${text}`, params)
    return rows.map((r) => r["QUERY PLAN"]).join("\n")
  })
