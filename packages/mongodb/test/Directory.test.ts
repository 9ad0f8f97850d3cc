/**
 * The directory cache's change signal on MongoDB (docs/mongodb.md, "Merchants"), by its pure
 * parts: which change events clear the cache, and the listener's wiring to a change stream: a
 * stand-in that emits only what the driver's `ChangeStream` emits to its listeners (its own
 * constants: `resumeTokenChanged`, `change`, `error`, `close`, `end`; never the cursor's `init`),
 * and the driver's own `ChangeStream` on a client that never connects, its cursor's events
 * emitted as the driver's cursor emits them. The stream against a real replica set runs with the
 * contract suite when MONGODB_URL is set.
 */
import { assert, describe, it } from "@effect/vitest"
import { DirectoryCache, Merchants } from "@tender/core"
import { Duration, Effect, Option } from "effect"
import type { Document } from "mongodb"
import { ChangeStream, type Db, MongoClient } from "mongodb"
import { EventEmitter } from "node:events"
import * as Directory from "../src/internal/directory.js"

/**
 * What a `ChangeStream` emits to its listeners (mongodb 7.9, `change_stream.js`): `change` and
 * `error` of its own, and `resumeTokenChanged`, `end` and `close` forwarded from its cursor. The
 * cursor's `init`, `more` and `response` stay on the cursor.
 */
const streamEvents: ReadonlySet<string | symbol> = new Set([
  ChangeStream.CHANGE,
  ChangeStream.ERROR,
  ChangeStream.RESUME_TOKEN_CHANGED,
  ChangeStream.END,
  ChangeStream.CLOSE
])

/** A new stream's first answer, as the cursor reads it: an empty batch and its resume token. */
const resumeToken = { _data: "8263A1B2C3000000012B0229296E04" }

class FakeStream extends EventEmitter {
  override emit(event: string | symbol, ...args: Array<unknown>): boolean {
    if (!streamEvents.has(event)) throw new Error(`a ChangeStream never emits ${String(event)} to its listeners`)
    return super.emit(event, ...args)
  }
  closed = false
  close() {
    this.closed = true
    return Promise.resolve()
  }
}

const fakeDb = () => {
  const streams: Array<FakeStream> = []
  const pipelines: Array<unknown> = []
  const db = {
    watch: (pipeline: unknown) => {
      pipelines.push(pipeline)
      const s = new FakeStream()
      streams.push(s)
      return s
    }
  } as unknown as Db
  return { db, streams, pipelines }
}

const credentials = Option.some({
  apiKey: { id: "key_1", merchantId: "mch_a", environment: "test" as const, publicKey: "pk_test_1", secretHash: "x", revokedAt: null, createdAt: 0 },
  merchant: { id: "mch_a", name: "A", allowedCheckoutModes: ["merchant" as const], routes: [] }
})

