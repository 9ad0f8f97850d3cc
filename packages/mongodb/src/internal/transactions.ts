/**
 * Multi-document transactions, retried as the driver's transactions specification says
 * (`ClientSession.withTransaction` does the same): a whole attempt again on an error labelled
 * `TransientTransactionError` (a write conflict with a concurrent transaction, a failover), the
 * commit alone again on `UnknownTransactionCommitResult` (the commit may or may not have
 * applied; committing again is safe). Unlike `withTransaction`, the body is an Effect and the
 * retries are bounded by count rather than by 120 seconds, so a request never hangs that long.
 */
import type { StorageError } from "@tender/core"
import { Effect } from "effect"
import type { ClientSession, MongoClient, TransactionOptions } from "mongodb"
import { codeOf, fold, hasLabel } from "./errors.js"

/** What to do after a failure of an attempt's body or of its commit. */
export type Decision = "retry-transaction" | "retry-commit" | "fail"

/** Whole attempts at most: write conflicts under contention settle within a few. */
export const maxAttempts = 8

/** Commits of one attempt at most, when the outcome of a commit is unknown. */
export const maxCommits = 4

/** MaxTimeMSExpired: a commit that ran out of its own time limit is not retried (the spec's rule). */
const maxTimeMSExpired = 50

/** The driver error behind a failure: a storage error keeps it as its cause. */
export const driverErrorOf = (error: unknown): unknown =>
  typeof error === "object" && error !== null && "_tag" in error && "cause" in error ? error.cause : error

/**
 * The retry decision for a failure of the body (`phase: "body"`) or of the commit, at the given
 * 1-based attempt (of the transaction, or of the commit within it). A precondition that did not
 * hold (`StaleVersion`, ...) carries no driver error, so it always fails.
 */
export const decide = (error: unknown, phase: "body" | "commit", attempt: number): Decision => {
  const cause = driverErrorOf(error)
  if (phase === "commit" && hasLabel(cause, "UnknownTransactionCommitResult") && codeOf(cause) !== maxTimeMSExpired) {
    return attempt < maxCommits ? "retry-commit" : "fail"
  }
  if (hasLabel(cause, "TransientTransactionError")) return attempt < maxAttempts ? "retry-transaction" : "fail"
  return "fail"
}

/** The pause before attempt `attempt + 1`: the driver's jittered 5 ms × 1.5^attempt, at most 500 ms. */
export const backoffMillis = (attempt: number, random: number): number => random * Math.min(5 * 1.5 ** attempt, 500)

/**
 * A pause on the real clock: the driver's retries are about the server, not about the host's
 * `Clock`, and must not stop under a `TestClock`.
 */
const pause = (millis: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

const attempt = (f: () => Promise<unknown>, operation: string) => Effect.tryPromise({ try: f, catch: fold(operation) })

/** Abort what the session holds, if anything; a failed abort changes nothing (the server aborts on its own). */
const abort = (session: ClientSession) => session.inTransaction() ? Effect.ignore(attempt(() => session.abortTransaction(), "abort transaction")) : Effect.void

/**
 * Run `body` in one transaction on a session of its own, retrying as above. The session ends
 * with the effect, also on interruption (ending it aborts a transaction still open).
 */
export const inTransaction = <A>(
  client: MongoClient,
  options: TransactionOptions,
  body: (session: ClientSession) => Effect.Effect<A, StorageError.StorageError>
): Effect.Effect<A, StorageError.StorageError> =>
  Effect.acquireUseRelease(
    Effect.try({ try: () => client.startSession(), catch: fold("start session") }),
    (session) =>
      Effect.gen(function*() {
        for (let n = 1;; n++) {
          if (n > 1) yield* pause(backoffMillis(n - 1, Math.random()))
          yield* Effect.try({ try: () => session.startTransaction(options), catch: fold("start transaction") })
          const result = yield* Effect.either(body(session))
          if (result._tag === "Left") {
            yield* abort(session)
            if (decide(result.left, "body", n) === "retry-transaction") continue
            return yield* Effect.fail(result.left)
          }
          for (let c = 1;; c++) {
            const committed = yield* Effect.either(attempt(() => session.commitTransaction(), "commit transaction"))
            if (committed._tag === "Right") return result.right
            const decision = decide(committed.left, "commit", c)
            if (decision === "retry-commit") continue
            if (decision === "retry-transaction" && n < maxAttempts) break
            return yield* Effect.fail(committed.left)
          }
        }
      }),
    (session) => Effect.ignore(attempt(() => session.endSession(), "end session"))
  )
