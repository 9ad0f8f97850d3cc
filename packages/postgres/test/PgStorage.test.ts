import { describe, it } from "@effect/vitest"
import { PgStorage } from "@tender/postgres"
import { StorageContract } from "@tender/testing"
import { Layer } from "effect"
import { client, skipReason } from "./database.js"

if (skipReason === undefined) {
  // A fixed prefix: the suite's cases make their own data, and a second run checks that migrating again is a no-op.
  StorageContract.suite("postgres", PgStorage.layer({ tablePrefix: "tender_contract_" }).pipe(Layer.provide(client)))
} else {
  describe("storage contract: postgres", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}
