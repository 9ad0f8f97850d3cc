/**
 * What a storage adapter fails with: one small tagged class per case, so callers tell them
 * apart with `catchTag` and never by message text. Every adapter folds its driver's
 * failures into these; a cause is kept for the host's logs and never sent to a caller.
 *
 * @since 0.1.0
 */
import type { Cause } from "effect"
import { Data, Effect } from "effect"

interface Fields {
  readonly message: string
  readonly cause?: unknown
}

type InternalError<Tag extends string> = Cause.YieldableError & Readonly<Fields> & {
  readonly _tag: Tag
  readonly status: 500
  readonly code: "internal_error"
}

// Every case but an outage answers as a 500 `internal_error`: one base class holds that answer.
const InternalError = <Tag extends string>(tag: Tag): new(args: Fields) => InternalError<Tag> =>
  class extends Data.TaggedError(tag)<Fields> {
    readonly status = 500
    readonly code = "internal_error"
  }

/**
 * A row with that identity exists already: a duplicate id, a second resource with one
 * `merchant_reference`, or a reference completed by a resource that no longer holds its
 * claim. The commit wrote nothing.
 *
 * @since 0.1.0 @category errors
 */
export class UniqueViolation extends InternalError("UniqueViolation") {}

/**
 * A versioned update lost the race: the stored version is not the one it was read at.
 * The commit wrote nothing; the caller reads again and decides again.
 *
 * @since 0.1.0 @category errors
 */
export class StaleVersion extends InternalError("StaleVersion") {}

/**
 * How many more times a step that lost a race (`StaleVersion`) is run, at most. Each run reads
 * the store afresh and one racer wins every round, so the bound is only against a store that
 * never stops answering stale.
 *
 * @since 0.1.0 @category constants
 */
export const staleRetries = 64

/**
 * `effect` run again at once while it fails with `StaleVersion`, at most `staleRetries` more
 * times (no sleep: it runs the same under a test clock). A catch rather than `Effect.retry`, whose
 * schedule driver cost every create about 20 runtime steps though it almost never retries.
 *
 * @since 0.1.0 @category combinators
 */
export const retryWhileStale = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>, times = staleRetries): Effect.Effect<A, E, R> =>
  times <= 0 ? effect : Effect.catchIf(effect, (e) => e._tag === "StaleVersion", () => retryWhileStale(effect, times - 1))

/**
 * An idempotency key this request claimed was taken over by a retry after the claim
 * lapsed. The commit wrote nothing; the retry's answer stands.
 *
 * @since 0.1.0 @category errors
 */
export class ClaimLost extends InternalError("ClaimLost") {}

/**
 * The store cannot be reached for now (connection refused or lost, the server starting or
 * shutting down). Transient: the request may be retried.
 *
 * @since 0.1.0 @category errors
 */
export class StorageUnavailable extends Data.TaggedError("StorageUnavailable")<Fields> {
  readonly status = 503
  readonly code = "service_unavailable"
}

/**
 * Any other failure of the store (a driver fault, a constraint the library did not
 * expect). Answered as a 500.
 *
 * @since 0.1.0 @category errors
 */
export class StorageFailure extends InternalError("StorageFailure") {}

/** Every failure of a storage port. @since 0.1.0 @category models */
export type StorageError = UniqueViolation | StaleVersion | ClaimLost | StorageUnavailable | StorageFailure

const tags: ReadonlySet<string> = new Set(["UniqueViolation", "StaleVersion", "ClaimLost", "StorageUnavailable", "StorageFailure"])

/** Whether `u` is a storage failure (as opposed to an answer a caller should see). @since 0.1.0 @category guards */
export const isStorageError = (u: unknown): u is StorageError =>
  typeof u === "object" && u !== null && "_tag" in u && tags.has((u as { readonly _tag: string })._tag)
