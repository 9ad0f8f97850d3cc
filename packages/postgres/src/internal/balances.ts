/**
 * The sums of balance transactions (D12): a merchant's balances, or every merchant's of an
 * environment (the platform's fee revenue), computed from the transactions themselves in one
 * statement served by `balance_idx`; no row holds a running total that every payment would lock.
 * A debit counts as available whenever it is dated (`Storage.BalanceTotal`).
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import { BalanceTransaction, type Storage } from "@tender/core"
import { Effect } from "effect"
import type { Run } from "./direct.js"
import { fold } from "./errors.js"
import { timestamp } from "./records.js"
import type { Tables } from "./tables.js"

/** The balances `query` asks for, per currency, sorted by currency. */
export const sums = (sql: SqlClient, t: Tables, run: Run, query: Storage.BalanceQuery) => {
  const now = timestamp(query.now)
  const merchant = query.merchantId === undefined ? sql`` : sql`AND merchant_id = ${query.merchantId}`
  return run(
    "balances",
    sql<{ currency: string; available: string; pending: string; fees: string }>`SELECT currency,
      coalesce(sum(net) FILTER (WHERE available_at <= ${now} OR net < 0), 0)::text AS available,
      coalesce(sum(net) FILTER (WHERE available_at > ${now} AND net >= 0), 0)::text AS pending,
      coalesce(sum(fee), 0)::text AS fees
    FROM ${sql(t.of(BalanceTransaction.table))}
    WHERE environment = ${query.environment} ${merchant}
    GROUP BY currency ORDER BY currency COLLATE "C"`
  ).pipe(
    Effect.map((rows): ReadonlyArray<Storage.BalanceTotal> =>
      rows.map((r) => ({ currency: r.currency, available: r.available, pending: r.pending, fees: r.fees }))
    ),
    Effect.catchTag("SqlError", (e) => Effect.fail(fold("balances")(e)))
  )
}
