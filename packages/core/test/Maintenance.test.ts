import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, TestClock } from "effect"
import { Event, Idempotency, Maintenance, MemoryStorage, Storage } from "../src/index.js"

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

  it.effect("retention: the schedule purges events once past their retention, in batches, and keeps the younger ones", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const scope = { merchantId: "mch_r", environment: "test" as const }
      const event = (i: number, at: number) =>
        Event.EventRecord.make({
          id: `evt_${i}`,
          ...scope,
          type: "payment_intent.created",
          resourceType: "payment_intent",
          resourceId: `dord_${i}`,
          resourceVersion: 1,
          ordinal: 0,
          data: {},
          createdAt: at,
          version: 1
        })
      const day = 86_400_000
      // Five events at day 0, one at day 2: with a retention of 3 days and batches of 2, the
      // run after day 3 takes three batches for the first five, and leaves the last.
      yield* storage.commit([...[0, 1, 2, 3, 4].map((i) => event(i, 0)), event(5, 2 * day)].map((e) => Storage.Write.insert(Event.table, e)))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.buildWithScope(Maintenance.layerSchedule({ every: "1 day", events: "3 days", batchSize: 2 }), yield* Effect.scope)
        yield* TestClock.adjust("3 days")
        assert.deepStrictEqual((yield* storage.list(Event.table, { ...scope, limit: 10 })).map((e) => e.id), [
          "evt_5",
          "evt_4",
          "evt_3",
          "evt_2",
          "evt_1",
          "evt_0"
        ])
        yield* TestClock.adjust("1 day")
        // The batches pause between them (100 ms by default) on the same clock.
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual((yield* storage.list(Event.table, { ...scope, limit: 10 })).map((e) => e.id), ["evt_5"])
      }))
    }).pipe(Effect.provide(MemoryStorage.layer)))

  it.effect("retention: a wrong option fails the schedule's layer at once", () =>
    Effect.gen(function*() {
      for (
        const options of [{ batchSize: 0 }, { batchSize: 1.5 }, { events: -1 }, { finishedTasks: "-2 days" as const }] satisfies ReadonlyArray<
          Maintenance.RetentionOptions
        >
      ) {
        const exit = yield* Effect.exit(Effect.scoped(Layer.build(Maintenance.layerSchedule(options))))
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), JSON.stringify(options))
      }
    }).pipe(Effect.provide(MemoryStorage.layer)))
})
