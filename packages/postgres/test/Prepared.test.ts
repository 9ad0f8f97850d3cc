/**
 * Named prepared statements (docs/postgres.md, "Prepared statements"): where Tender
 * makes the client (`layerFromUrl`, `layerFromPool`), each connection prepares a parameterized
 * statement once and runs it by name after; statements without parameters (migrations, several
 * commands in one text) keep the simple protocol; `preparedStatements: false` prepares nothing;
 * a host's own queries on its pool are never prepared by Tender. Read from the server itself
 * (`pg_prepared_statements` of the one connection the pool holds).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, it } from "@effect/vitest"
import { Merchants } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Effect, Exit, Layer, Scope } from "effect"
import pg from "pg"
import { afterAll } from "vitest"
import { dropTables, freshPrefix, runSql, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefixes: Array<string> = []
afterAll(async () => {
  for (const prefix of prefixes) await runSql(dropTables(prefix))
})

/** Build `layer`, run `f` on its context, release it. */
// Not named `using`: the formatter (dprint) reads `await using(…)` as an `await using` declaration and drops the `await`.
const withLayer = async <A, R>(layer: Layer.Layer<R, unknown>, f: (context: import("effect").Context.Context<R>) => Promise<A>) => {
  const scope = Effect.runSync(Scope.make())
  try {
    return await f(await Effect.runPromise(Layer.buildWithScope(layer, scope)))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const lookups = (n: number) =>
  Effect.flatMap(Merchants.Merchants, (m) => Effect.forEach(Array.from({ length: n }, (_, i) => `pk_test_nobody${i}`), (k) => m.findKeyByPublicKey(k)))

/** The statements the (only) connection has prepared, as the server lists them. */
const preparedStatements = Effect.flatMap(
  SqlClient,
  (sql) => sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'tender\\_%'`
)

const fresh = () => {
  const prefix = freshPrefix()
  prefixes.push(prefix)
  return prefix
}

describeOnPostgres("named prepared statements on PostgreSQL", () => {
  it("layerFromUrl: a parameterized statement is prepared once per connection under one name and run by it after; a migration's multi-command text still runs", async () => {
    const prefix = fresh()
    // One connection, so every statement below runs on the one whose prepared statements are read.
    await withLayer(PgStorage.layerFromUrl({ url, tablePrefix: prefix, maxConnections: 1, directoryCache: false }), async (context) => {
      const run = <A, E>(effect: Effect.Effect<A, E, SqlClient | Merchants.Merchants>) => Effect.runPromise(Effect.provide(effect, context))
      await run(lookups(3))
      const once = await run(preparedStatements)
      const lookup = once.filter((s) => s.statement.includes(`"${prefix}api_keys"`))
      assert.strictEqual(lookup.length, 1, "three lookups of one text: one prepared statement")
      await run(lookups(3))
      assert.deepStrictEqual((await run(preparedStatements)).filter((s) => s.statement.includes(`"${prefix}api_keys"`)), lookup)
    })
  })

  it("preparedStatements: false prepares nothing", async () => {
    const prefix = fresh()
    await withLayer(
      PgStorage.layerFromUrl({ url, tablePrefix: prefix, maxConnections: 1, directoryCache: false, preparedStatements: false }),
      async (context) => {
        const run = <A, E>(effect: Effect.Effect<A, E, SqlClient | Merchants.Merchants>) => Effect.runPromise(Effect.provide(effect, context))
        await run(lookups(3))
        assert.deepStrictEqual(await run(preparedStatements), [])
      }
    )
  })

  it("layerFromPool: Tender's statements are prepared on the host's pool, the host's own queries on it never are, and the pool is the host's", async () => {
    const prefix = fresh()
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    try {
      await withLayer(PgStorage.layerFromPool(pool, { tablePrefix: prefix, directoryCache: false }), async (context) => {
        await Effect.runPromise(Effect.provide(lookups(2), context))
        await pool.query("SELECT $1::text AS mine", ["host"])
        const listed = await pool.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements")
        assert.isTrue(listed.rows.some((r) => r.statement.includes(`"${prefix}api_keys"`)), "Tender's lookup is prepared")
        assert.isFalse(listed.rows.some((r) => r.statement.includes("AS mine")), "the host's query is not")
      })
      assert.isFalse((pool as unknown as { ending: boolean }).ending)
    } finally {
      await pool.end()
    }
  })
})
