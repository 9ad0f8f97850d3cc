/**
 * Replays from the process (core `ReplayCache`; docs/performance.md, "PostgreSQL" under "What
 * we learned"): once the adapter has read a key completed, the next request with that key is
 * answered without a statement, exactly as the store would answer it; near its expiry, and
 * after, the store decides again. Every statement the driver sends is counted.
 */
import { assert, layer } from "@effect/vitest"
import { Storage } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Effect, Layer } from "effect"
import Pg from "pg"
import { vi } from "vitest"
import { client, dropTables, freshPrefix } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const day = 24 * 60 * 60 * 1000
const t0 = Date.UTC(2026, 10, 26)
let n = 0
const claim = (key: string, now: number, fingerprint = "a".repeat(64)): Storage.IdempotencyClaim => ({
  apiKeyId: "key_replays",
  key,
  fingerprint,
  expiresAt: now + day,
  lockedUntil: now + 60_000
})
const response: Storage.StoredResponse = { status: 201, body: `{"id":"dord_replayed", "amount":"1"}`, requestId: "req_replays" }

/** `effect`'s outcome and the number of statements the driver sent while it ran. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const query = Pg.Client.prototype.query
    let statements = 0
    const spy = vi.spyOn(Pg.Client.prototype, "query").mockImplementation(function(this: Pg.Client, ...args: Array<any>) {
      statements++
      return Reflect.apply(query, this, args)
    })
    const result = yield* Effect.ensuring(effect, Effect.sync(() => spy.mockRestore()))
    return { result, statements }
  })

const begin = (request: Storage.BeginRequest) => Effect.flatMap(Storage.Storage, (s) => s.begin(request))

/** A key claimed at t0 and completed with `response`. */
const completed = Effect.gen(function*() {
  const key = `replay-${++n}-${Math.random()}`
  assert.strictEqual((yield* begin({ now: t0, idempotency: claim(key, t0) }))._tag, "Proceed")
  const storage = yield* Storage.Storage
  yield* storage.commit([Storage.Write.completeIdempotency({ apiKeyId: "key_replays", key, lockedUntil: t0 + 60_000 }, response)])
  return key
})

const storesOf = (replayCache?: false) => {
  const prefix = freshPrefix()
  const scratch = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))
  // No directory cache: its listening connection's statements are not the begin's.
  return PgStorage.layer({ tablePrefix: prefix, directoryCache: false, ...(replayCache === false ? { replayCache } : {}) }).pipe(
    Layer.provideMerge(scratch),
    Layer.provide(client)
  )
}

describeOnPostgres("replays answered from the process on PostgreSQL", () => {
  layer(storesOf(), { timeout: 60_000 })((it) => {
    it.effect("4.9.3 a replay of a key this process read completed makes no statement and answers the stored response byte for byte", () =>
      Effect.gen(function*() {
        const key = yield* completed
        const first = yield* counted(begin({ now: t0 + 1000, idempotency: claim(key, t0 + 1000) }))
        assert.deepStrictEqual(first, { result: { _tag: "Replay", response }, statements: 1 }, "the first replay reads the key")
        const again = yield* counted(begin({ now: t0 + 2000, idempotency: claim(key, t0 + 2000) }))
        assert.deepStrictEqual(again, { result: { _tag: "Replay", response }, statements: 0 })
      }))

    it.effect("4.9.5 a different request under a key this process read completed is a conflict without a statement", () =>
      Effect.gen(function*() {
        const key = yield* completed
        yield* begin({ now: t0 + 1000, idempotency: claim(key, t0 + 1000) })
        const other = yield* counted(begin({ now: t0 + 2000, idempotency: claim(key, t0 + 2000, "c".repeat(64)) }))
        assert.deepStrictEqual(other, { result: { _tag: "KeyConflict" }, statements: 0 })
      }))

    it.effect("4.9.4 in its last minute a completed key is read from the store again, and once expired the same key is claimed afresh", () =>
      Effect.gen(function*() {
        const key = yield* completed
        yield* begin({ now: t0 + 1000, idempotency: claim(key, t0 + 1000) })
        const late = t0 + day - 30_000
        const near = yield* counted(begin({ now: late, idempotency: claim(key, late) }))
        assert.deepStrictEqual(near, { result: { _tag: "Replay", response }, statements: 1 })
        const after = t0 + day + 1
        const expired = yield* counted(begin({ now: after, idempotency: claim(key, after, "c".repeat(64)) }))
        assert.strictEqual(expired.result._tag, "Proceed", "4.9.4: after 24 hours the key is new, whatever the request")
        assert.isAbove(expired.statements, 0)
      }))

    it.effect("4.9.6 a key in flight is never answered from the process: every retry asks the store", () =>
      Effect.gen(function*() {
        const key = `in-flight-${Math.random()}`
        assert.strictEqual((yield* begin({ now: t0, idempotency: claim(key, t0) }))._tag, "Proceed")
        for (let i = 1; i <= 2; i++) {
          const retry = yield* counted(begin({ now: t0 + i, idempotency: claim(key, t0 + i) }))
          assert.deepStrictEqual(retry.result, { _tag: "KeyInFlight" })
          assert.isAbove(retry.statements, 0)
        }
      }))
  })

  layer(storesOf(false), { timeout: 60_000 })((it) => {
    it.effect("4.9.3 with replayCache: false every replay reads the store", () =>
      Effect.gen(function*() {
        const key = yield* completed
        for (let i = 1; i <= 2; i++) {
          const replay = yield* counted(begin({ now: t0 + i, idempotency: claim(key, t0 + i) }))
          assert.deepStrictEqual(replay, { result: { _tag: "Replay", response }, statements: 1 })
        }
      }))
  })
})
