import { assert, describe, layer } from "@effect/vitest"
import { PaymentIntent, Storage, Task } from "@tender/core"
import { StorageContract } from "@tender/testing"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { MongoStorage } from "../src/index.js"
import { type CollectionPrefix, collections } from "../src/internal/collections.js"
import { indexSpecs } from "../src/internal/indexes.js"
import { freshDatabase, scratchClient, withServer } from "./server.js"

withServer("storage contract: mongodb", (url) => {
  const database = freshDatabase()
  // The suite drives time from 2026-11-22 onwards, whatever the wall clock says: the server's TTL
  // monitor would delete its keys under it (they expire by the suite's clock, not the server's).
  StorageContract.suite(
    "mongodb",
    MongoStorage.layerClient({ database, expireKeys: false }).pipe(Layer.provideMerge(scratchClient(url, database)))
  )

  // What the contract cannot see: the indexes on the server, setup under concurrent starts, a
  // replacement with `$` keys, and change-stream wake-ups.
  const own = freshDatabase()
  const t0 = Date.UTC(2026, 10, 22)
  describe("mongodb: on the server", () => {
    layer(
      MongoStorage.layerClient({ database: own, collectionPrefix: "own_" }).pipe(Layer.provideMerge(scratchClient(url, own))),
      { excludeTestServices: true, timeout: 60_000 }
    )((it) => {
      it.effect("setup creates exactly the specified indexes, and running it again, concurrently, changes nothing", () =>
        Effect.gen(function*() {
          const client = yield* MongoStorage.Client
          const options = { database: own, collectionPrefix: "own_" }
          yield* Effect.all(Array.from({ length: 4 }, () => MongoStorage.setup(client, options)), { concurrency: "unbounded" })
          const specs = indexSpecs(collections("own_" as CollectionPrefix), { expireKeys: true })
          for (const spec of specs) {
            const found = yield* Effect.promise(() => client.db(own).collection(spec.collection).indexes())
            const index = found.find((i) => i.name === spec.name)
            assert.isDefined(index, `${spec.collection}.${spec.name}`)
            assert.deepStrictEqual(index!.key, spec.key)
            assert.strictEqual(index!.unique ?? false, spec.unique ?? false)
            assert.deepStrictEqual(index!.partialFilterExpression, spec.partialFilterExpression)
            assert.strictEqual(index!.expireAfterSeconds, spec.expireAfterSeconds)
          }
        }))

      it.effect("metadata keys starting with $ or holding a dot survive an insert and a versioned update", () =>
        Effect.gen(function*() {
          const storage = yield* Storage.Storage
          const scope = { merchantId: `mch_${Date.now()}`, environment: "test" } as const
          const record = PaymentIntent.PaymentIntentRecord.make({
            id: `dord_${Date.now()}`,
            ...scope,
            amount: "999999999999999999",
            currency: "THB",
            country: "TH",
            checkoutMode: "merchant",
            status: "requires_action",
            metadata: { "$set": "x", "a.b": "y" },
            customer: {},
            fingerprint: "f",
            createdAt: t0,
            updatedAt: t0,
            version: 1
          })
          yield* storage.commit([Storage.Write.insert(PaymentIntent.table, record)])
          const updated = { ...record, metadata: { "$inc": "z", "c.d": "w" }, version: 2 }
          yield* storage.commit([Storage.Write.update(PaymentIntent.table, updated, 1)])
          assert.deepStrictEqual(yield* storage.get(PaymentIntent.table, scope, record.id), Option.some(updated))
        }))

      it.effect("a task written in a commit wakes idle workers through the change stream", () =>
        Effect.gen(function*() {
          const tasks = yield* Task.Tasks
          const storage = yield* Storage.Storage
          const woken = yield* Effect.fork(Stream.runHead(tasks.wakeups))
          // The change stream opens asynchronously: write until the wake-up arrives.
          const task = (n: number) =>
            Task.TaskRecord.make({
              id: `task_${Date.now()}_${n}`,
              merchantId: "mch_w",
              environment: "test",
              kind: "payment_intent.expire",
              resourceId: "dord_w",
              status: "done",
              dueAt: t0,
              attempts: 0,
              createdAt: t0,
              updatedAt: t0,
              version: 1
            })
          for (let n = 0; n < 50; n++) {
            yield* storage.commit([Storage.Write.insert(Task.table, task(n))])
            const done = yield* Fiber.poll(woken)
            if (Option.isSome(done)) return
            yield* Effect.sleep("100 millis")
          }
          assert.isTrue(Option.isSome(yield* Fiber.poll(woken)), "no wake-up within 5 s")
        }))
    })
  })
})
