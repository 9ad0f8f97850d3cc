/**
 * The bound every storage adapter puts on each call to its database (docs/storage-adapters.md,
 * "Timeouts"): the call answers within it, or fails as `StorageUnavailable` (a 503 with
 * Retry-After). A database frozen mid-call (a stalled network, a paused VM) never answers, and only
 * the client can stop waiting for it, so the bound is the client's own: the call runs in a fiber of
 * its own, and the caller stops waiting when the time is up whether or not it is interruptible (a
 * request's storage steps run uninterruptibly, Operation.ts, where `Effect.timeout` would wait for
 * the call all the same). Only that fiber is then interrupted, in the background, which lets the
 * driver cancel the call, best effort.
 *
 * A timed-out write may still land (it reached the server before the answer was lost), as after a
 * connection cut after the commit; the same fences make that safe: a commit completes the
 * request's idempotency key only while this request's claim holds it (Operation.ts).
 *
 * @since 0.1.0
 */
import { Duration, Effect, FiberId } from "effect"
import { StorageUnavailable } from "./StorageError.js"

/** The bound when the host sets none: above any healthy call, below a client's patience. @since 0.1.0 @category constants */
export const defaultTimeout: Duration.Duration = Duration.seconds(10)

/**
 * `input` (default `defaultTimeout`) in whole milliseconds, 1 to 2^31 - 1 (Node's timer limit: a
 * longer timer fires at once); anything else is a programming error of the host, thrown naming
 * its `option`.
 *
 * @since 0.1.0
 */
export const millisOf = (input: Duration.DurationInput | undefined, option: string): number => {
  const millis = Math.ceil(Duration.toMillis(Duration.decode(input ?? defaultTimeout)))
  if (!(millis >= 1 && millis <= 2 ** 31 - 1)) {
    throw new Error(`${option} must be from 1 ms to ${2 ** 31 - 1} ms, got ${String(input)}`)
  }
  return millis
}

/**
 * `self` within `millis`, or the failure `timedOut(operation)` at once; only the call's own fiber
 * is interrupted then. A caller that interrupts (where it can) interrupts the call too.
 *
 * @since 0.1.0
 */
export const bound =
  (millis: number, timedOut: (operation: string) => StorageUnavailable) =>
  <A, E>(operation: string, self: Effect.Effect<A, E>): Effect.Effect<A, E | StorageUnavailable> =>
    Effect.flatMap(Effect.forkDaemon(Effect.interruptible(self)), (fiber) =>
      Effect.async<A, E | StorageUnavailable>((resume) => {
        let done = false
        const timer = setTimeout(() => {
          if (done) return
          done = true
          resume(Effect.fail(timedOut(operation)))
          fiber.unsafeInterruptAsFork(FiberId.none)
        }, millis)
        fiber.addObserver((exit) => {
          clearTimeout(timer)
          if (done) return
          done = true
          resume(exit)
        })
        return Effect.sync(() => {
          clearTimeout(timer)
          done = true
          fiber.unsafeInterruptAsFork(FiberId.none)
        })
      }))
