import { describe, it } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { SqlClient } from "@effect/sql/SqlClient"
import { PgMigrations } from "@tender/postgres"
import { Effect, Exit } from "effect"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, runSql, skipReason } from "./database.js"

const prefixes: Array<string> = []
afterAll(() => (skipReason === undefined ? runSql(Effect.forEach(prefixes, dropTables)) : undefined))

const tablesOf = (prefix: string) =>
  Effect.flatMap(SqlClient, (sql) =>
    sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND starts_with(tablename, ${prefix}) ORDER BY tablename`).pipe(
    Effect.map((rows) => rows.map((r) => r.name.slice(prefix.length)))
  )

if (skipReason !== undefined) {
  describe("PgMigrations", () => it.skip(`skipped: ${skipReason}`, () => {}))
} else {
  describe("PgMigrations", () => {
    it.layer(client, { timeout: 60_000 })((it) => {
      it.effect("migrations create every table under the prefix, in their own migrations table; running again is a no-op", () =>
        Effect.gen(function*() {
          const prefix = freshPrefix()
          prefixes.push(prefix)
          const first = yield* PgMigrations.run({ tablePrefix: prefix })
          assert.deepStrictEqual(first.map(([id]) => id), [1])
          assert.deepStrictEqual(yield* tablesOf(prefix), [
            "api_keys",
            "idempotency_keys",
            "merchant_references",
            "merchants",
            "migrations",
            "payment_intents"
          ])
          const again = yield* PgMigrations.run({ tablePrefix: prefix })
          assert.deepStrictEqual(again, [])
          const sql = yield* SqlClient
          const recorded = yield* sql<{ migration_id: number }>`SELECT migration_id FROM ${sql(`${prefix}migrations`)}`
          assert.deepStrictEqual(recorded.map((r) => r.migration_id), [1])
        }))

      it.effect("processes starting at once on an empty database migrate once, without errors", () =>
        Effect.gen(function*() {
          const prefix = freshPrefix()
          prefixes.push(prefix)
          const runs = yield* Effect.all(Array.from({ length: 6 }, () => PgMigrations.run({ tablePrefix: prefix })), {
            concurrency: "unbounded"
          })
          assert.strictEqual(runs.filter((r) => r.length === 1).length, 1)
          assert.strictEqual(runs.filter((r) => r.length === 0).length, 5)
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
}
