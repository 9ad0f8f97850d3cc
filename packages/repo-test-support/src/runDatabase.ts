/**
 * The test run's own PostgreSQL database: Vitest's global setup creates it before the first
 * test file and, after the last, lists what the tests left in it (any table, view, sequence or
 * function: each test drops its own table prefix), fails the run if anything is, and drops it.
 * So every `npm test` is hermetic, and runs beside other runs on one server without sharing a
 * table (docs/test-environment.md, "Running the tests").
 *
 * The config names the database (`runDatabaseEnv`) before any worker starts, so every test file
 * and every process a test starts sees it in `TENDER_TEST_DATABASE_URL`; `DATABASE_URL` keeps
 * the host's own meaning (a demo started without it runs in memory).
 */
import pg from "pg"

/** The variable naming the run's database, read by `testDatabaseUrl`. */
export const runDatabaseVariable = "TENDER_TEST_DATABASE_URL"

/** Set (to the database's name) when the run made that database itself and so must drop it. */
const ownedVariable = "TENDER_TEST_DATABASE_OWNED"

const shown = (url: string) => url.replace(/:[^:@/]*@/, ":***@")

/** The database the run's own is created from and dropped through: DATABASE_URL, else the local `test`. */
const serverUrl = (env: NodeJS.ProcessEnv) => env["DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/test"

/**
 * Name the run's database in `env` (the config's `process.env`), on the server of `DATABASE_URL`
 * (else the local one), unless `TENDER_TEST_DATABASE_URL` already names one to use as it is.
 */
export const runDatabaseEnv = (env: NodeJS.ProcessEnv): void => {
  if ((env[runDatabaseVariable] ?? "") !== "") return
  const base = new URL(serverUrl(env))
  const name = `tender_run_${Date.now().toString(36)}_${process.pid.toString(36)}`
  base.pathname = `/${name}`
  env[runDatabaseVariable] = base.href
  env[ownedVariable] = name
}

/** One statement on `url`'s database, on a connection of its own. */
const onDatabase = async <A>(url: string, run: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
  // A server that goes away mid-statement fails the statement; the client's own event must not crash the run.
  client.on("error", () => {})
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Everything a test could leave behind, outside PostgreSQL's own schemas. */
const leftoversQuery = `
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

/** A run interrupted before its teardown (Ctrl-C) leaves its database: the next run drops those a day old. */
const abandonedAfterMillis = 24 * 60 * 60 * 1000

const dropAbandoned = async (c: pg.Client) => {
  const { rows } = await c.query<{ name: string }>("SELECT datname AS name FROM pg_database WHERE datname LIKE 'tender\\_run\\_%'")
  for (const { name } of rows) {
    const made = parseInt(name.split("_")[2] ?? "", 36)
    if (Number.isFinite(made) && Date.now() - made > abandonedAfterMillis) {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})
    }
  }
}

/**
 * Create the run's database. Where no server answers, nothing is created: the PostgreSQL tests
 * then skip saying so (or fail under `CI=true`, `packages/postgres/test/database.ts`).
 */
export const createRunDatabase = async (env: NodeJS.ProcessEnv = process.env): Promise<boolean> => {
  const name = env[ownedVariable]
  const url = env[runDatabaseVariable]
  if (name === undefined || name === "" || url === undefined) return false
  try {
    await onDatabase(serverUrl(env), async (c) => {
      await dropAbandoned(c)
      await c.query(`CREATE DATABASE "${name}"`)
    })
    return true
  } catch (e) {
    // Only a server that cannot be reached is left to the tests' own skip; any other refusal
    // (no CREATEDB right, say) is the run's to report.
    const code = (e as { code?: string }).code
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ETIMEDOUT") return false
    throw new Error(
      `cannot create the test run's database ${name} through ${shown(serverUrl(env))}: ${(e as Error).message}. ` +
        `Grant CREATEDB, or set ${runDatabaseVariable} to a database the tests may use as it is.`,
      { cause: e }
    )
  }
}

/** What the run left in its database (empty when nothing), then the database is dropped. */
export const dropRunDatabase = async (env: NodeJS.ProcessEnv = process.env): Promise<ReadonlyArray<string>> => {
  const name = env[ownedVariable]
  const url = env[runDatabaseVariable]
  if (name === undefined || name === "" || url === undefined) return []
  try {
    const { rows } = await onDatabase(url, (c) => c.query<{ kind: string; name: string }>(leftoversQuery))
    return rows.map((r) => `${r.kind} ${r.name}`)
  } finally {
    await onDatabase(serverUrl(env), (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  }
}
