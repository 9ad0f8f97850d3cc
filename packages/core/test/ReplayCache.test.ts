/**
 * The process's completed idempotency keys (core `ReplayCache`): what it answers
 * must be what the store would answer for a completed key (4.9.3 to 4.9.5), and it is bounded.
 * The adapters' use of it is tested on PostgreSQL (packages/postgres/test/Replays.test.ts) and by
 * the storage contract suite, which runs with it on.
 */
import { assert, describe, it } from "@effect/vitest"
import { ReplayCache, type Storage } from "@tender/core"
import { Effect } from "effect"

const t0 = Date.UTC(2026, 10, 26)
const day = 24 * 60 * 60 * 1000
const claim = (key: string, fingerprint = "f".repeat(64), apiKeyId = "key_a"): Storage.IdempotencyClaim => ({
  apiKeyId,
  key,
  fingerprint,
  lockedUntil: t0 + 60_000,
  expiresAt: t0 + day
})
const response = (body = `{"id":"dord_1"}`): Storage.StoredResponse => ({ status: 201, body, requestId: "req_1" })

describe("ReplayCache", () => {
  it("4.9.3 a kept completed key answers the same fingerprint with its stored response", () => {
    const cache = ReplayCache.make()
    assert.isUndefined(cache.answer(claim("k1"), t0), "nothing kept: ask the store")
    cache.keep(claim("k1"), t0 + day, response())
    assert.deepStrictEqual(cache.answer(claim("k1"), t0 + 1000), { _tag: "Replay", response: response() })
  })

  it("4.9.5 a kept completed key answers another fingerprint with a conflict", () => {
    const cache = ReplayCache.make()
    cache.keep(claim("k1"), t0 + day, response())
    assert.deepStrictEqual(cache.answer(claim("k1", "0".repeat(64)), t0 + 1000), { _tag: "KeyConflict" })
  })

  it("4.9.3 keys are scoped to their API key: the same key string under another key pair is not answered", () => {
    const cache = ReplayCache.make()
    cache.keep(claim("k1"), t0 + day, response())
    assert.isUndefined(cache.answer(claim("k1", "f".repeat(64), "key_b"), t0 + 1000))
  })

  it("4.9.4 an entry is not served from its margin before the key expires: the store decides, and the entry is dropped", () => {
    const cache = ReplayCache.make({ marginMillis: 60_000 })
    cache.keep(claim("k1"), t0 + day, response())
    assert.isDefined(cache.answer(claim("k1"), t0 + day - 60_001))
    assert.isUndefined(cache.answer(claim("k1"), t0 + day - 60_000))
    assert.strictEqual(cache.size(), 0)
    // Nor after expiry, whatever the margin.
    const none = ReplayCache.make({ marginMillis: 0 })
    none.keep(claim("k2"), t0 + day, response())
    assert.isUndefined(none.answer(claim("k2"), t0 + day))
  })

  it("bounded: past maxEntries the least recently used key is dropped", () => {
    const cache = ReplayCache.make({ maxEntries: 2 })
    cache.keep(claim("a"), t0 + day, response())
    cache.keep(claim("b"), t0 + day, response())
    assert.isDefined(cache.answer(claim("a"), t0), "a is now the most recently used")
    cache.keep(claim("c"), t0 + day, response())
    assert.strictEqual(cache.size(), 2)
    assert.isUndefined(cache.answer(claim("b"), t0))
    assert.isDefined(cache.answer(claim("a"), t0))
    assert.isDefined(cache.answer(claim("c"), t0))
  })

  it("bounded: the bodies held never pass maxBodyChars, and a body larger than it is never kept", () => {
    const cache = ReplayCache.make({ maxBodyChars: 100 })
    cache.keep(claim("big"), t0 + day, response("x".repeat(101)))
    assert.strictEqual(cache.size(), 0)
    for (let i = 0; i < 10; i++) cache.keep(claim(`k${i}`), t0 + day, response("y".repeat(40)))
    assert.strictEqual(cache.size(), 2, "two bodies of 40 fit in 100, a third does not")
    assert.isDefined(cache.answer(claim("k9"), t0))
    assert.isDefined(cache.answer(claim("k8"), t0))
    // Keeping a key again replaces its entry (and its size), never counts it twice.
    cache.keep(claim("k9"), t0 + day, response("z".repeat(40)))
    assert.strictEqual(cache.size(), 2)
  })

  it.effect("4.9.3 cachedBegin answers a kept key without calling the store, and any other request through it", () =>
    Effect.gen(function*() {
      const cache = ReplayCache.make()
      const asked: Array<string> = []
      const begin = ReplayCache.cachedBegin(cache, (req: Storage.BeginRequest) =>
        Effect.sync(() => (asked.push(req.idempotency?.key ?? "-"), { _tag: "Proceed" } as const)))
      cache.keep(claim("done"), t0 + day, response())
      assert.strictEqual((yield* begin({ now: t0, idempotency: claim("done") }))._tag, "Replay")
      assert.strictEqual((yield* begin({ now: t0, idempotency: claim("fresh") }))._tag, "Proceed")
      assert.strictEqual((yield* begin({ now: t0 }))._tag, "Proceed")
      assert.deepStrictEqual(asked, ["fresh", "-"])
    }))
})
