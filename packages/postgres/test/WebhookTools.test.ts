/**
 * The Events API and the webhook tools on PostgreSQL: the cases of
 * packages/http/test/webhookToolsSuite.ts, each on tables of its own.
 */
import { PgStorage } from "@tender/postgres"
import { Effect } from "effect"
import { afterAll, describe, it } from "vitest"
import { webhookToolsSuite } from "../../http/test/webhookToolsSuite.js"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"

if (skipReason !== undefined) {
  describe("events and webhook tools: PostgreSQL", () => it.skip(`skipped: ${skipReason}`, () => {}))
} else {
  const prefixes: Array<string> = []
  // Registered first, so it runs after the suite's own afterAll has closed every pool.
  afterAll(() => runSql(Effect.forEach(prefixes, dropTables)))
  webhookToolsSuite("PostgreSQL", () => {
    const tablePrefix = freshPrefix()
    prefixes.push(tablePrefix)
    return PgStorage.layerFromUrl({ url, tablePrefix, maxConnections: 4 })
  })
}
