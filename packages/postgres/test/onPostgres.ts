/**
 * The PostgreSQL tests' `describe`: where no test database answers (database.ts), one skipped
 * test stands in its place, saying why. And a suite written once for every store, run here on
 * tables of its own per case. Not a test file itself.
 */
import { PgStorage } from "@tender/postgres"
import { Effect } from "effect"
import { afterAll, describe, it } from "vitest"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"

/** `describe(title, tests)` on the test database, or one skipped test naming why it cannot run. */
export const describeOnPostgres = (title: string, tests: () => void): void => {
  if (skipReason !== undefined) describe(title, () => it.skip(`skipped: ${skipReason}`, () => {}))
  else describe(title, tests)
}

/**
 * `suite(name, storage)`, a suite written once for every store, on PostgreSQL: each `storage()`
 * is a pool on tables of its own, dropped after the file. Without a database, one skipped test
 * under `title` (the suite's own describe title) says why.
 */
export const storeSuiteOnPostgres = (
  title: string,
  suite: (name: string, storage: () => ReturnType<typeof PgStorage.layerFromUrl>) => void
): void => {
  if (skipReason !== undefined) {
    describe(title, () => it.skip(`skipped: ${skipReason}`, () => {}))
    return
  }
  const prefixes: Array<string> = []
  // Registered first, so it runs after the suite's own afterAll has closed every pool.
  afterAll(() => runSql(Effect.forEach(prefixes, dropTables)))
  suite("PostgreSQL", () => {
    const tablePrefix = freshPrefix()
    prefixes.push(tablePrefix)
    return PgStorage.layerFromUrl({ url, tablePrefix, maxConnections: 4 })
  })
}
