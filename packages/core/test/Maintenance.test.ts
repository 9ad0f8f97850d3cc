import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { Idempotency, Maintenance, MemoryStorage, Storage } from "../src/index.js"

const key = { apiKeyId: "key_a", key: "k-1" }
const claimAt = (now: number) => ({ ...key, fingerprint: "f", expiresAt: now + Idempotency.retentionMillis, lockedUntil: now + 60_000 })

describe("Maintenance", () => {
  it.effect("4.9.4 the scheduled purge deletes a key once its 24 hours are over, and keeps running", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      yield* storage.begin({ now: 0, idempotency: claimAt(0) })
      yield* storage.commit([Storage.Write.completeIdempotency({ ...key, lockedUntil: 60_000 }, { status: 201, body: "{}", requestId: "req_1" })])
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.buildWithScope(Maintenance.layerSchedule("1 hour"), yield* Effect.scope)
        // 23 hours on, the key still replays.
        yield* TestClock.adjust("23 hours")
        assert.strictEqual((yield* storage.begin({ now: 23 * 3_600_000, idempotency: claimAt(0) }))._tag, "Replay")
        // Past 24 hours, the next run has deleted it: a different request may use the key.
        yield* TestClock.adjust("2 hours")
        const purged = yield* storage.purgeExpired(25 * 3_600_000)
        assert.strictEqual(purged.idempotencyKeys, 0, "the schedule had purged it already")
        const fresh = yield* storage.begin({ now: 25 * 3_600_000, idempotency: { ...claimAt(25 * 3_600_000), fingerprint: "other" } })
        assert.strictEqual(fresh._tag, "Proceed")
      }))
    }).pipe(Effect.provide(MemoryStorage.layer)))
})
