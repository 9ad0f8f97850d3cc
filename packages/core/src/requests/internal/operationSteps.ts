/**
 * The steps of `Operation.run` (4.9, D5), each a function of the run's context (`Run`): what the
 * request claims, beginning its claims, the answers begin already gives, deciding and settling,
 * and giving the claims back after a fault. `Operation.ts` runs the steps in order and exports the
 * models defined here (beside the steps that use them, so the two files import in one direction);
 * here a test can reach each step.
 */
import { Cause, Context, Duration, Effect, Either, Option, Schedule } from "effect"
import type { ApiError } from "../../resources/Errors.js"
import { IdempotencyConflict, InternalError, ServiceUnavailable } from "../../resources/Errors.js"
import type { BeginOutcome, HeldKey, HeldReference, ResourceType } from "../../storage/Storage.js"
import { type Storage, Write } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import { isStorageError, retryWhileStale } from "../../storage/StorageError.js"
import * as ApiResponse from "../ApiResponse.js"
import type { Principal } from "../Authentication.js"
import * as Idempotency from "../Idempotency.js"
import * as Unreleased from "./unreleased.js"

/** Who asks, under which request id, with which `Idempotency-Key` (already validated). @since 0.1.0 @category models */
export interface RequestContext {
  readonly principal: Principal
  readonly requestId: string
  readonly idempotencyKey?: string | undefined
}

/** What an operation decided: the response it answers and the writes that make it true. @since 0.1.0 @category models */
export interface Decision {
  readonly response: ApiResponse.ApiResponse
  readonly writes: ReadonlyArray<Write>
}

/** @since 0.1.0 @category models */
export interface Options<R> {
  readonly context: RequestContext
  /** Method and path template, part of the request fingerprint (D5): one key on two routes conflicts. */
  readonly route: string
  /** The canonical request (defaults filled, values normalised): equal for requests that mean the same (D5). */
  readonly canonical: unknown
  /** Words for messages: "payment intent". */
  readonly resource: string
  /** The merchant_reference the operation creates a resource under, if any (4.9, D4). */
  readonly reference?: {
    readonly resourceType: ResourceType
    readonly reference: string
    /** The resource's own fingerprint: a repeat with the same one answers the original (4.9 merchant_reference rule 2). */
    readonly fingerprint: string
    /** The id the resource will have if this request creates it. */
    readonly resourceId: string
    /** The answer to a repeat: the original resource, as its create returned it. */
    readonly original: (resourceId: string) => Effect.Effect<ApiResponse.ApiResponse, StorageError>
  } | undefined
  /** Decide, without writing: a failure is an answer too, stored on the key (D5), unless the store failed. */
  readonly decide: Effect.Effect<Decision, ApiError, R>
}

/** One run of an operation: its store, its options, and its claims as this request holds them. */
export interface Run<R> {
  readonly storage: Storage["Type"]
  readonly options: Options<R>
  readonly now: number
  readonly requestId: string
  /** The key as this request holds it: completing or releasing it applies only while this claim holds it. */
  readonly held: HeldKey | undefined
  readonly heldReference: HeldReference | undefined
}

/** The context of a run of `options` begun at `now` on `storage`: what it will claim. */
export const runOf = <R>(storage: Storage["Type"], options: Options<R>, now: number): Run<R> => {
  const { principal, requestId } = options.context
  const key = options.context.idempotencyKey
  const ref = options.reference
  return {
    storage,
    options,
    now,
    requestId,
    held: key === undefined ? undefined : { apiKeyId: principal.apiKeyId, key, lockedUntil: now + Idempotency.lockMillis },
    heldReference: ref === undefined ? undefined : {
      merchantId: principal.merchant.id,
      environment: principal.environment,
      resourceType: ref.resourceType,
      reference: ref.reference,
      resourceId: ref.resourceId
    }
  }
}

/**
 * Claim the key and the reference together (nothing to claim: `Proceed`). A claim found in flight
 * only because this process still owes its release is given back first, then begun again.
 */
