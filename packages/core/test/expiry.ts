/** D9's short expiry walked on the TestClock, shared by the payment and top-up lifecycle tests. */
import { assert } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { Simulator } from "../src/index.js"
import { work } from "./fixtures.js"

/**
 * D9's short expiry, from a resource just created with the magic amount, seen through `read`:
 * still `pending` a millisecond before `Simulator.shortExpiryMillis`, then `expired` with no next
 * action once it has passed (the workers run after each step).
 */
export const expiresAtShortExpiry = <E, R>(
  read: Effect.Effect<{ readonly status: string; readonly next_action: unknown }, E, R>,
  pending: string
) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(Duration.millis(Simulator.shortExpiryMillis - 1))
    yield* work
    assert.strictEqual((yield* read).status, pending)
    yield* TestClock.adjust(Duration.millis(1))
    yield* work
    const after = yield* read
    assert.strictEqual(after.status, "expired")
    assert.isNull(after.next_action)
  })
