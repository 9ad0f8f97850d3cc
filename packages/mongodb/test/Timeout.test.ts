/**
 * The operation timeout (docs/mongodb.md, "Timeouts"): a MongoDB call that never answers (no
 * majority to acknowledge a write, a frozen server) fails as `StorageUnavailable` (503) once the
 * bound is up, even in an uninterruptible region as a request's storage steps run, instead of
 * holding the request or worker for ever. A short configured bound: no real 10 s wait.
 */
import { assert, describe, it } from "@effect/vitest"
import { PaymentIntent } from "@tender/core"
import { Effect, Exit } from "effect"
import type { MongoClient } from "mongodb"
import { MongoStorage } from "../src/index.js"
import * as Timeout from "../src/internal/timeout.js"

/** A client whose deployment says it is a replica set and whose every other call never answers. */
const silentClient = () => {
  const never = () => new Promise<never>(() => {})
  const collection = {
    collectionName: "c",
    findOne: never,
    find: () => ({ toArray: never }),
    aggregate: () => ({ toArray: never }),
    findOneAndUpdate: never,
    updateOne: never,
    insertOne: never
  }
  return {
    db: () => ({ command: async () => ({ setName: "rs0", isWritablePrimary: true }), collection: () => collection, watch: never })
  } as unknown as MongoClient
}

describe("MongoDB: every call bounded (docs/mongodb.md, Timeouts)", () => {
  it.live("a read that never answers -> StorageUnavailable once the operation timeout is up, even uninterruptible", () =>
    Effect.gen(function*() {
      const { merchants, storage } = yield* MongoStorage.make(silentClient(), { database: "d", operationTimeout: "50 millis", directoryCache: false })
      const read = yield* Effect.exit(Effect.uninterruptible(storage.find(PaymentIntent.table, "dord_x")))
      assert.isTrue(Exit.isFailure(read))
      if (Exit.isFailure(read)) assert.include(JSON.stringify(read.cause), "StorageUnavailable")
      const key = yield* Effect.exit(merchants.findCredentials("pk_test_x"))
      assert.isTrue(Exit.isFailure(key))
      if (Exit.isFailure(key)) assert.include(JSON.stringify(key.cause), "StorageUnavailable")
    }).pipe(Effect.scoped))

  it("the bound defaults to 10 s and is refused outside 1 ms to 2^31 - 1 ms", () => {
    assert.strictEqual(Timeout.millisOf(undefined), 10_000)
    assert.throws(() => Timeout.millisOf(0), /operationTimeout/)
    assert.throws(() => Timeout.millisOf(2 ** 31), /operationTimeout/)
  })
})
