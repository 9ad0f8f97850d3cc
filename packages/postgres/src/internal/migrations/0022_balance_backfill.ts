/**
 * Migration 0022 (D12): the balance transactions of the history stored before 0021, so an
 * upgraded deployment's balances are right from its first request. Each payment intent, refund,
 * top-up and payout is read in pages (its money columns alone, as they stood at 0021) and mapped
 * by `LedgerBackfill`; a transaction already written (one per source and type) is left as it is.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { BalanceTransaction, LedgerBackfill, PaymentIntent, PayoutIntent, Refund, TopupIntent } from "@tender/core"
import { Effect } from "effect"
import { timestamp } from "../records.js"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

const page = 1000

/** Epoch milliseconds of a timestamp column, as text. */
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::bigint::text AS ${column}`

const scoped = "id, merchant_id, environment, status"

/** Each kind: its table, the columns it reads and the source a row is. */
const kinds = [
  {
    table: PaymentIntent.table,
    select: `${scoped}, amount::text AS amount, currency, provider_code, ${ms("updated_at")}`,
    source: (r: Row): LedgerBackfill.Source => ({
      kind: "payment_intent",
      record: { ...scope(r), amount: r["amount"]!, currency: r["currency"]!, providerCode: r["provider_code"] ?? null, updatedAt: Number(r["updated_at"]) }
    })
  },
  {
    table: Refund.table,
    select: `${scoped}, amount::text AS amount, currency, provider_code, reason, payment_intent_id, ${ms("created_at")}, ${ms("updated_at")}`,
    source: (r: Row): LedgerBackfill.Source => ({
      kind: "refund",
      record: {
        ...scope(r),
        amount: r["amount"]!,
        currency: r["currency"]!,
        providerCode: r["provider_code"] ?? null,
        reason: (r["reason"] ?? null) as Refund.RefundRecord["reason"],
        paymentIntentId: r["payment_intent_id"]!,
        createdAt: Number(r["created_at"]),
        updatedAt: Number(r["updated_at"])
      }
    })
  },
  {
    table: TopupIntent.table,
    select: `${scoped}, credited_amount, destination_currency, source_provider, ${ms("updated_at")}`,
    source: (r: Row): LedgerBackfill.Source => ({
      kind: "topup_intent",
      record: {
        ...scope(r),
        creditedAmount: r["credited_amount"]!,
        destinationCurrency: r["destination_currency"]!,
        sourceProvider: r["source_provider"]!,
        updatedAt: Number(r["updated_at"])
      }
    })
  },
  {
    table: PayoutIntent.table,
    select: `${scoped}, amount::text AS amount, currency, ${ms("created_at")}, ${ms("updated_at")}`,
    source: (r: Row): LedgerBackfill.Source => ({
      kind: "payout_intent",
      record: { ...scope(r), amount: r["amount"]!, currency: r["currency"]!, createdAt: Number(r["created_at"]), updatedAt: Number(r["updated_at"]) }
    })
  }
] as const

type Row = Record<string, string | null>

const scope = (r: Row) => ({ id: r["id"]!, merchantId: r["merchant_id"]!, environment: r["environment"] as "test" | "live", status: r["status"] as never })

/** @since 0.1.0 @category migrations */
export const balanceBackfill = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    const target = sql(t.of(BalanceTransaction.table))
    for (const kind of kinds) {
      let after = ""
      while (true) {
        const rows = yield* sql<Row>`SELECT ${sql.literal(kind.select)} FROM ${sql(t.of(kind.table))}
          WHERE id > ${after} ORDER BY id LIMIT ${page}`
        for (const row of rows) {
          for (const x of LedgerBackfill.transactionsOf(kind.source(row))) {
            yield* sql`INSERT INTO ${target} (id, merchant_id, environment, type, amount, fee, net, currency, fee_details, available_at,
                source, description, provider_account, postings, idempotency_key, created_at, version)
              VALUES (${x.id}, ${x.merchantId}, ${x.environment}, ${x.type}, ${x.amount}, ${x.fee}, ${x.net}, ${x.currency},
                ${JSON.stringify(x.feeDetails)}, ${timestamp(x.availableAt)}, ${x.source}, ${x.description}, ${x.providerAccount},
                ${JSON.stringify(x.postings)}, ${x.idempotencyKey}, ${timestamp(x.createdAt)}, ${x.version})
              ON CONFLICT (merchant_id, environment, source, type) WHERE source IS NOT NULL DO NOTHING`
          }
        }
        if (rows.length < page) break
        after = rows[rows.length - 1]!["id"]!
      }
    }
  })
