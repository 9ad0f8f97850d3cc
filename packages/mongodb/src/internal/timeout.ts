/**
 * The operation timeout (docs/mongodb.md, "Timeouts"): every call Tender makes to MongoDB answers
 * within a bound, or fails as `StorageUnavailable` (a 503 with Retry-After), as PostgreSQL's
 * statement timeout does. The driver 7.9's client-side `timeoutMS` is deprecated there and has no
 * effect, so the bound is Tender's own: the call runs in a fiber of its own and the caller stops
 * waiting when the time is up, whether or not it is interruptible (a request's storage steps run
 * uninterruptibly, Operation.ts, where `Effect.timeout` would wait all the same). The server side
 * is bounded too: `wtimeoutMS` on the majority write concern, `maxCommitTimeMS` on commits
 * (`commit.ts`), and `maxTimeMS` on reads.
 *
 * A timed-out write may still land; the same fences as after a lost connection make that safe
 * (a commit completes the request's key only while its claim holds it).
 */
import { StorageError } from "@tender/core"
import { Duration, Effect, FiberId } from "effect"

/** The bound when the host sets none. */
export const defaultOperationTimeout: Duration.Duration = Duration.seconds(10)

/** The bound in whole milliseconds, 1 to 2^31 - 1 (Node's timer limit). */
export const millisOf = (input: Duration.DurationInput | undefined): number => {
  const millis = Math.ceil(Duration.toMillis(Duration.decode(input ?? defaultOperationTimeout)))
  if (!(millis >= 1 && millis <= 2 ** 31 - 1)) {
    throw new Error(`operationTimeout must be from 1 ms to ${2 ** 31 - 1} ms, got ${String(input)}`)
  }
  return millis
}

/** `self` within `millis`, or `StorageUnavailable` at once; only the call's own fiber is interrupted then. */
export const bound = (millis: number) => <A, E>(operation: string, self: Effect.Effect<A, E>): Effect.Effect<A, E | StorageError.StorageUnavailable> =>
  Effect.flatMap(Effect.forkDaemon(Effect.interruptible(self)), (fiber) =>
    Effect.async<A, E | StorageError.StorageUnavailable>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        resume(
          Effect.fail(new StorageError.StorageUnavailable({ message: `mongodb: ${operation} did not finish within the operation timeout of ${millis} ms` }))
        )
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
