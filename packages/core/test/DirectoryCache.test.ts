import { assert, describe, it } from "@effect/vitest"
import { DirectoryCache, MemoryStorage, Merchants, RouteHealth, Storage, WebhookEndpoint } from "@tender/core"
import { Context, Deferred, Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"

const apiKey = (publicKey: string, revokedAt: number | null = null): Merchants.ApiKey => ({
  id: `key_${publicKey}`,
  merchantId: "mch_1",
  environment: "test",
  publicKey,
  secretHash: Merchants.hashSecret("sk_test_x"),
  revokedAt,
  createdAt: 0
})
const merchant: Merchants.Merchant = { id: "mch_1", name: "One", allowedCheckoutModes: ["merchant"], routes: [] }

/** A store read that counts its calls and answers what `answer` holds now. */
const counted = (answer: () => Option.Option<Merchants.Credentials>) => {
  let calls = 0
  return { load: Effect.sync(() => (calls++, answer())), calls: () => calls }
}
const some = (publicKey: string, revokedAt: number | null = null) => Option.some({ apiKey: apiKey(publicKey, revokedAt), merchant })

/** Two reads of `pk_test_a` through `cache`, each loading with `load` when the cache does not answer. */
const readTwice = (cache: ReturnType<typeof DirectoryCache.make>, load: Parameters<ReturnType<typeof DirectoryCache.make>["credentials"]>[1]) =>
  Effect.repeatN(cache.credentials("pk_test_a", load), 1)

/** A cache whose change signal is up: it caches from the first read. */
const connectedCache = (options?: Parameters<typeof DirectoryCache.make>[0]) => {
  const cache = DirectoryCache.make(options)
  cache.connected(true)
  return cache
}

describe("DirectoryCache", () => {
  it.effect("caches: nothing is cached until the change signal is up, then a read is served from the cache", () =>
    Effect.gen(function*() {
      const cache = DirectoryCache.make()
      const store = counted(() => some("pk_test_a"))
      yield* readTwice(cache, store.load)
      assert.strictEqual(store.calls(), 2, "disconnected: every read goes to the store")
      cache.connected(true)
      yield* readTwice(cache, store.load)
      assert.strictEqual(store.calls(), 3)
    }))

  it.effect("caches: a change drops every entry, and losing the signal drops them and stops caching", () =>
    Effect.gen(function*() {
      const cache = connectedCache()
      let revokedAt: number | null = null
      const store = counted(() => some("pk_test_a", revokedAt))
      yield* cache.credentials("pk_test_a", store.load)
      revokedAt = 5
      cache.invalidate()
      const after = yield* cache.credentials("pk_test_a", store.load)
      assert.strictEqual(Option.getOrThrow(after).apiKey.revokedAt, 5)
      cache.connected(false)
      assert.strictEqual(cache.size(), 0)
      yield* readTwice(cache, store.load)
      assert.strictEqual(store.calls(), 4)
    }))

  it.effect("caches: a read that began before a change does not keep what it read", () =>
    Effect.gen(function*() {
      const cache = connectedCache()
      const gate = yield* Deferred.make<void>()
      const stale = Effect.as(Deferred.await(gate), some("pk_test_a"))
      const reading = yield* Effect.fork(cache.credentials("pk_test_a", stale))
      yield* Effect.yieldNow()
      cache.invalidate()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(reading)
      assert.strictEqual(cache.size(), 0)
      const store = counted(() => some("pk_test_a", 7))
      assert.strictEqual(Option.getOrThrow(yield* cache.credentials("pk_test_a", store.load)).apiKey.revokedAt, 7)
    }))

  it.effect("caches: an entry is served no longer than maxAgeMillis, whatever the signal does", () =>
    Effect.gen(function*() {
      const cache = connectedCache({ maxAgeMillis: 1_000 })
      const store = counted(() => some("pk_test_a"))
      yield* cache.credentials("pk_test_a", store.load)
      yield* TestClock.adjust(Duration.millis(999))
      yield* cache.credentials("pk_test_a", store.load)
      assert.strictEqual(store.calls(), 1)
      yield* TestClock.adjust(Duration.millis(1))
      yield* cache.credentials("pk_test_a", store.load)
      assert.strictEqual(store.calls(), 2)
    }))

  it.effect("caches: D2 an unknown key is cached as a known one is, and the cache holds at most maxEntries", () =>
    Effect.gen(function*() {
      const cache = connectedCache({ maxEntries: 3 })
      const known = counted(() => some("pk_test_known"))
      const unknown = counted(() => Option.none())
      for (let i = 0; i < 3; i++) {
        yield* cache.credentials("pk_test_known", known.load)
        yield* cache.credentials("pk_test_unknown", unknown.load)
      }
      assert.strictEqual(known.calls(), 1)
      assert.strictEqual(unknown.calls(), 1)
      // Random keys push out the least recently used, never past the bound.
      for (let i = 0; i < 50; i++) yield* cache.credentials(`pk_test_r${i}`, Effect.succeed(Option.none()))
      assert.strictEqual(cache.size(), 3)
      yield* cache.credentials("pk_test_known", known.load)
      assert.strictEqual(known.calls(), 2)
    }))

  it.live("caches: follow serves only while the signal is up, and opens a new one after a loss", () =>
    Effect.gen(function*() {
      const cache = DirectoryCache.make()
      const opened: Array<DirectoryCache.Signal> = []
      let closed = 0
      yield* DirectoryCache.follow(cache, "test signal", (signal) => {
        opened.push(signal)
        return () => void closed++
      }, 20)
      yield* Effect.yieldNow()
      assert.strictEqual(opened.length, 1)
      const store = counted(() => some("pk_test_a"))
      yield* readTwice(cache, store.load)
      assert.strictEqual(store.calls(), 2, "not up yet")
      opened[0]!.up()
      yield* readTwice(cache, store.load)
      assert.strictEqual(store.calls(), 3)
      opened[0]!.lost(new Error("connection reset"))
      assert.strictEqual(closed, 1)
      yield* cache.credentials("pk_test_a", store.load)
      assert.strictEqual(store.calls(), 4, "lost: the store is read")
      // The up of a closed signal is ignored; a new one is opened after the retry delay.
      opened[0]!.up()
      yield* cache.credentials("pk_test_a", store.load)
      assert.strictEqual(store.calls(), 5)
      while (opened.length < 2) yield* Effect.sleep(Duration.millis(10))
      opened[1]!.up()
      opened[1]!.change()
      yield* readTwice(cache, store.load)
      assert.strictEqual(store.calls(), 6)
    }).pipe(Effect.scoped))
  it.live("caches: a signal names the table that changed and core decides what it drops: the endpoints alone for theirs, everything for any other", () =>
    Effect.gen(function*() {
      const cache = DirectoryCache.make()
      const opened: Array<DirectoryCache.Signal> = []
      yield* DirectoryCache.follow(cache, "test signal", (signal) => (opened.push(signal), () => {}))
      yield* Effect.yieldNow()
      opened[0]!.up()
      const keys = counted(() => some("pk_test_a"))
      let endpointReads = 0
      const endpoints = Effect.sync(() => (endpointReads++, []))
      yield* cache.credentials("pk_test_a", keys.load)
      yield* cache.endpoints("mch_1", endpoints)
      // Every table the cache reads is watched, the endpoints' among them.
      assert.includeMembers([...DirectoryCache.watched], ["merchants", "api_keys", "route_availability", WebhookEndpoint.table.name])
      opened[0]!.change(WebhookEndpoint.table.name)
      yield* cache.credentials("pk_test_a", keys.load)
      yield* cache.endpoints("mch_1", endpoints)
      assert.deepStrictEqual([keys.calls(), endpointReads], [1, 2], "an endpoint change keeps the credentials")
      opened[0]!.change("api_keys")
      yield* cache.credentials("pk_test_a", keys.load)
      yield* cache.endpoints("mch_1", endpoints)
      assert.deepStrictEqual([keys.calls(), endpointReads], [2, 3], "a key change drops everything")
    }).pipe(Effect.scoped))
})

/** An endpoint of mch_1 in test. */
const endpoint = (id: string, status: WebhookEndpoint.WebhookEndpointRecord["status"], version = 1): WebhookEndpoint.WebhookEndpointRecord => ({
  id,
  merchantId: "mch_1",
  environment: "test",
  url: "https://example.com/hook",
  description: null,
  enabledEvents: ["*"],
  secrets: [],
  status,
  failingSince: null,
  resendWindowStartedAt: null,
  resendsInWindow: null,
  createdAt: 1,
  updatedAt: 1,
  version
})
const scope = { merchantId: "mch_1", environment: "test" } as const

/** The in-memory store behind `cachedStorage`, counting its reads of the endpoints table. */
const countedStorage = (cache: DirectoryCache.DirectoryCache) => {
  const store = MemoryStorage.make()
  let reads = 0
  const counting = Storage.Storage.of({
    ...store,
    list: (table, query) => Effect.suspend(() => (table.name === WebhookEndpoint.table.name && reads++, store.list(table, query)))
  })
  const storage = DirectoryCache.cachedStorage(counting, cache)
  const subscribed = Effect.map(
    Effect.provideService(WebhookEndpoint.subscribed(scope), Storage.Storage, storage),
    (wants) => wants("payment_intent.created").map((e) => e.id)
  )
  return { storage, subscribed, reads: () => reads }
}

describe("DirectoryCache.cachedStorage (the create's webhook endpoints)", () => {
  it.effect("caches: a merchant's enabled endpoints are read once, and every commit writing an endpoint (insert, update: disable, delete) clears them at once", () =>
    Effect.gen(function*() {
      const cache = connectedCache()
      const { reads, storage, subscribed } = countedStorage(cache)
      assert.deepStrictEqual(yield* subscribed, [])
      yield* storage.commit([Storage.Write.insert(WebhookEndpoint.table, endpoint("we_1", "enabled"))])
      assert.deepStrictEqual(yield* subscribed, ["we_1"], "a new endpoint is seen by the next create")
      assert.deepStrictEqual(yield* subscribed, ["we_1"])
      assert.strictEqual(reads(), 2, "the second read was the cache's")
      yield* storage.commit([Storage.Write.update(WebhookEndpoint.table, endpoint("we_1", "disabled", 2), 1)])
      assert.deepStrictEqual(yield* subscribed, [], "disabled: no deliveries from the next create")
      yield* storage.commit([Storage.Write.update(WebhookEndpoint.table, endpoint("we_1", "enabled", 3), 2)])
      assert.deepStrictEqual(yield* subscribed, ["we_1"])
      yield* storage.commit([Storage.Write.update(WebhookEndpoint.table, endpoint("we_1", "deleted", 4), 3)])
      assert.deepStrictEqual(yield* subscribed, [])
      assert.strictEqual(reads(), 5)
    }))

  it.effect("caches: a hit does not make the store's read at all (PostgreSQL builds a list statement when its effect is made)", () =>
    Effect.gen(function*() {
      const cache = connectedCache()
      const store = MemoryStorage.make()
      let made = 0
      const making = Storage.Storage.of({ ...store, list: (table, query) => (made++, store.list(table, query)) })
      const storage = DirectoryCache.cachedStorage(making, cache)
      const subscribed = Effect.provideService(WebhookEndpoint.subscribed(scope), Storage.Storage, storage)
      yield* subscribed
      yield* subscribed
      yield* subscribed
      assert.strictEqual(made, 1, "the store's list effect was made for the miss only")
    }))

  it.effect("caches: a failed commit writing an endpoint clears them too, and a commit writing none leaves them", () =>
    Effect.gen(function*() {
      const cache = connectedCache()
      const { reads, storage, subscribed } = countedStorage(cache)
      yield* storage.commit([Storage.Write.insert(WebhookEndpoint.table, endpoint("we_1", "enabled"))])
      yield* subscribed
      // A stale version: the commit fails and writes nothing; clearing is only more cautious.
      const stale = yield* Effect.either(storage.commit([Storage.Write.update(WebhookEndpoint.table, endpoint("we_1", "disabled", 9), 7)]))
      assert.isTrue(stale._tag === "Left")
      yield* subscribed
      assert.strictEqual(reads(), 2)
      yield* storage.commit([])
      yield* subscribed
      assert.strictEqual(reads(), 2)
    }))

  it.effect("caches: only the create's query is cached (the endpoints list pages and status filters read the store)", () =>
    Effect.gen(function*() {
      const cache = connectedCache()
      const { reads, storage } = countedStorage(cache)
      const queries = [
        { ...scope, where: { status: ["enabled", "disabled"] }, limit: 10 },
        { ...scope, where: { status: "enabled", url: "https://example.com/hook" }, limit: 100 },
        { ...scope, where: { status: "enabled" }, createdAfter: 0, limit: 100 },
        { ...scope, limit: 100 }
      ] as const
      for (const query of queries) {
        yield* storage.list(WebhookEndpoint.table, query as Storage.ListQuery<WebhookEndpoint.WebhookEndpointRecord>)
        yield* storage.list(WebhookEndpoint.table, query as Storage.ListQuery<WebhookEndpoint.WebhookEndpointRecord>)
      }
      assert.strictEqual(reads(), 8)
    }))

  it.effect("caches: a change to the endpoints leaves credentials cached; a change to the directory drops the endpoints too; maxAgeMillis bounds them", () =>
    Effect.gen(function*() {
      const cache = connectedCache({ maxAgeMillis: 1_000 })
      const { reads, subscribed } = countedStorage(cache)
      const store = counted(() => some("pk_test_a"))
      yield* cache.credentials("pk_test_a", store.load)
      yield* subscribed
      cache.invalidate("endpoints")
      yield* cache.credentials("pk_test_a", store.load)
      yield* subscribed
      assert.deepStrictEqual([store.calls(), reads()], [1, 2])
      cache.invalidate()
      yield* subscribed
      assert.strictEqual(reads(), 3)
      yield* TestClock.adjust(Duration.millis(999))
      yield* subscribed
      assert.strictEqual(reads(), 3)
      yield* TestClock.adjust(Duration.millis(1))
      yield* subscribed
      assert.strictEqual(reads(), 4, "past maxAgeMillis: read again")
      cache.connected(false)
      yield* subscribed
      yield* subscribed
      assert.strictEqual(reads(), 6, "no signal: every read goes to the store")
    }))
})

describe("RouteHealth.layer", () => {
  const route = { id: "rt_pp", provider: "simulator" }
  // Two instances on one store: what two processes on one database are.
  const twoOnOneStore = Effect.gen(function*() {
    const store = yield* Layer.build(Merchants.layerMemory())
    const one = yield* Layer.build(RouteHealth.layer({ routesDown: ["rt_seeded_down"] })).pipe(Effect.provide(store))
    const two = yield* Layer.build(RouteHealth.layer({ routesDown: ["rt_seeded_down"] })).pipe(Effect.provide(store))
    return { a: Context.get(one, RouteHealth.RouteHealth), b: Context.get(two, RouteHealth.RouteHealth) }
  })

  it.scoped("route availability: a route or provider taken out of service through one instance is out of service in the other", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoOnOneStore
      assert.isTrue(yield* b.isHealthy(route))
      yield* a.setRouteAvailable(route.id, false)
      assert.isFalse(yield* b.isHealthy(route))
      yield* a.setRouteAvailable(route.id, true)
      assert.isTrue(yield* b.isHealthy(route))
      yield* b.setProviderAvailable("simulator", false)
      assert.isFalse(yield* a.isHealthy(route))
      yield* b.setProviderAvailable("simulator", true)
      assert.isTrue(yield* a.isHealthy(route))
    }))

  it.scoped("route availability: the seed's healthy: false holds until the host's word, which wins in every instance", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoOnOneStore
      const seeded = { id: "rt_seeded_down", provider: "simulator" }
      assert.isFalse(yield* a.isHealthy(seeded))
      yield* a.setRouteAvailable(seeded.id, true)
      assert.isTrue(yield* b.isHealthy(seeded))
    }))

  it.scoped("route availability: the failure breaker stays per instance", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoOnOneStore
      for (let i = 0; i < 3; i++) yield* a.recordFailure(route)
      assert.isFalse(yield* a.isHealthy(route))
      assert.isTrue(yield* b.isHealthy(route))
    }))
})

