/**
 * The statement timeout (docs/postgres.md, "Statement timeout"): every call Tender makes to the
 * database answers within a bound, or fails as `StorageUnavailable` (a 503 with Retry-After).
 *
 * Two sides. The client side bounds every `Storage`, `Merchants` and `Tasks` call, whatever the
 * pool: a database frozen mid-query (a stalled network, a paused VM) never answers, and only the
 * client can stop waiting for it. The call is then interrupted in the background, which asks the
 * server to cancel the statement, best effort (`@effect/sql-pg` sends `pg_cancel_backend` through
 * the pool; statements on the direct path send a CancelRequest instead, direct.ts). The server side is the
 * `statement_timeout` setting: on the pool Tender opens for every session, and inside Tender's own
 * transactions with `SET LOCAL` on a host's pool, so a slow statement stops holding locks too.
 *
 * A timed-out write may still land (it reached the server before the answer was lost). That is
 * the case of a connection cut after the commit, and the same fences make it safe: a commit
 * completes the request's idempotency key only while this request's claim holds it, in the same
 * statement as its writes, and the release after a failure deletes only an unanswered claim. So
 * a retry with the same key either replays the answer that landed or runs once (Operation.ts).
 */
import { StorageError } from "@tender/core"
import { Duration, Effect, FiberId } from "effect"

/** The bound when the host sets none: above any healthy statement, below a client's patience. */
export const defaultStatementTimeout: Duration.Duration = Duration.seconds(10)

/** The bound in whole milliseconds, 1 to 2^31 - 1 (Node's timer limit: a longer timer fires at once). */
export const millisOf = (input: Duration.DurationInput | undefined): number => {
  const millis = Math.ceil(Duration.toMillis(Duration.decode(input ?? defaultStatementTimeout)))
  if (!(millis >= 1 && millis <= 2 ** 31 - 1)) {
    throw new Error(`statementTimeout must be from 1 ms to ${2 ** 31 - 1} ms, got ${String(input)}`)
  }
  return millis
}

/** The failure of a call that did not answer within the statement timeout of `millis`. */
export const timedOut = (operation: string, millis: number): StorageError.StorageUnavailable =>
  new StorageError.StorageUnavailable({ message: `postgres: ${operation} did not finish within the statement timeout of ${millis} ms` })

/**
 * `self` within `millis`, or `StorageUnavailable` at once (its message naming `reportedMillis`, the
 * statement timeout, when `millis` is what is left of it). The call runs in a fiber of its own,
 * so the answer waits neither for an interruption (a cancel sent to a frozen server waits too)
 * nor on the caller being interruptible: a request's storage steps run uninterruptibly
 * (Operation.ts), where `Effect.timeout` would wait for the statement all the same. Only that
 * fiber is interrupted when the time is up, which asks the server to cancel the statement.
 */
export const bound =
  (millis: number, reportedMillis: number = millis) =>
  <A, E>(operation: string, self: Effect.Effect<A, E>): Effect.Effect<A, E | StorageError.StorageUnavailable> =>
    Effect.flatMap(Effect.forkDaemon(Effect.interruptible(self)), (fiber) =>
      Effect.async<A, E | StorageError.StorageUnavailable>((resume) => {
        let done = false
        const timer = setTimeout(() => {
          if (done) return
          done = true
          resume(Effect.fail(timedOut(operation, reportedMillis)))
          fiber.unsafeInterruptAsFork(FiberId.none)
        }, millis)
        fiber.addObserver((exit) => {
          clearTimeout(timer)
          if (done) return
          done = true
          resume(exit)
        })
        // The caller interrupted (where it can be): the statement goes the same way.
        return Effect.sync(() => {
          clearTimeout(timer)
          done = true
          fiber.unsafeInterruptAsFork(FiberId.none)
        })
      }))
