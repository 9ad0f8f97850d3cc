/**
 * The untyped members of `pg` and `@effect/sql` Tender reads, each through its shim
 * (packages/postgres/src/internal/{pgInternals,sqlInternals}.ts; docs/upstream.md), checked on the
 * pinned versions: an upgrade that drops or reshapes one fails here, not in a cancel or a span.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { Effect } from "effect"
import pg from "pg"
import { assert, it } from "vitest"
import * as PgInternals from "../src/internal/pgInternals.js"
import * as SqlInternals from "../src/internal/sqlInternals.js"
import { client, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

describeOnPostgres("the pg shim reads what a pinned pg connection keeps", () => {
  it("upstream shim a pool connection's processID is its backend's pid, its secretKey a number, its host and port the server's", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    try {
      const c = await pool.connect()
      try {
        const backend = PgInternals.backendOf(c)
        const { rows } = await c.query("SELECT pg_backend_pid() AS pid")
        assert.strictEqual(backend.processID, rows[0].pid)
        assert.strictEqual(typeof backend.secretKey, "number")
        assert.strictEqual(backend.host, new URL(url).hostname)
        assert.strictEqual(backend.port, Number(new URL(url).port || 5432))
      } finally {
        c.release()
      }
    } finally {
      await pool.end()
    }
  })
})

describeOnPostgres("the @effect/sql shim reads what a pinned @effect/sql statement and fiber keep", () => {
  const run = <A>(effect: Effect.Effect<A, unknown, SqlClient>) => Effect.runPromise(Effect.scoped(Effect.provide(effect, client)))

  it("upstream shim a statement carries its client's span attributes (db.system.name postgresql)", async () => {
    const attributes = await run(Effect.map(SqlClient, (sql) => SqlInternals.spanAttributesOf(sql`SELECT 1`)))
    assert.deepInclude(attributes.map(([k, v]) => `${k}=${String(v)}`), "db.system.name=postgresql")
  })

  it("upstream shim a fiber needs the SQL client inside a transaction and under a transformer, not otherwise", async () => {
    const needs = Effect.withFiberRuntime<boolean>((fiber) => Effect.succeed(SqlInternals.needsSqlClient(fiber)))
    const [plain, inTransaction, transformed] = await run(Effect.flatMap(SqlClient, (sql) =>
      Effect.all([
        needs,
        sql.withTransaction(needs),
        Statement.withTransformer(needs, (statement) => Effect.succeed(statement))
      ])))
    assert.deepStrictEqual([plain, inTransaction, transformed], [false, true, true])
  })
})
