import { SqlClient } from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { assert } from "@effect/vitest"
import {
  Asset,
  BalanceTransaction,
  Event,
  Merchants,
  PaymentIntent,
  PayoutIntent,
  ProviderNotification,
  Refund,
  type Table,
  Task,
  TopupIntent,
  WebhookDelivery,
  WebhookEndpoint
} from "@tender/core"
import { PgMigrations } from "@tender/postgres"
import { Effect, Exit } from "effect"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, runSql, skipReason } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefixes: Array<string> = []

/** Every migration's id, in order: `0002_guard_failed` is 2. */
const migrationIds = Object.keys(PgMigrations.migrations(freshPrefix() as never)).map((k) => Number(k.split("_")[0]))

/** The PostgreSQL column type each storage kind of a record field is stored as. */
const columnType: Record<Table.StorageKind, string> = {
  text: "text",
  amount: "bigint",
  integer: "integer",
  millis: "timestamp with time zone",
  json: "json",
  boolean: "boolean",
  bytes: "bytea"
}
afterAll(() => (skipReason === undefined ? runSql(Effect.forEach(prefixes, dropTables)) : undefined))

/** A fresh table prefix, its tables dropped after the file. */
const owned = () => {
  const prefix = freshPrefix()
  prefixes.push(prefix)
  return prefix
}

/** A fresh prefix with every migration run under it. */
const migrated = Effect.suspend(() => {
  const prefix = owned()
  return Effect.as(PgMigrations.run({ tablePrefix: prefix }), prefix)
})

const tablesOf = (prefix: string) =>
  Effect.flatMap(SqlClient, (sql) =>
    sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND starts_with(tablename, ${prefix}) ORDER BY tablename`).pipe(
      Effect.map((rows) => rows.map((r) => r.name.slice(prefix.length)))
    )

describeOnPostgres("PgMigrations", () => {
  it.layer(client, { timeout: 60_000 })((it) => {
    it.effect("migrations create every table under the prefix, in their own migrations table; running again is a no-op", () =>
      Effect.gen(function*() {
        const prefix = owned()
        const first = yield* PgMigrations.run({ tablePrefix: prefix })
        assert.deepStrictEqual(first.map(([id]) => id), migrationIds)
        assert.deepStrictEqual(yield* tablesOf(prefix), [
          "api_keys",
          "assets",
          "balance_transactions",
          "events",
          "idempotency_keys",
          "merchant_references",
          "merchants",
          "migrations",
          "payment_intents",
          "payout_intents",
          "provider_accounts",
          "provider_attempts",
          "provider_notifications",
          "refunds",
          "route_availability",
          "tasks",
          "topup_intents",
          "webhook_attempts",
          "webhook_endpoints"
        ])
        const again = yield* PgMigrations.run({ tablePrefix: prefix })
        assert.deepStrictEqual(again, [])
        const sql = yield* SqlClient
        const recorded = yield* sql<{ migration_id: number }>`SELECT migration_id FROM ${sql(`${prefix}migrations`)}`
        assert.deepStrictEqual(recorded.map((r) => r.migration_id), migrationIds)
      }))

    it.effect("processes starting at once on an empty database migrate once, without errors", () =>
      Effect.gen(function*() {
        const prefix = owned()
        const runs = yield* Effect.all(Array.from({ length: 6 }, () => PgMigrations.run({ tablePrefix: prefix })), {
          concurrency: "unbounded"
        })
        assert.strictEqual(runs.filter((r) => r.length === migrationIds.length).length, 1)
        assert.strictEqual(runs.filter((r) => r.length === 0).length, 5)
      }))

    it.effect("storage: every table holds exactly the columns its record schema derives, with their types and nullability", () =>
      Effect.gen(function*() {
        const prefix = yield* migrated
        const sql = yield* SqlClient
        for (
          const table of [
            BalanceTransaction.table,
            PaymentIntent.table,
            Event.table,
            Task.table,
            Asset.table,
            WebhookEndpoint.table,
            WebhookDelivery.attemptTable,
            PayoutIntent.table,
            TopupIntent.table,
            Refund.table,
            ProviderNotification.table,
            // The directory (issue 49, migration 0028).
            ...Merchants.tables
          ]
        ) {
          const rows = yield* sql<{ name: string; type: string; nullable: string }>`SELECT column_name AS name,
              data_type AS type, is_nullable AS nullable
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${prefix + table.name}
            ORDER BY column_name`
          const expected = table.fields
            .map((f) => ({ name: f.column, type: columnType[f.kind], nullable: f.nullable ? "YES" : "NO" }))
            .sort((a, b) => (a.name < b.name ? -1 : 1))
          // A field added to the record without its migration (or a column without its field) fails here.
          assert.deepStrictEqual(rows.map((r) => ({ ...r })), expected, table.name)
        }
      }))

    it.effect("D11 a provider's event id is stored once: (provider, event_id) is unique whatever the row's scope", () =>
      Effect.gen(function*() {
        const prefix = yield* migrated
        const sql = yield* SqlClient
        const insert = (id: string, environment: string) =>
          sql`INSERT INTO ${
            sql(prefix + ProviderNotification.table.name)
          } (id, merchant_id, environment, provider, event_id, notice, status, created_at, updated_at, version)
            VALUES (${id}, '', ${environment}, 'stripe', 'evt_1', '{}', 'received', now(), now(), 1)`
        yield* insert("pntf_a", "test")
        const again = yield* Effect.exit(insert("pntf_b", "live"))
        assert.isTrue(Exit.isFailure(again))
      }))

    it.effect("a table prefix that is not a safe identifier is refused before any SQL runs", () =>
      Effect.gen(function*() {
        for (const bad of ["", "Tender_", "1abc", "a-b", "x; DROP TABLE y; --", "a".repeat(31)]) {
          const exit = yield* Effect.exit(PgMigrations.run({ tablePrefix: bad }))
          assert.isTrue(Exit.isFailure(exit), bad)
        }
      }))
  })
})
