import { assert, describe, it } from "@effect/vitest"
import { StorageError } from "@tender/core"
import { Effect, Exit } from "effect"

/** A step that answers `StaleVersion` its first `stale` runs, then `failure` or success. */
const racing = (stale: number, failure?: StorageError.StorageError) => {
  let runs = 0
  const step = Effect.suspend(() => {
    runs++
    if (runs <= stale) return Effect.fail(new StorageError.StaleVersion({ message: "lost the race" }))
    return failure === undefined ? Effect.succeed(runs) : Effect.fail(failure)
  })
  return { step, runs: () => runs }
}

describe("StorageError.retryWhileStale", () => {
  it.effect("storage: a step that lost a race is run again at once until it applies", () =>
    Effect.gen(function*() {
      const { runs, step } = racing(3)
      assert.strictEqual(yield* StorageError.retryWhileStale(step), 4)
      assert.strictEqual(runs(), 4)
    }))

  it.effect("storage: it gives up after staleRetries more runs, failing with the last StaleVersion", () =>
    Effect.gen(function*() {
      const { runs, step } = racing(Infinity)
      const exit = yield* Effect.exit(StorageError.retryWhileStale(step))
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(runs(), StorageError.staleRetries + 1)
    }))

  it.effect("storage: any other failure is passed on without another run", () =>
    Effect.gen(function*() {
      const { runs, step } = racing(1, new StorageError.StorageUnavailable({ message: "down" }))
      const exit = yield* Effect.exit(StorageError.retryWhileStale(step))
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(runs(), 2)
    }))
})
