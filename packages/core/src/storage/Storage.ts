/**
 * The storage port. Writes happen in two atomic steps, after Brandur Leach's
 * "Implementing Stripe-like Idempotency Keys": `begin` reserves the idempotency key and
 * the merchant_reference together; `commit` applies a list of writes (a state change and
 * everything it causes: the resource, the stored response, the reservations' outcome)
 * together or not at all. Reads are generic over the resource's `Table`, so a new resource
 * adds a table, never a method or a field here. The port imports no implementation: the
 * in-memory one is `MemoryStorage`, the others are adapter packages.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Environment } from "../resources/Schemas.js"
import type { StorageError } from "./StorageError.js"
import type { BaseRecord, StoredRecord, Table } from "./Table.js"

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
export type ResourceType = "payment_intent" | "topup_intent" | "payout_intent" | "refund"

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
 * One write of a commit, from a closed union: an adapter interprets each tag, and applies
 * the whole list in one statement or transaction. The preconditions are part of the
 * contract: when one does not hold, the commit fails with the named error and writes
 * nothing.
 *
 * @since 0.1.0 @category models
 */
export type Write =
  /** A new record. Fails with `UniqueViolation` when its id, or a unique field set of its table, exists. */
  | { readonly _tag: "Insert"; readonly table: Table<any>; readonly record: BaseRecord }
  /** Replace the record whose stored `version` is `expectedVersion`; fails with `StaleVersion` otherwise. */
  | { readonly _tag: "Update"; readonly table: Table<any>; readonly record: BaseRecord; readonly expectedVersion: number }
  /**
   * Remove the record `id` of `table` whose stored `version` is `expectedVersion`; fails with
   * `StaleVersion` otherwise (a missing record too). Its id and unique values are free for an
   * `Insert` after it in the same list (an adapter applies that insert once the delete has), and
   * for any later commit: a record moved to a new id keeping a unique value is one commit.
   */
  | { readonly _tag: "Delete"; readonly table: Table<any>; readonly id: string; readonly expectedVersion: number }
  /**
   * The reservation now names a created resource, for good. Fails with `UniqueViolation` when
   * the claim is not held by `resourceId` (it lapsed and another create took it).
   */
  | { readonly _tag: "CompleteReference"; readonly reference: HeldReference }
  /** Drop an in-flight reservation held for `resourceId` (the create did not happen); no-op otherwise. */
  | { readonly _tag: "ReleaseReference"; readonly reference: HeldReference }
  /**
   * Store the final response for replay (4.9.4). Fails with `ClaimLost` when the key is not
   * held, unanswered, by this claim (a retry took it over).
   */
  | { readonly _tag: "CompleteIdempotency"; readonly key: HeldKey; readonly response: StoredResponse }
  /** Forget the key so a retry reaches a fresh handler (4.9.7); only while this claim holds it, unanswered. */
  | { readonly _tag: "ReleaseIdempotency"; readonly key: HeldKey }
  /**
   * The merchant's available balance in `currency` (the sum of the `net` of its balance
   * transactions whose `availableAt` is at or before `now`, this commit's included) is not below
   * zero once the commit applied (D12: a payout never overdraws). Checked and applied as one
   * atomic step with every other commit on the same balance, in every process; fails with
   * `StaleVersion` otherwise (what the decision read has changed: it decides again).
   */
  | { readonly _tag: "RequireAvailable"; readonly balance: BalanceKey; readonly now: number }

/** One balance: a merchant's money in one environment and currency (D12). @since 0.1.0 @category models */
export interface BalanceKey {
  readonly merchantId: string
  readonly environment: Environment
  readonly currency: string
}

/** What `balances` sums: one merchant's balances, or (without `merchantId`) every merchant's of the environment. @since 0.1.0 @category models */
export interface BalanceQuery {
  readonly environment: Environment
  readonly merchantId?: string | undefined
  /** Transactions available at or before this instant count as available, the others as pending. */
  readonly now: number
}

