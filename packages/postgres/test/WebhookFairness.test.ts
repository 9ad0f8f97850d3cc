/**
 * Webhook fairness and the resend bound on PostgreSQL, with real concurrency on a pool: the cases
 * of packages/http/test/webhookFairnessSuite.ts, each on tables of its own.
 */
import { PgStorage } from "@tender/postgres"
import { Effect } from "effect"
import { afterAll, describe, it } from "vitest"
import { webhookFairnessSuite } from "../../http/test/webhookFairnessSuite.js"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"

if (skipReason !== undefined) {
  describe("webhook fairness and the resend bound: PostgreSQL", () => it.skip(`skipped: ${skipReason}`, () => {}))
} else {
  const prefixes: Array<string> = []
  // Registered first, so it runs after the suite's own afterAll has closed every pool.
  afterAll(() => runSql(Effect.forEach(prefixes, dropTables)))
  webhookFairnessSuite("PostgreSQL", () => {
    const tablePrefix = freshPrefix()
    prefixes.push(tablePrefix)
    return PgStorage.layerFromUrl({ url, tablePrefix, maxConnections: 4 })
  })
}