export const begin = <R>(run: Run<R>): Effect.Effect<Either.Either<BeginOutcome, StorageError>> =>
  Effect.gen(function*() {
    const { held, heldReference, now, options, storage } = run
    const ref = options.reference
    const claim = storage.begin({
      now,
      idempotency: held && {
        ...held,
        fingerprint: Idempotency.requestFingerprint(options.route, options.canonical),
        expiresAt: now + Idempotency.retentionMillis
      },
      reference: ref && heldReference && { ...heldReference, fingerprint: ref.fingerprint, lockedUntil: now + Idempotency.lockMillis }
    }).pipe(Effect.either)
    let outcome = held === undefined && heldReference === undefined ? Either.right<BeginOutcome>({ _tag: "Proceed" }) : yield* claim
    // 4.9.7: in flight only because a request of this process that answered a fault could not give
    // its claims back yet (the store was down for the release too): given back now, then begun
    // again, so the retry reaches a fresh handler as soon as the store answers.
    const stillOwed = Either.isRight(outcome) && inFlightClaim(outcome.right) ? Unreleased.owed(storage, held, heldReference) : []
    if (stillOwed.length > 0) {
      // A reference found in flight came with this request's own key claimed: given back too.
      const own = outcome._tag === "Right" && outcome.right._tag === "ReferenceTaken" && held !== undefined ? [Write.releaseIdempotency(held)] : []
      if (Either.isRight(yield* Effect.either(storage.commit([...stillOwed.flatMap((p) => p.writes), ...own])))) {
        for (const p of stillOwed) Unreleased.forget(storage, p)
        outcome = yield* claim
      }
    }
    return outcome
  })

/** The answer when begin failed. */
export const beginFailed = <R>(run: Run<R>, error: StorageError): Effect.Effect<ApiResponse.ApiResponse> =>
  Effect.gen(function*() {
    // The begin may have been written with its answer lost (the connection cut after the commit):
    // give back what it would have claimed, fenced to this request's claims like any release.
    if (error._tag === "StorageUnavailable") {
      yield* giveBack(run.storage, [
        ...(run.held === undefined ? [] : [Write.releaseIdempotency(run.held)]),
        ...(run.heldReference === undefined ? [] : [Write.releaseReference(run.heldReference)])
      ])
    }
    return yield* failed(error, run.options.resource, run.requestId)
  })

const conflict = (requestId: string, param: string, message: string) => ApiResponse.fromError(new IdempotencyConflict({ param, message }), requestId)
// 4.9.6: the original is still running, a retry gets its answer; sent with `Retry-After`.
const inFlight = (requestId: string, param: string, message: string) => ApiResponse.retryLater(new IdempotencyConflict({ param, message }), requestId)

/** The answer `begun` already is (a replay, a key conflict, a key in flight); none when the run goes on. */
export const answerOfBegin = (requestId: string, begun: BeginOutcome): ApiResponse.ApiResponse | undefined => {
  switch (begun._tag) {
    case "Replay":
      return ApiResponse.replay(begun.response)
    case "KeyConflict":
      return conflict(requestId, Idempotency.header, "This Idempotency-Key was used with a different request; use a new key for a new request.")
    case "KeyInFlight":
      return inFlight(requestId, Idempotency.header, "A request with this Idempotency-Key is still in flight; retry after it completes.")
    case "ReferenceTaken":
    case "Proceed":
      return undefined
  }
}

/** Commit `writes` with `response` stored on the key (if any), and answer it. */
export const settle = <R>(run: Run<R>, response: ApiResponse.ApiResponse, writes: ReadonlyArray<Write> = []) => {
  const all = run.held === undefined ? writes : [...writes, Write.completeIdempotency(run.held, response)]
  return Effect.as(all.length === 0 ? Effect.void : run.storage.commit(all), response)
}

