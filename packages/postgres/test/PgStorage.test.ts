import { describe, it } from "@effect/vitest"
import { PgStorage } from "@tender/postgres"
import { StorageContract } from "@tender/testing"
import { Layer } from "effect"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, runSql, skipReason } from "./database.js"

if (skipReason === undefined) {
  const prefix = freshPrefix()
  afterAll(() => runSql(dropTables(prefix)))
  StorageContract.suite("postgres", PgStorage.layer({ tablePrefix: prefix }).pipe(Layer.provide(client)))
} else {
  describe("storage contract: postgres", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}