/** Sums of balance transactions in one currency: signed integer strings of minor units. @since 0.1.0 @category models */
export interface BalanceTotal {
  readonly currency: string
  /**
   * The `net` of the transactions available at `now`, and of every debit whenever it is dated:
   * a payout committed by another process with a clock a moment ahead must still count.
   */
  readonly available: string
  /** The `net` of the others. */
  readonly pending: string
  /** The `fee` of all of them: what the platform earned. */
  readonly fees: string
}

/** A reference as held for one resource. @since 0.1.0 @category models */
export interface HeldReference extends ReferenceId {
  readonly resourceId: string
}

/** Constructors of `Write`. @since 0.1.0 @category constructors */
export const Write = {
  insert: <A extends BaseRecord>(table: Table<A>, record: A): Write => ({ _tag: "Insert", table, record }),
  update: <A extends BaseRecord>(table: Table<A>, record: A, expectedVersion: number): Write => ({
    _tag: "Update",
    table,
    record,
    expectedVersion
  }),
  delete: <A extends BaseRecord>(table: Table<A>, record: A): Write => ({ _tag: "Delete", table, id: record.id, expectedVersion: record.version }),
  completeReference: (reference: HeldReference): Write => ({ _tag: "CompleteReference", reference }),
  releaseReference: (reference: HeldReference): Write => ({ _tag: "ReleaseReference", reference }),
  completeIdempotency: (key: HeldKey, response: StoredResponse): Write => ({ _tag: "CompleteIdempotency", key, response }),
  releaseIdempotency: (key: HeldKey): Write => ({ _tag: "ReleaseIdempotency", key }),
  requireAvailable: (balance: BalanceKey, now: number): Write => ({ _tag: "RequireAvailable", balance, now })
} as const

/** A merchant and environment: every read is scoped to one (5.4). @since 0.1.0 @category models */
export interface Scope {
  readonly merchantId: string
  readonly environment: Environment
}

/**
 * The scope of a caller (its merchant and environment) or of anything stored in one (a record,
 * a task): the one way every module names the scope it reads and writes in.
 *
 * @since 0.1.0 @category constructors
 */
export const scopeOf = (of: { readonly merchant: { readonly id: string }; readonly environment: Environment } | Scope): Scope =>
  "merchant" in of ? { merchantId: of.merchant.id, environment: of.environment } : { merchantId: of.merchantId, environment: of.environment }

/**
 * Filters and position of a list page (4.3, D6). `where` matches fields exactly: a value,
 * or any of several values.
 *
 * @since 0.1.0 @category models
 */
export interface ListQuery<A extends StoredRecord> extends Scope {
  readonly where?: { readonly [K in keyof A & string]?: string | ReadonlyArray<string> | undefined } | undefined
  /** Inclusive, epoch ms. */
  readonly createdAfter?: number | undefined
  /** Exclusive, epoch ms. */
  readonly createdBefore?: number | undefined
  /** Keyset position: rows strictly after this one in (createdAt, id) descending order. */
  readonly after?: { readonly createdAt: number; readonly id: string } | undefined
  readonly limit: number
}

/**
 * A walk of a table in id order (`Storage.walk`): for host tools that visit every record, and for
 * the merchant directory, which belongs to no scope. `where` matches fields exactly.
 *
 * @since 0.1.0 @category models
 */
export interface WalkQuery<A extends BaseRecord> {
  readonly where?: { readonly [K in keyof A & string]?: string | boolean | undefined } | undefined
  /** Records with an id strictly after this one (ids compared by code point, `Table.compareIds`); null: from the first. */
  readonly after: string | null
  readonly limit: number
}

/**
 * The port every storage adapter implements.
 *
 * Reads (`get`, `find`, `list`) hand back records frozen with everything inside them
 * (`Table.freeze`) and never change one afterwards: a store may hand back the same object while
 * the record is unchanged, and a changed record is always a new object. Core keeps what it
 * derives from a record with the object (each read view's JSON text, `RenderedView`), so a store
 * that changed a record it had handed out would serve a stale answer.
 *
 * @since 0.1.0 @category tags
 */