describe("caches: the MongoDB change signal", () => {
  it("caches: writes, deletes, drops, renames and unknown events clear the cache; index and create events do not", () => {
    for (const operationType of ["insert", "update", "replace", "delete", "drop", "rename", "dropDatabase", "invalidate", "shardCollection"] as const) {
      assert.isTrue(Directory.invalidates({ operationType }), operationType)
    }
    for (const operationType of ["createIndexes", "dropIndexes", "create"] as const) {
      assert.isFalse(Directory.invalidates({ operationType }), operationType)
    }
    assert.isTrue(Directory.ends({ operationType: "invalidate" }))
    assert.isFalse(Directory.ends({ operationType: "update" }))
  })

  it("caches: the stream watches only the directory's collections", () => {
    assert.deepStrictEqual(Directory.pipeline(["t_merchants", "t_api_keys", "t_route_availability"]), [
      { $match: { "ns.coll": { $in: ["t_merchants", "t_api_keys", "t_route_availability"] } } }
    ])
  })

  it("caches: an event names the collection it changed without the prefix, and core's partOf decides: the endpoints alone for theirs, everything otherwise", () => {
    assert.strictEqual(Directory.changed({ ns: { db: "d", coll: "t_webhook_endpoints" } }, "t_"), "webhook_endpoints")
    assert.strictEqual(DirectoryCache.partOf(Directory.changed({ ns: { db: "d", coll: "t_webhook_endpoints" } }, "t_")), "endpoints")
    assert.strictEqual(Directory.changed({ ns: { db: "d", coll: "t_api_keys" } }, "t_"), "api_keys")
    assert.isUndefined(DirectoryCache.partOf("api_keys"))
    assert.isUndefined(Directory.changed({ ns: { db: "d" } }, "t_"))
    assert.isUndefined(Directory.changed({}, "t_"))
    assert.isUndefined(Directory.changed({ ns: { db: "d", coll: "other_webhook_endpoints" } }, "t_"))
  })

  it.live("caches: through the stream, an endpoint change keeps the credentials and drops the endpoints", () =>
    Effect.gen(function*() {
      const { db, pipelines, streams } = fakeDb()
      const cache = DirectoryCache.make()
      yield* Directory.listen(db, "t_", cache)
      yield* Effect.yieldNow()
      assert.deepStrictEqual(pipelines[0], Directory.pipeline(["t_merchants", "t_api_keys", "t_route_availability", "t_webhook_endpoints"]))
      streams[0]!.emit(ChangeStream.RESUME_TOKEN_CHANGED, resumeToken)
      let reads = 0
      let endpointReads = 0
      const load = Effect.sync(() => (reads++, credentials))
      const endpoints = Effect.sync(() => (endpointReads++, []))
      yield* cache.credentials("pk_test_1", load)
      yield* cache.endpoints("mch_a", endpoints)
      streams[0]!.emit("change", { operationType: "update", ns: { db: "d", coll: "t_webhook_endpoints" } })
      yield* cache.credentials("pk_test_1", load)
      yield* cache.endpoints("mch_a", endpoints)
      assert.deepStrictEqual([reads, endpointReads], [1, 2])
      streams[0]!.emit("change", { operationType: "update", ns: { db: "d", coll: "t_merchants" } })
      yield* cache.credentials("pk_test_1", load)
      yield* cache.endpoints("mch_a", endpoints)
      assert.deepStrictEqual([reads, endpointReads], [2, 3])
    }).pipe(Effect.scoped))

  it.live("caches: served once the stream is open (its first resume token), cleared on a change, dropped on an error and served again once a new stream is up", () =>
    Effect.gen(function*() {
      const { db, streams } = fakeDb()
      const cache = DirectoryCache.make()
      let reads = 0
      const load = Effect.sync(() => (reads++, credentials))
      yield* Directory.listen(db, "t_", cache)
      yield* Effect.yieldNow()
      assert.strictEqual(streams.length, 1)
      yield* cache.credentials("pk_test_1", load)
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 2, "not open yet: the store is read")
      streams[0]!.emit(ChangeStream.RESUME_TOKEN_CHANGED, resumeToken)
      yield* cache.credentials("pk_test_1", load)
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 3)
      streams[0]!.emit("change", { operationType: "update" })
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 4, "a change cleared it")
      streams[0]!.emit("error", new Error("network"))
      assert.isTrue(streams[0]!.closed)
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 5, "lost: the store is read")
      while (streams.length < 2) yield* Effect.sleep(Duration.millis(10))
      streams[1]!.emit(ChangeStream.RESUME_TOKEN_CHANGED, resumeToken)
      yield* cache.credentials("pk_test_1", load)
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 6)
      // An invalidate event (the collection dropped) ends the stream: a new one is opened.
      streams[1]!.emit("change", { operationType: "invalidate" })
      assert.isTrue(streams[1]!.closed)
      while (streams.length < 3) yield* Effect.sleep(Duration.millis(10))
    }).pipe(Effect.scoped))

  it.live("caches: on the driver's own ChangeStream, the cache switches on when its cursor's resume token comes, and its cursor's init alone never switches it on", () =>
    Effect.gen(function*() {
      // A client that never connects: the stream's cursor waits for a server (60 s) the test never gives it.
      const client = new MongoClient("mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=60000&directConnection=true")
      yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
      const opened: Array<ChangeStream> = []
      const db = client.db("tender_directory_test")
      const watching = { watch: (pipeline: Array<Document>) => (opened.push(db.watch(pipeline)), opened[opened.length - 1]!) } as unknown as Db
      const cache = DirectoryCache.make()
      let reads = 0
      const load = Effect.sync(() => (reads++, credentials))
      yield* Directory.listen(watching, "t_", cache)
      yield* Effect.yieldNow()
      const cursor = (opened[0] as unknown as { cursor: EventEmitter }).cursor
      // As the driver's cursor emits on its aggregate's answer (change_stream_cursor.js, _initialize).
      cursor.emit("init", { cursor: { firstBatch: [], postBatchResumeToken: resumeToken } })
      yield* cache.credentials("pk_test_1", load)
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 2, "the cursor's init is not forwarded: still reading the store")
      cursor.emit(ChangeStream.RESUME_TOKEN_CHANGED, resumeToken)
      yield* cache.credentials("pk_test_1", load)
      yield* cache.credentials("pk_test_1", load)
      assert.strictEqual(reads, 3, "the resume token is forwarded: cached from now on")
    }).pipe(Effect.scoped))

  it.effect("caches: DirectoryCache.cached clears the cache on every write of the directory", () =>
    Effect.gen(function*() {
      const cache = DirectoryCache.make()
      cache.connected(true)
      const merchants = DirectoryCache.cached(
        yield* Effect.provide(Merchants.Merchants, Merchants.layerMemory()),
        cache
      )
      yield* merchants.putMerchant(Option.getOrThrow(credentials).merchant)
      yield* merchants.putApiKey(Option.getOrThrow(credentials).apiKey)
      yield* merchants.findCredentials("pk_test_1")
      assert.strictEqual(cache.size(), 1)
      yield* merchants.revokeApiKey("key_1", 5)
      assert.strictEqual(cache.size(), 0)
      assert.strictEqual(Option.getOrThrow(yield* merchants.findCredentials("pk_test_1")).apiKey.revokedAt, 5)
      yield* merchants.setAvailability({ kind: "route", id: "rt_1" }, false)
      assert.strictEqual(cache.size(), 0)
      assert.strictEqual((yield* merchants.findAvailability).routes.get("rt_1"), false)
    }))
})
