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
import { StorageError, StorageTimeout } from "@tender/core"
import type { Duration } from "effect"

/** The bound when the host sets none (`StorageTimeout.defaultTimeout`). */
export const defaultStatementTimeout: Duration.Duration = StorageTimeout.defaultTimeout

/** The bound in whole milliseconds (`StorageTimeout.millisOf`). */
export const millisOf = (input: Duration.DurationInput | undefined): number => StorageTimeout.millisOf(input, "statementTimeout")

/** The failure of a call that did not answer within the statement timeout of `millis`. */
export const timedOut = (operation: string, millis: number): StorageError.StorageUnavailable =>
  new StorageError.StorageUnavailable({ message: `postgres: ${operation} did not finish within the statement timeout of ${millis} ms` })

/**
 * `self` within `millis`, or `StorageUnavailable` at once (`StorageTimeout.bound`), its message
 * naming `reportedMillis`, the statement timeout, when `millis` is what is left of it.
 */
export const bound = (millis: number, reportedMillis: number = millis) => StorageTimeout.bound(millis, (operation) => timedOut(operation, reportedMillis))