export class Storage extends Context.Tag("@tender/core/Storage")<Storage, {
  readonly begin: (request: BeginRequest) => Effect.Effect<BeginOutcome, StorageError>
  /** Apply every write or none (see `Write` for each one's precondition). */
  readonly commit: (writes: ReadonlyArray<Write>) => Effect.Effect<void, StorageError>
  /** A record of `table` in `scope`; another merchant's or environment's is none (4.2). */
  readonly get: <A extends StoredRecord>(table: Table<A>, scope: Scope, id: string) => Effect.Effect<Option.Option<A>, StorageError>
  /**
   * A record of `table` by id alone, whatever its scope: for the library's own work on a
   * record it was told of by a provider, never for a merchant's request (use `get`).
   */
  readonly find: <A extends BaseRecord>(table: Table<A>, id: string) => Effect.Effect<Option.Option<A>, StorageError>
  /**
   * The record of an unscoped table (`Table.scoped` false) whose `field` holds `value`, where
   * `field` is the one field of one of the table's unique constraints: at most one record, found
   * by one index lookup (authentication finds a key by its public key on every request, D2).
   */
  readonly findBy: <A extends BaseRecord>(table: Table<A>, field: keyof A & string, value: string) => Effect.Effect<Option.Option<A>, StorageError>
  /**
   * At most `limit` records of `table` whose fields match `where`, with an id after `after`,
   * ascending by id (by code point, the order of their UTF-8 bytes: `Table.compareIds`), whatever their scope: the walk of a host tool, and the reads of
   * the merchant directory. Keep it an index range: on the primary key, or on a `where` field
   * the store indexes (the keys of a merchant's provider accounts by `merchantId`, the seeded API keys by `seeded`).
   */
  readonly walk: <A extends BaseRecord>(table: Table<A>, query: WalkQuery<A>) => Effect.Effect<ReadonlyArray<A>, StorageError>
  /** At most `limit` records, (createdAt, id) descending. */
  readonly list: <A extends StoredRecord>(table: Table<A>, query: ListQuery<A>) => Effect.Effect<ReadonlyArray<A>, StorageError>
  /**
   * Delete what no request can use any more: idempotency keys whose 24 hours are over
   * (`expiresAt <= now`), and merchant_reference claims that were never completed and whose
   * lock lapsed more than `Idempotency.claimGraceMillis` ago. Completed references are kept forever.
   * With `options`, also the records of each table of `options.cutoffs` past their retention
   * (`Table.retention`, docs/retention.md), and at most `options.limit` rows of each kind: one
   * bounded batch, which `Maintenance.purge` repeats.
   */
  readonly purgeExpired: (now: number, options?: PurgeOptions) => Effect.Effect<PurgeResult, StorageError>
  /**
   * The balance transactions' sums per currency (D12), sorted by currency: computed from the
   * stored transactions, never kept in a row every payment must lock.
   */
  readonly balances: (query: BalanceQuery) => Effect.Effect<ReadonlyArray<BalanceTotal>, StorageError>
}>() {}

/**
 * What one purge call deletes besides expired keys and lapsed claims, and how much at most.
 * Each table named is purged by its own `Table.retention` (which time field, which records are
 * kept), so an adapter reads what is due from the table and names no table of its own.
 *
 * @since 0.1.0 @category models
 */
export interface PurgeOptions {
  /** At most this many rows of each kind in this call (a positive integer); no bound when left out. */
  readonly limit?: number | undefined
  /** The tables to purge, each with the instant (epoch ms, exclusive) its records are due before; a table left out keeps every record. */
  readonly cutoffs?: ReadonlyArray<Cutoff> | undefined
}

/** One table's records due before `before` (its `retention` says which time and which records are kept). @since 0.1.0 @category models */
export interface Cutoff {
  readonly table: Table<any>
  readonly before: number
}

/** What `purgeExpired` deleted, by kind. @since 0.1.0 @category models */
export interface PurgeResult {
  readonly idempotencyKeys: number
  readonly referenceClaims: number
  /** Per table name of `PurgeOptions.cutoffs`: how many of its records went. */
  readonly records: { readonly [table: string]: number }
}
