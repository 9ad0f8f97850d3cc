/**
 * The test database: DATABASE_URL, else the local server at 127.0.0.1:5432. Without a
 * reachable server the PostgreSQL tests are skipped with a line saying so, except under
 * CI=true, where that is a failure.
 */
import { PgClient } from "@effect/sql-pg"
import * as Migrator from "@effect/sql/Migrator"
import { SqlClient } from "@effect/sql/SqlClient"
import { PgMigrations } from "@tender/postgres"
import { testDatabaseUrl } from "@tender/repo-test-support"
import { Cause, Effect, Layer, Redacted } from "effect"

/** The test database (@tender/repo-test-support). */
export const url = testDatabaseUrl

const probe = (): Promise<string | undefined> =>
  Effect.runPromise(
    Layer.build(PgClient.layer({ url: Redacted.make(url), connectTimeout: "10 seconds", maxConnections: 1 })).pipe(
      Effect.scoped,
      Effect.as(undefined),
      Effect.catchAllCause((cause) => Effect.succeed(Cause.squash(cause) instanceof Error ? (Cause.squash(cause) as Error).message : Cause.pretty(cause)))
    )
  )

const unreachable = await probe()
if (unreachable !== undefined && process.env["CI"] === "true") {
  throw new Error(`CI=true and no PostgreSQL at ${url.replace(/:[^:@/]*@/, ":***@")}: ${unreachable}`)
}

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
export const skipReason = unreachable === undefined
  ? undefined
  : `no PostgreSQL reachable at ${url.replace(/:[^:@/]*@/, ":***@")} (${unreachable}); set DATABASE_URL to run these tests`

if (skipReason !== undefined) process.stderr.write(`[@tender/postgres] skipped: ${skipReason}\n`)

/** A pooled client on the test database. */
export const client = PgClient.layer({ url: Redacted.make(url), maxConnections: 20 })

/** A table prefix no other run uses. */
export { freshTablePrefix as freshPrefix } from "@tender/repo-test-support"

/** Drop every table whose name starts with `prefix`. */
export const dropTables = (prefix: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    const rows = yield* sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND starts_with(tablename, ${prefix})`
    for (const { name } of rows) yield* sql`DROP TABLE IF EXISTS ${sql(name)}`
    yield* sql`DROP FUNCTION IF EXISTS ${sql(`${prefix}guard_failed`)}(text)`
    yield* sql`DROP FUNCTION IF EXISTS ${sql(`${prefix}directory_changed`)}()`
    yield* sql`DROP FUNCTION IF EXISTS ${sql(`${prefix}provider_accounts_kept`)}()`
  })

export const runSql = <A, E>(effect: Effect.Effect<A, E, SqlClient>) =>
  Effect.runPromise(Effect.scoped(Layer.build(client).pipe(Effect.flatMap((ctx) => Effect.provide(effect, ctx)))))

/** The schema under `prefix` as a version whose last migration was `last` left it: the migrations up to it, recorded as `PgMigrations.run` records them. */
export const migratedUpTo = (prefix: string, last: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    const table = `${prefix}migrations`
    yield* sql`CREATE TABLE IF NOT EXISTS ${
      sql(table)
    } (migration_id integer PRIMARY KEY, created_at timestamp with time zone NOT NULL DEFAULT now(), name text NOT NULL)`
    const before = Object.fromEntries(Object.entries(PgMigrations.migrations(prefix as never)).filter(([id]) => Number(id.split("_")[0]) <= last))
    yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table })
  })