/** 4.9 merchant_reference rules 2 and 3: the reference is held by another create. */
export const referenceTaken = <R>(run: Run<R>, begun: Extract<BeginOutcome, { readonly _tag: "ReferenceTaken" }>) =>
  Effect.gen(function*() {
    const { held, options, requestId, storage } = run
    if (begun.inFlight) {
      // A concurrent create holds the reference: transient, so the key is released, not stored.
      if (held !== undefined) yield* storage.commit([Write.releaseIdempotency(held)])
      return inFlight(requestId, "merchant_reference", `A ${options.resource} with this merchant_reference is still being created; retry shortly.`)
    }
    if (!begun.sameFingerprint) {
      return yield* settle(run, conflict(requestId, "merchant_reference", `A ${options.resource} with this merchant_reference exists with different fields.`))
    }
    // 4.9 merchant_reference rule 2: the original resource; 200, since nothing was created.
    return yield* settle(run, yield* options.reference!.original(begun.resourceId))
  })

/** Decide, and settle the decision or the refusal (a refusal is stored or released per D5). */
export const decided = <R>(run: Run<R>): Effect.Effect<ApiResponse.ApiResponse, StorageError, R> =>
  Effect.gen(function*() {
    const { held, heldReference, options, requestId, storage } = run
    const outcome = yield* Effect.either(options.decide)
    // A storage failure while deciding is no answer: it releases the claims like any fault.
    if (outcome._tag === "Left" && isStorageError(outcome.left)) return yield* Effect.fail(outcome.left)
    if (outcome._tag === "Right") {
      const { response, writes } = outcome.right
      return yield* settle(run, response, heldReference === undefined ? writes : [...writes, Write.completeReference(heldReference)])
    }
    // The reference was never used, so it is free again.
    const refused = ApiResponse.fromError(outcome.left, requestId)
    const freeReference = heldReference === undefined ? [] : [Write.releaseReference(heldReference)]
    // D5: a 403/409/422 is final for this key and stored. A 400/404 says the request named
    // nothing to run on (a malformed or unknown id): answered as if before the key was
    // claimed, so the key is released and a retry once the resource exists runs afresh.
    if (!Idempotency.storesRefusal(refused.status)) {
      const release = [...(held === undefined ? [] : [Write.releaseIdempotency(held)]), ...freeReference]
      if (release.length > 0) yield* storage.commit(release)
      return refused
    }
    return yield* settle(run, refused, freeReference)
  }).pipe(
    // What the decision read changed before its commit (a concurrent refund of the same
    // payment, a cancel racing the provider's answer): the commit wrote nothing, and the
    // claims are still this request's, so decide again on what is stored now.
    (decision) => retryWhileStale(decision)
  )

/**
 * The answer after the claimed part of the run failed with `cause`: whatever went wrong, give back
 * what this request still holds, so a retry reaches a fresh handler (4.9.7).
 */
export const recover = <R>(run: Run<R>, begun: BeginOutcome, cause: Cause.Cause<StorageError>): Effect.Effect<ApiResponse.ApiResponse> =>
  Effect.gen(function*() {
    const release = [
      ...(run.held === undefined ? [] : [Write.releaseIdempotency(run.held)]),
      ...(begun._tag === "Proceed" && run.heldReference !== undefined ? [Write.releaseReference(run.heldReference)] : [])
    ]
    yield* giveBack(run.storage, release)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) return yield* failed(failure.value, run.options.resource, run.requestId)
    yield* Effect.logError(`${run.options.resource} operation failed`, cause)
    return ApiResponse.fromError(new InternalError({ message: "operation failed" }), run.requestId)
  })

/**
 * How a release that met an outage is tried again (docs/reliability.md "Database outage"): first
 * after `firstDelayMillis`, then doubling, at least every `spacingMillis`, while the claim still
 * holds. A host may set it (`Tender.layer`'s `releaseRetry`); a test sets a first delay longer than
 * itself, so a retry finds the release still owed without waiting for a back-off to grow.
 *
 * @since 0.1.0 @category models
 */
