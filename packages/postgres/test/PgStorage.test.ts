import { describe, it } from "@effect/vitest"
import { PgStorage } from "@tender/postgres"
import { StorageContract } from "@tender/testing"
import { Effect, Layer } from "effect"
import { client, dropTables, freshPrefix, skipReason } from "./database.js"

if (skipReason === undefined) {
  const prefix = freshPrefix()
  // The scratch tables go with the layer: dropped when its scope closes, after every case.
  const scratch = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))
  StorageContract.suite("postgres", PgStorage.layer({ tablePrefix: prefix }).pipe(Layer.provideMerge(scratch), Layer.provide(client)))
} else {
  describe("storage contract: postgres", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}
