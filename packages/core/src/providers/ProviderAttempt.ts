/**
 * A provider attempt (docs/reliability.md, "Lost provider answers"): a payment create Tender sent
 * to a provider whose answer it never got (a timeout, a reset connection, a 5xx after the request
 * went out). The provider may hold a payment for the intent that Tender does not know, so before
 * the create fails over to the next route the attempt is stored with a cancel task. The attempt
 * is never the intent's payment: one provider per intent, by design. The cancel task asks the
 * provider again with the same idempotency key (it answers with the payment it made, or makes
 * it), then cancels it; a payment the payer made anyway is D10's late payment of the intent,
 * refunded at that provider, whoever tells first (the cancel's answer or the provider's notice).
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Schema } from "effect"
import { sha256 } from "../requests/Canonical.js"
import type { IdGenerator } from "../resources/Ids.js"
import { Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Table from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import type { ProviderPaymentRequest, ProviderUnavailable } from "./Provider.js"

/** @since 0.1.0 @category constants */
export const idPrefix = "patt_"

/**
 * `open`: the provider may hold a payable payment; the cancel task is on it. `canceled`: the
 * provider holds nothing payable (canceled, declined, or never made). `paid`: the payer paid it;
 * refunded as a late payment (`refundId`). `adopted`: a later create at the same provider and
 * account got its answer (the same key, so the same payment): the intent's own. Nothing leaves
 * `canceled` but a payment reported later; nothing leaves `paid` or `adopted`.
 *
 * @since 0.1.0 @category models
 */
export const State = Schema.Literal("open", "canceled", "paid", "adopted").annotations({ identifier: "ProviderAttemptState" })
/** @since 0.1.0 @category models */
export type State = typeof State.Type

/** The stored attempt. @since 0.1.0 @category models */
export const ProviderAttemptRecord = Schema.Struct({
  ...Table.scopeFields,
  /** The payment intent it was made for. */
  paymentIntentId: Schema.String,
  /** The provider's code, as installed. */
  provider: Schema.String,
  /** The merchant's own account it went to (D13); null: the deployment's. */
  providerAccount: Table.OrNull(Schema.String),
  /** The key the provider deduplicates it by: the intent's id, the same on every call for it. */
  idempotencyKey: Schema.String,
  /** The request as sent, sent again as it was (the provider's idempotency compares bodies). */
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  state: State,
  /** The provider's id of the payment, once the provider or its notice names it. */
  providerPaymentId: Table.OrNull(Schema.String),
  /** The late-payment refund of a payment the payer made anyway. */
  refundId: Table.OrNull(Schema.String),
  /** The last thing learnt (the cancel's failure, why nothing was held), for the host's eyes. */
  detail: Table.OrNull(Schema.String),
  ...Table.changeFields
})
/** @since 0.1.0 @category models */
export type ProviderAttemptRecord = typeof ProviderAttemptRecord.Type

/** How attempts are kept: read by id alone, derived from what they are of. @since 0.1.0 @category models */
export const table = Table.make({ name: "provider_attempts", idPrefix, record: ProviderAttemptRecord })

/**
 * The id of the attempt of intent `paymentIntentId` at `provider` (and `account`): derived, so
 * a notice or a refund finds it without a query, and a second attempt at the same place is the
 * same record.
 *
 * @since 0.1.0 @category constructors
 */
export const idOf = (paymentIntentId: string, provider: string, account: string | null): string =>
  idPrefix + sha256(`${paymentIntentId}\u0000${provider}\u0000${account ?? ""}`).slice(0, 24)

/** A new open attempt of `request` at `provider`. @since 0.1.0 @category constructors */
export const make = (options: {
  readonly merchantId: string
  readonly provider: string
  readonly providerAccount: string | null
  readonly request: ProviderPaymentRequest
  readonly now: number
  readonly detail: string
}): ProviderAttemptRecord =>
  Table.construct(ProviderAttemptRecord, {
    id: idOf(options.request.paymentIntentId, options.provider, options.providerAccount),
    merchantId: options.merchantId,
    environment: options.request.environment,
    paymentIntentId: options.request.paymentIntentId,
    provider: options.provider,
    providerAccount: options.providerAccount,
    idempotencyKey: options.request.paymentIntentId,
    request: options.request as unknown as Record<string, unknown>,
    state: "open",
    detail: options.detail,
    createdAt: options.now,
    updatedAt: options.now,
    version: 1
  })

/** The attempt's request as the provider port takes it. @since 0.1.0 */
export const requestOf = (attempt: ProviderAttemptRecord): ProviderPaymentRequest => attempt.request as unknown as ProviderPaymentRequest

/**
 * Whether a refund of intent `intent` is the late-payment refund of one of its attempts: it goes
 * to another provider or account than the intent's own (a refund of the intent's own payment
 * always goes to the intent's, D13).
 *
 * @since 0.1.0
 */
export const refundsAttempt = (
  refund: { readonly providerCode: string | null; readonly providerAccount: string | null },
  intent: { readonly providerCode: string | null; readonly providerAccount: string | null }
): boolean => refund.providerCode !== null && (refund.providerCode !== intent.providerCode || refund.providerAccount !== intent.providerAccount)

/**
 * Remember an ambiguous create (`failure` may have acted: `mayHaveActed`) of `request` at `provider`: the attempt
 * and its cancel task, committed before the caller moves on to another route, so whatever
 * happens next (another route answers, none does, the process dies) the payment the provider may
 * hold is canceled. A second ambiguous create at the same place is the same attempt.
 *
 * @since 0.1.0
 */
export const remember = (
  merchantId: string,
  provider: string,
  providerAccount: string | null,
  request: ProviderPaymentRequest,
  failure: ProviderUnavailable
): Effect.Effect<void, StorageError, Storage | IdGenerator> =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const attempt = make({ merchantId, provider, providerAccount, request, now, detail: `no answer: ${failure.reason}` })
    const known = yield* storage.get(table, { merchantId, environment: request.environment }, attempt.id)
    if (Option.isSome(known)) return
    const task = yield* Task.make({ merchantId, environment: request.environment, kind: "provider_attempt.cancel", resourceId: attempt.id, dueAt: now, now })
    yield* storage.commit([Write.insert(table, attempt), Write.insert(Task.table, task)])
    yield* Effect.logWarning("tender: a provider's answer to a create was lost; the attempt is remembered and will be canceled", provider, attempt.id)
  }).pipe(
    // Two requests remembering one attempt at once: the other's record stands.
    Effect.catchIf((e) => e._tag === "UniqueViolation", () => Effect.void)
  )
