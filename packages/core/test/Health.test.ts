/**
 * Readiness as `GET /readyz` answers it (docs/observability.md, "Health"): anyone may call it, so
 * its answer is cached for a second: one store read in flight at a time, shared by every caller
 * meanwhile, kept (good or failed) until it is a second old.
 */
import { assert, describe, it } from "@effect/vitest"
import { Health, Storage, StorageError } from "@tender/core"
import { Deferred, Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"

/** A store whose one read readiness makes counts its calls, waits for `gate` if given, and fails with `fail()` while it says so. */
const probed = (options: { readonly gate?: Deferred.Deferred<void>; readonly fail?: () => boolean } = {}) => {
  let reads = 0
  const find = () =>
    Effect.gen(function*() {
      reads++
      if (options.gate !== undefined) yield* Deferred.await(options.gate)
      if (options.fail?.() === true) return yield* new StorageError.StorageUnavailable({ message: "down" })
      return Option.none()
    })
  return { layer: Layer.succeed(Storage.Storage, { find } as unknown as Storage.Storage["Type"]), reads: () => reads }
}

describe("Health.cachedReadiness", () => {
  it.effect("readyz cache: serial and concurrent readiness within a second read the store once; after the second, once more", () =>
    Effect.gen(function*() {
      const store = probed()
      const ready = yield* Health.cachedReadiness()
      const check = Effect.provide(ready, store.layer)
      for (let i = 0; i < 5; i++) assert.strictEqual((yield* check).checks["storage"], "ok")
      yield* Effect.all(Array.from({ length: 20 }, () => check), { concurrency: "unbounded" })
      yield* TestClock.adjust(Duration.millis(999))
      yield* check
      assert.strictEqual(store.reads(), 1)
      yield* TestClock.adjust(Duration.millis(1))
      yield* Effect.all(Array.from({ length: 20 }, () => check), { concurrency: "unbounded" })
      assert.strictEqual(store.reads(), 2)
    }))

  it.effect("readyz cache: callers that arrive while the check is in flight await that one check, even past the window", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const store = probed({ gate })
      const check = Effect.provide(yield* Health.cachedReadiness({ maxAgeMillis: 100, timeoutMillis: 10_000 }), store.layer)
      const first = yield* Effect.fork(check)
      while (store.reads() === 0) yield* Effect.yieldNow()
      yield* TestClock.adjust(Duration.millis(500))
      const later = yield* Effect.fork(Effect.all(Array.from({ length: 20 }, () => check), { concurrency: "unbounded" }))
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      assert.strictEqual(store.reads(), 1, "no second check while one is in flight")
      yield* Deferred.succeed(gate, undefined)
      const reports = [yield* Fiber.join(first), ...(yield* Fiber.join(later))]
      assert.lengthOf(reports.filter((r) => r.status === "ok"), 21)
      assert.strictEqual(store.reads(), 1)
    }))

  it.effect("readyz cache: a failed check is kept for the second too, then checked again", () =>
    Effect.gen(function*() {
      let down = true
      const store = probed({ fail: () => down })
      const check = Effect.provide(yield* Health.cachedReadiness(), store.layer)
      assert.deepStrictEqual(yield* check, { status: "unavailable", checks: { storage: "unreachable", workers: "not_run_here" } })
      down = false
      assert.strictEqual((yield* check).status, "unavailable", "the failed answer is less than a second old")
      assert.strictEqual(store.reads(), 1)
      yield* TestClock.adjust(Duration.seconds(1))
      assert.strictEqual((yield* check).status, "ok")
      assert.strictEqual(store.reads(), 2)
    }))

  it.effect("readyz cache: maxAgeMillis sets the window", () =>
    Effect.gen(function*() {
      const store = probed()
      const check = Effect.provide(yield* Health.cachedReadiness({ maxAgeMillis: 100 }), store.layer)
      yield* check
      yield* TestClock.adjust(Duration.millis(100))
      yield* check
      assert.strictEqual(store.reads(), 2)
    }))
})