export class ReleaseRetry extends Context.Reference<ReleaseRetry>()("@tender/core/ReleaseRetry", {
  defaultValue: (): { readonly firstDelayMillis: number; readonly spacingMillis: number } => ({ firstDelayMillis: 100, spacingMillis: 2_000 })
}) {}

/**
 * Give claims back. Releases are fenced (a claim another request took over, or answered, is left
 * alone), so they may be tried again: if the store is down, in the background until the claims
 * would lapse anyway (Idempotency.lockMillis), so a key is free soon after an outage ends rather
 * than a full lock later (docs/reliability.md "Database outage").
 */
export const giveBack = (storage: Storage["Type"], release: ReadonlyArray<Write>) => {
  if (release.length === 0) return Effect.void
  // Suspended: each try asks the store anew.
  const attempt = Effect.suspend(() => storage.commit(release))
  return attempt.pipe(Effect.catchAll(() =>
    Effect.gen(function*() {
      // Owed until it lands: a retry in this process gives it back at once (internal/unreleased.ts).
      const pending = Unreleased.remember(storage, release)
      const { firstDelayMillis, spacingMillis } = yield* ReleaseRetry
      const first = Duration.millis(firstDelayMillis)
      const retry = Schedule.exponential(first).pipe(
        Schedule.union(Schedule.spaced(Duration.millis(spacingMillis))),
        Schedule.upTo(Duration.millis(Idempotency.lockMillis))
      )
      // The first try just failed: the next waits the schedule's first delay.
      yield* Effect.forkDaemon(
        Effect.delay(attempt, first).pipe(
          Effect.retry({ schedule: retry, while: (e) => e._tag === "StorageUnavailable" }),
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => Unreleased.forget(storage, pending)))
        )
      )
    })
  ))
}

/** Whether `begun` found this request's key or reference held by a request still in flight. */
export const inFlightClaim = (begun: BeginOutcome) => begun._tag === "KeyInFlight" || (begun._tag === "ReferenceTaken" && begun.inFlight)

/** The answer to a storage failure, once the claims are given back. */
export const failed = (error: StorageError, resource: string, requestId: string) => {
  const answer = (e: ApiError) => Effect.succeed(ApiResponse.fromError(e, requestId))
  // A concurrent request won: a retry of this one answers with what it made (its answer may still be in flight).
  const retryLater = (e: ApiError) => Effect.succeed(ApiResponse.retryLater(e, requestId))
  switch (error._tag) {
    case "UniqueViolation":
      // This request's reference claim lapsed (it outlived Idempotency.lockMillis) and another create
      // took the reference: a conflict, not a fault. A retry answers with the resource that won.
      return Effect.zipRight(
        Effect.logWarning(`${resource} create lost its merchant_reference to a concurrent create`, error),
        retryLater(
          new IdempotencyConflict({
            param: "merchant_reference",
            message: `A ${resource} with this merchant_reference was created by a concurrent request; retry to retrieve it.`
          })
        )
      )
    case "ClaimLost":
      // This request outlived its claim on the key and a retry took it over: the retry's answer
      // stands, and nothing of this request was written.
      return Effect.zipRight(
        Effect.logWarning(`${resource} operation outlived its Idempotency-Key claim`, error),
        retryLater(
          new IdempotencyConflict({
            param: Idempotency.header,
            message: "A retry with this Idempotency-Key took it over while this request was still running; retry to get its answer."
          })
        )
      )
    case "StorageUnavailable":
      return Effect.zipRight(
        Effect.logWarning(`${resource} operation: storage unavailable`, error),
        answer(new ServiceUnavailable({ message: "The service is briefly unavailable; retry with the same Idempotency-Key." }))
      )
    case "StaleVersion":
    case "StorageFailure":
      // 4.9.7: a 5xx (a failed read, the final commit failing).
      return Effect.zipRight(
        Effect.logError(`${resource} operation failed`, error),
        answer(new InternalError({ message: "operation failed" }))
      )
  }
}
