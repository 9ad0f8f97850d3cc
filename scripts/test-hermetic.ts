/**
 * `npm run test:hermetic`: the whole test suite against a PostgreSQL database of its own, then
 * a check that it left nothing behind (no table, view, sequence or function in any schema of
 * that database), then the database is dropped. `.ci/run` runs it after a plain `npm test`, so
 * CI covers both "DATABASE_URL unset" and "DATABASE_URL set, to a database other than `test`".
 *
 *   npm run test:hermetic                    # on the server of DATABASE_URL, else 127.0.0.1:5432
 *   npm run test:hermetic -- --project repo  # extra arguments go to vitest
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { spawnSync } from "node:child_process"

const base = new URL(process.env["DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/test")
const name = `tender_hermetic_${Date.now().toString(36)}_${process.pid}`
const fresh = new URL(base)
fresh.pathname = `/${name}`
const shown = (u: URL) => u.href.replace(/:[^:@/]*@/, ":***@")

const onDatabase = <A, E>(url: URL, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(
    Effect.scoped(Layer.build(PgClient.layer({ url: Redacted.make(url.href), maxConnections: 1 })).pipe(
      Effect.flatMap((ctx) => Effect.provide(effect, ctx))
    ))
  )

/** Everything a test could leave behind, outside PostgreSQL's own schemas. */
const leftovers = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<{ kind: string; name: string }>`
    SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
                          WHEN 'S' THEN 'sequence' WHEN 'p' THEN 'partitioned table' ELSE c.relkind::text END AS kind,
           n.nspname || '.' || c.relname AS name
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'v', 'm', 'S', 'p')
       AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
    UNION ALL
    SELECT 'function', n.nspname || '.' || p.proname
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
     ORDER BY 1, 2`
})

await onDatabase(base, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`)))
process.stdout.write(`test:hermetic: npm test on ${shown(fresh)}\n`)
let status = 1
try {
  const run = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, DATABASE_URL: fresh.href }
  })
  status = run.status ?? 1
  const left = await onDatabase(fresh, leftovers)
  if (left.length > 0) {
    process.stderr.write(`test:hermetic: the tests left ${left.length} object(s) behind in ${name}:\n${left.map((l) => `  ${l.kind} ${l.name}`).join("\n")}\n`)
    status = 1
  } else {
    process.stdout.write(`test:hermetic: nothing left behind in ${name}\n`)
  }
} finally {
  await onDatabase(base, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)))
}
process.exit(status)
