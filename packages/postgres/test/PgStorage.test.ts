import { describe, it } from "@effect/vitest"
import { PgStorage } from "@tender/postgres"
import { StorageContract } from "@tender/testing"
import { Effect, Layer } from "effect"
import { client, dropTables, freshPrefix, skipReason, url } from "./database.js"

/** The scratch tables go with the layer: dropped when its scope closes, after every case. */
const scratch = (prefix: string) => Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))

if (skipReason === undefined) {
  // On a host's SqlClient: every statement runs through @effect/sql.
  const prefix = freshPrefix()
  StorageContract.suite("postgres", PgStorage.layer({ tablePrefix: prefix }).pipe(Layer.provideMerge(scratch(prefix)), Layer.provide(client)))
  // On the pool Tender makes: statements run on it directly (internal/direct.ts), under the same contract.
  const own = freshPrefix()
  StorageContract.suite("postgres, on the pool Tender makes", scratch(own).pipe(Layer.provideMerge(PgStorage.layerFromUrl({ url, tablePrefix: own }))))
} else {
  describe("storage contract: postgres", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}