describe("DirectoryCache.wire (what every shared store wires)", () => {
  const services = () => ({ storage: MemoryStorage.make(), merchants: Merchants.Merchants.of({} as Merchants.Merchants["Type"]) })

  it.effect("caches: without a change signal, or with the cache turned off, the store's services are returned as they are and nothing is listened to", () =>
    Effect.gen(function*() {
      const given = services()
      let listened = 0
      const listen = () => Effect.sync(() => listened++)
      assert.strictEqual(yield* DirectoryCache.wire(given, undefined, undefined), given)
      assert.strictEqual(yield* DirectoryCache.wire(given, false, listen), given)
      assert.strictEqual(listened, 0)
    }))

  it.effect("caches: with a signal, the cache it feeds serves the credentials once it is up, and a write through the wired merchants clears it", () =>
    Effect.gen(function*() {
      let reads = 0
      const given = {
        storage: MemoryStorage.make(),
        merchants: Merchants.Merchants.of({
          ...({} as Merchants.Merchants["Type"]),
          findCredentials: () => Effect.sync(() => (reads++, some("pk_test_a"))),
          putMerchant: () => Effect.void
        })
      }
      let fed: DirectoryCache.DirectoryCache | undefined
      const wired = yield* DirectoryCache.wire(given, { maxAgeMillis: 60_000 }, (cache) => Effect.sync(() => (fed = cache)))
      assert.notStrictEqual(wired.merchants, given.merchants)
      fed!.connected(true)
      yield* wired.merchants.findCredentials("pk_test_a")
      yield* wired.merchants.findCredentials("pk_test_a")
      assert.strictEqual(reads, 1, "the second read was the cache's")
      yield* wired.merchants.putMerchant(merchant)
      yield* wired.merchants.findCredentials("pk_test_a")
      assert.strictEqual(reads, 2)
    }))
})
