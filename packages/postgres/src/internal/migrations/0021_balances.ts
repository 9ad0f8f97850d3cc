/**
 * Migration 0021 (D12): balance transactions, and each merchant's fee schedule and settlement
 * delay. A transaction is unique per (source, type), so one money event is never counted twice,
 * and an adjustment per idempotency key. `balance_idx` serves the sums of a balance (GET /balance,
 * a payout's check) from the index alone.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { BalanceTransaction } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"
import { listIndexes } from "./initial.js"

/** @since 0.1.0 @category migrations */
export const balances = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    const table = t.of(BalanceTransaction.table)
    yield* sql`CREATE TABLE ${sql(table)} (
      id text COLLATE "C" PRIMARY KEY,
      merchant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      type text NOT NULL,
      amount bigint NOT NULL,
      fee bigint NOT NULL CHECK (fee >= 0),
      net bigint NOT NULL CHECK (net = amount - fee),
      currency text NOT NULL,
      fee_details json NOT NULL,
      available_at timestamptz(3) NOT NULL,
      source text,
      description text,
      provider_account text,
      postings json NOT NULL,
      idempotency_key text,
      created_at timestamptz(3) NOT NULL,
      version integer NOT NULL
    )`
    yield* listIndexes(sql, table, { list: null, type: "type", source: "source", currency: "currency" })
    yield* sql`CREATE UNIQUE INDEX ${sql(`${table}_source_type_key`)} ON ${sql(table)} (merchant_id, environment, source, type)
      WHERE source IS NOT NULL`
    yield* sql`CREATE UNIQUE INDEX ${sql(`${table}_adjustment_key_key`)} ON ${sql(table)} (merchant_id, environment, idempotency_key)
      WHERE idempotency_key IS NOT NULL`
    yield* sql`CREATE INDEX ${sql(`${table}_balance_idx`)} ON ${sql(table)} (environment, merchant_id, currency, available_at) INCLUDE (net, fee)`
    yield* sql`ALTER TABLE ${sql(t.merchants)} ADD COLUMN fees json NOT NULL DEFAULT '{}',
      ADD COLUMN settlement_delay_days integer NOT NULL DEFAULT 0 CHECK (settlement_delay_days BETWEEN 0 AND 30)`
  })
