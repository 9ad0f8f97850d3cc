/**
 * D12 on PostgreSQL: the model-based property test of packages/core/test/ledgerModel.ts, each
 * run on tables of its own.
 */
import { PgStorage } from "@tender/postgres"
import { Effect } from "effect"
import { afterAll, it } from "vitest"
import { ledgerProperty } from "../../core/test/ledgerModel.js"
import { dropTables, freshPrefix, runSql, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefixes: Array<string> = []
afterAll(() => runSql(Effect.forEach(prefixes, dropTables)))

describeOnPostgres("D12 the books on PostgreSQL", () => {
  it(
    "D12 random sequences of payments, refunds, top-ups, payouts, cancels, failures, adjustments and time keep the books (model-based, PostgreSQL)",
    async () => {
      await ledgerProperty(() => {
        const tablePrefix = freshPrefix()
        prefixes.push(tablePrefix)
        return PgStorage.layerFromUrl({ url, tablePrefix, maxConnections: 3 })
      }, { runs: 6, maxCommands: 10 })
    },
    300_000
  )
})
