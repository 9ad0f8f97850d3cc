/**
 * The test database the repository's PostgreSQL tests and benchmarks share, and table prefixes
 * of their own on it. Nothing here opens a connection.
 */

/**
 * The test database: the test run's own (`TENDER_TEST_DATABASE_URL`, set by vitest.config.ts,
 * runDatabase.ts), else DATABASE_URL, else the local server at 127.0.0.1:5432 (trust auth,
 * database `test`), as the benchmarks use it.
 */
export const testDatabaseUrl: string = process.env["TENDER_TEST_DATABASE_URL"] || process.env["DATABASE_URL"] ||
  "postgres://postgres@127.0.0.1:5432/test"

/** A table prefix of this run's own, so no two runs share tables. */
export const freshTablePrefix = (): string => `t${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}_`

/** The part of a `pg.Pool` `dropPrefixed` uses. */
export interface Queryable {
  query<R extends Record<string, unknown> = any>(text: string, values?: ReadonlyArray<unknown>): Promise<{ readonly rows: Array<R> }>
}

/** Drop every table and function Tender made under `prefix` (the file's `afterAll`). */
export const dropPrefixed = async (pool: Queryable, prefix: string): Promise<void> => {
  const { rows } = await pool.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, $1)",
    [prefix]
  )
  for (const { name } of rows) await pool.query(`DROP TABLE IF EXISTS "${name}"`)
  await pool.query(`DROP FUNCTION IF EXISTS "${prefix}guard_failed"(text)`)
  await pool.query(`DROP FUNCTION IF EXISTS "${prefix}directory_changed"()`)
  await pool.query(`DROP FUNCTION IF EXISTS "${prefix}provider_accounts_kept"()`)
}
