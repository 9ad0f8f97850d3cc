/**
 * A host's own `pg.Pool` (docs/embedding.md, "Your own pg.Pool"): `PgStorage.layerFromPool`
 * migrates Tender's tables on it and serves the storage ports through it, and releasing the
 * layer leaves the pool open for the host.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Merchants } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Effect, Exit, Layer, Scope } from "effect"
import pg from "pg"
import { afterAll } from "vitest"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"

const prefix = freshPrefix()
const pool = new pg.Pool({ connectionString: url, max: 3 })
afterAll(async () => {
  if (skipReason === undefined) await runSql(dropTables(prefix))
  await pool.end()
})

if (skipReason !== undefined) {
  describe("PgStorage.layerFromPool", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}

describe.skipIf(skipReason !== undefined)("PgStorage.layerFromPool", () => {
  it("migrates on the host's pool, serves the ports through it, and never ends it", async () => {
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(PgStorage.layerFromPool(pool, { tablePrefix: prefix }), scope))
    const migrated = await Effect.runPromise(Effect.provide(
      Effect.flatMap(SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(`${prefix}migrations`)}`),
      context
    ))
    assert.isAbove(migrated[0]?.n ?? 0, 0)
    // A port answers through the pool: an unknown key is simply not found.
    const found = await Effect.runPromise(Effect.provide(Effect.flatMap(Merchants.Merchants, (m) => m.findKeyByPublicKey("pk_test_nobody")), context))
    assert.isTrue(found._tag === "None")
    await Effect.runPromise(Scope.close(scope, Exit.void))
    assert.isFalse((pool as unknown as { ending: boolean }).ending)
    assert.strictEqual((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one, 1)
  })
})
