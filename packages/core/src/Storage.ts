/**
 * The storage port. Writes happen in two atomic steps, after Brandur Leach's
 * "Implementing Stripe-like Idempotency Keys": `begin` reserves the idempotency key and
 * the merchant_reference together; `commit` writes one state change and everything it
 * causes (the resource, the stored response, the reservations' outcome) together or not
 * at all. Both take plain data, so any adapter can make them atomic its own way.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "./Errors.js"
import type { PaymentIntentRecord, Status } from "./PaymentIntent.js"
import type { Environment } from "./Schemas.js"

/** A response as it is replayed: status, body bytes, and the request id it was first given under. @since 0.1.0 @category models */
export interface StoredResponse {
  readonly status: number
  readonly body: string
  readonly requestId: string
}

/** Identifies an idempotency key: scope is (API key id, key) (4.9.3). @since 0.1.0 @category models */
export interface IdempotencyKeyId {
  readonly apiKeyId: string
  readonly key: string
}

/**
 * A key as held by one claim: `lockedUntil` tells this request's claim from a later one that
 * took the key over after this one lapsed. @since 0.1.0 @category models
 */
export interface HeldKey extends IdempotencyKeyId {
  readonly lockedUntil: number
}

/** A claim on an idempotency key. @since 0.1.0 @category models */
export interface IdempotencyClaim extends IdempotencyKeyId {
  readonly fingerprint: string
  /** 24 hours after the first request (4.9.4). */
  readonly expiresAt: number
  /** Until when the in-flight claim holds; a claim left by a crashed process lapses then. */
  readonly lockedUntil: number
}

/** The resource types merchant_reference is unique within (4.9, D4). @since 0.1.0 @category models */
export type ResourceType = "payment_intent" | "topup_intent" | "payout_intent"

/** Identifies a merchant_reference: unique per (merchant, environment, resource type) (D4). @since 0.1.0 @category models */
export interface ReferenceId {
  readonly merchantId: string
  readonly environment: Environment
  readonly resourceType: ResourceType
  readonly reference: string
}

/** A claim on a merchant_reference for the resource about to be created. @since 0.1.0 @category models */
export interface ReferenceClaim extends ReferenceId {
  readonly fingerprint: string
  readonly resourceId: string
  readonly lockedUntil: number
}

/** @since 0.1.0 @category models */
export interface BeginRequest {
  readonly now: number
  readonly idempotency?: IdempotencyClaim | undefined
  readonly reference?: ReferenceClaim | undefined
}

/**
 * What `begin` found. Only `Proceed` and `ReferenceTaken` leave the idempotency key
 * claimed (when one was given); the caller then settles it with `commit`.
 *
 * @since 0.1.0 @category models
 */
export type BeginOutcome =
  | { readonly _tag: "Proceed" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "KeyConflict" }
  | { readonly _tag: "KeyInFlight" }
  | {
    readonly _tag: "ReferenceTaken"
    readonly resourceId: string
    readonly sameFingerprint: boolean
    readonly inFlight: boolean
  }

/**
 * One atomic write. Every part is optional; an adapter applies all of them or none.
 *
 * @since 0.1.0 @category models
 */
export interface Commit {
  readonly now: number
  readonly insertPaymentIntent?: PaymentIntentRecord | undefined
  /** Replace the intent whose stored `version` is `expectedVersion`. */
  readonly updatePaymentIntent?: { readonly record: PaymentIntentRecord; readonly expectedVersion: number } | undefined
  /**
   * The reservation now names a created resource, for good. A precondition: if the claim is not
   * held by `resourceId` (it lapsed and another create took it), the whole commit fails with
   * `StorageError({ reason: "UniqueViolation" })` and writes nothing.
   */
  readonly completeReference?: ReferenceId & { readonly resourceId: string } | undefined
  /** Drop an in-flight reservation held for `resourceId` (the create did not happen). */
  readonly releaseReference?: ReferenceId & { readonly resourceId: string } | undefined
  /**
   * Store the final response for replay (4.9.4). A precondition: the key must still be held
   * by this claim, unanswered; if a retry took it over, the whole commit fails with
   * `StorageError({ reason: "ClaimLost" })` and writes nothing.
   */
  readonly completeIdempotency?: HeldKey & { readonly response: StoredResponse } | undefined
  /** Forget the key, so a retry reaches a fresh handler (4.9.7); only while this claim still holds it, unanswered. */
  readonly releaseIdempotency?: HeldKey | undefined
}

/** Filters and position of a list page (4.3, D6). @since 0.1.0 @category models */
export interface PaymentIntentQuery {
  readonly merchantId: string
  readonly environment: Environment
  readonly country?: string | undefined
  readonly currency?: string | undefined
  /** Inclusive, epoch ms. */
  readonly createdAfter?: number | undefined
  /** Exclusive, epoch ms. */
  readonly createdBefore?: number | undefined
  readonly merchantReference?: string | undefined
  readonly statuses?: ReadonlyArray<Status> | undefined
  /** Keyset position: rows strictly after this one in (created_at, id) descending order. */
  readonly after?: { readonly createdAt: number; readonly id: string } | undefined
  readonly limit: number
}

/** The port every storage adapter implements. @since 0.1.0 @category tags */
export class Storage extends Context.Tag("@tender/core/Storage")<Storage, {
  readonly begin: (request: BeginRequest) => Effect.Effect<BeginOutcome, StorageError>
  readonly commit: (commit: Commit) => Effect.Effect<void, StorageError>
  readonly getPaymentIntent: (
    scope: { readonly merchantId: string; readonly environment: Environment },
    id: string
  ) => Effect.Effect<Option.Option<PaymentIntentRecord>, StorageError>
  /** At most `limit` rows, (created_at, id) descending. */
  readonly listPaymentIntents: (query: PaymentIntentQuery) => Effect.Effect<ReadonlyArray<PaymentIntentRecord>, StorageError>
  /**
   * Delete what no request can use any more: idempotency keys whose 24 hours are over
   * (`expiresAt <= now`), and merchant_reference claims that were never completed and whose
   * lock lapsed more than `claimGraceMillis` ago. Completed references are kept forever.
   */
  readonly purgeExpired: (now: number) => Effect.Effect<PurgeResult, StorageError>
}>() {}

/** What `purgeExpired` deleted. @since 0.1.0 @category models */
export interface PurgeResult {
  readonly idempotencyKeys: number
  readonly referenceClaims: number
}

/**
 * How long after its lock lapsed an uncompleted merchant_reference claim is kept: long
 * enough that no request that could still complete it (a stalled process) is alive.
 *
 * @since 0.1.0
 */
export const claimGraceMillis = 24 * 60 * 60 * 1000

/** Descending (created_at, id) order used by every list (D6). @since 0.1.0 */
export const compareNewestFirst = (
  a: { readonly createdAt: number; readonly id: string },
  b: { readonly createdAt: number; readonly id: string }
): number => (a.createdAt !== b.createdAt ? b.createdAt - a.createdAt : a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
