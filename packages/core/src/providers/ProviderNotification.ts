/**
 * Provider notifications (D11): the port an adapter implements to let a provider tell Tender that
 * a payment, refund or payout moved. The adapter verifies the provider's signature over the exact
 * request bytes and names what happened as `ProviderNotice`s; Tender stores each verified
 * notification once per provider event id and applies its notices as a task.
 *
 * @since 0.1.0
 */
import { Data, Schema } from "effect"
import { sha256 } from "../requests/Canonical.js"
import { Environment } from "../resources/Schemas.js"
import * as Table from "../storage/Table.js"

/** A provider's notification request as Tender received it. @since 0.1.0 @category models */
export interface ProviderNotificationRequest {
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The exact bytes received (no body parser touched them): signatures are over these. */
  readonly body: Uint8Array
}

const NullableString = Schema.NullOr(Schema.String)
const NullableEnvironment = Schema.NullOr(Environment)

/** The provider says a payment succeeded. Amounts in minor units as integer strings. @since 0.1.0 @category notices */
export const PaymentSucceeded = Schema.TaggedStruct("PaymentSucceeded", {
  eventId: Schema.String,
  providerPaymentId: Schema.String,
  /** Our `dord_` id where the provider echoes it (metadata, merchant reference). */
  paymentIntentId: NullableString,
  amount: NullableString,
  currency: NullableString,
  /** The provider's live/test flag, when it says. */
  environment: NullableEnvironment
})

/** The provider says the payer acted and the payment is settling. @since 0.1.0 @category notices */
export const PaymentProcessing = Schema.TaggedStruct("PaymentProcessing", {
  eventId: Schema.String,
  providerPaymentId: Schema.String,
  paymentIntentId: NullableString,
  environment: NullableEnvironment
})

/** The provider says a payment failed; `failureCode` is a D1 code the adapter mapped. @since 0.1.0 @category notices */
export const PaymentFailed = Schema.TaggedStruct("PaymentFailed", {
  eventId: Schema.String,
  providerPaymentId: Schema.String,
  paymentIntentId: NullableString,
  environment: NullableEnvironment,
  failureCode: Schema.String,
  failureMessage: Schema.String
})

/** The provider says a refund succeeded. @since 0.1.0 @category notices */
export const RefundSucceeded = Schema.TaggedStruct("RefundSucceeded", {
  eventId: Schema.String,
  /** Our `rfnd_` id where the provider echoes it. */
  refundId: NullableString,
  providerRefundId: Schema.String,
  providerPaymentId: NullableString,
  environment: NullableEnvironment
})

/** The provider says a refund failed. @since 0.1.0 @category notices */
export const RefundFailed = Schema.TaggedStruct("RefundFailed", {
  eventId: Schema.String,
  refundId: NullableString,
  providerRefundId: Schema.String,
  providerPaymentId: NullableString,
  environment: NullableEnvironment,
  failureCode: Schema.String,
  failureMessage: Schema.String
})

/** The provider says a payout was paid. @since 0.1.0 @category notices */
export const PayoutSucceeded = Schema.TaggedStruct("PayoutSucceeded", {
  eventId: Schema.String,
  /** Our `payout_` id where the provider echoes it (it is the provider's idempotency key). */
  payoutIntentId: NullableString,
  providerPayoutId: Schema.String,
  environment: NullableEnvironment
})

/** The provider says a payout failed. @since 0.1.0 @category notices */
export const PayoutFailed = Schema.TaggedStruct("PayoutFailed", {
  eventId: Schema.String,
  payoutIntentId: NullableString,
  providerPayoutId: Schema.String,
  environment: NullableEnvironment,
  failureCode: Schema.String,
  failureMessage: Schema.String
})

/** A verified event of a type Tender does not act on: answered, and stored for dedupe. @since 0.1.0 @category notices */
export const Ignored = Schema.TaggedStruct("Ignored", { eventId: Schema.String })

/** One thing the provider says happened. @since 0.1.0 @category notices */
export const ProviderNotice = Schema.Union(
  PaymentSucceeded,
  PaymentProcessing,
  PaymentFailed,
  RefundSucceeded,
  RefundFailed,
  PayoutSucceeded,
  PayoutFailed,
  Ignored
)
/** @since 0.1.0 @category notices */
export type ProviderNotice = typeof ProviderNotice.Type

/** The answer the provider expects for a verified notification (Stripe: 200 `{"received":true}`; Adyen: 200 `[accepted]`). @since 0.1.0 @category models */
export const NotificationAnswer = Schema.Struct({
  status: Schema.Int,
  contentType: Schema.String,
  body: Schema.String
})
/** @since 0.1.0 @category models */
export type NotificationAnswer = typeof NotificationAnswer.Type

/** What the adapter made of a verified request: its notices, and the answer the provider expects. @since 0.1.0 @category models */
export interface ParsedNotification {
  /** One per item the provider batched (Adyen), or one (Stripe). */
  readonly notices: ReadonlyArray<ProviderNotice>
  readonly answer: NotificationAnswer
}

/** The request could not be verified (bad or missing signature, unparsable body): 400 `signature_invalid`, nothing stored. @since 0.1.0 @category errors */
export class NotificationUnverified extends Data.TaggedError("NotificationUnverified")<{
  readonly provider: string
  readonly reason: string
}> {}

/** The answer most providers expect: 200 with a small JSON body. @since 0.1.0 @category models */
export const receivedAnswer: NotificationAnswer = {
  status: 200,
  contentType: "application/json",
  body: "{\"received\":true}"
}

// ---------------------------------------------------------------------------
// The stored notice
// ---------------------------------------------------------------------------

/** The id prefix of stored notices. @since 0.1.0 */
export const idPrefix = "pntf_"

/**
 * Where a stored notice stands. `received`: its task has not run yet; `applied`: it moved the
 * object it names; `unchanged`: the object was already past it (terminal, or out of order);
 * `unmatched`: Tender knows no such object (answered as received all the same, D11);
 * `mismatch`: the provider's amount or currency differs from the intent's, which stays as it is;
 * `ignored`: a verified event of a type Tender does not act on; `unusable`: it can never be
 * applied (its stored form is not one this version reads, applying it failed in a way no retry
 * mends, or it still failed after `Task.maxAttempts` attempts), `detail` says why: answered as
 * received all the same, it changed nothing, and the host looks at it (docs/reliability.md,
 * "Provider notices that cannot apply").
 *
 * @since 0.1.0 @category models
 */
export const Status = Schema.Literal("received", "applied", "unchanged", "unmatched", "mismatch", "ignored", "unusable")
/** @since 0.1.0 @category models */
export type Status = typeof Status.Type

/**
 * One notice as stored, once per (provider, provider event id). A notice of the deployment's
 * door belongs to no merchant (its `merchantId` is empty); one of a merchant's own account's door
 * (D13) belongs to that merchant. Its environment is the one the provider stated (`live` when it
 * did not); the object it moved is `resourceId`.
 *
 * @since 0.1.0 @category models
 */
export const NotificationRecord = Schema.Struct({
  ...Table.scopeFields,
  /** The provider's code, as installed. */
  provider: Schema.String,
  /**
   * The merchant's own account whose door it came in at (D13), verified with that account's
   * secret; null: the deployment's door. It moves only that account's objects.
   */
  providerAccount: Table.OrNull(Schema.String),
  /** The provider's own event id: a second delivery of it is the same notice. */
  eventId: Schema.String,
  notice: ProviderNotice,
  status: Status,
  /** The payment intent, refund or payout the notice matched, once its task ran. */
  resourceId: Table.OrNull(Schema.String),
  /** Why it was not applied (the mismatch, the unknown id, why it is unusable), for the host's eyes. */
  detail: Table.OrNull(Schema.String),
  /** `createdAt`: when it was received. */
  ...Table.changeFields
})
/** @since 0.1.0 @category models */
export type NotificationRecord = typeof NotificationRecord.Type

/** How stored notices are kept: unique per (provider, event id). @since 0.1.0 @category models */
export const table = Table.make({
  name: "provider_notifications",
  idPrefix,
  record: NotificationRecord,
  unique: [{ name: "provider_event", fields: ["provider", "eventId"] }]
})

/** Stored notices belong to no merchant. @since 0.1.0 */
export const noMerchant = ""

/**
 * The id of the notice `eventId` of `provider`: derived from both, so two processes storing the
 * same notice at once collide on the primary key in every store, whatever else they scope by.
 *
 * @since 0.1.0 @category constructors
 */
export const recordId = (provider: string, eventId: string): string => idPrefix + sha256(`${provider}\u0000${eventId}`).slice(0, 24)

/** Where a notice came in: the deployment's door (`null`), or a merchant's own account's (D13). @since 0.1.0 @category models */
export type Door = { readonly merchantId: string; readonly accountId: string } | null

/**
 * A newly received notice, with its environment as the provider stated it. Its id is the same at
 * every door: a provider event already stored through one account's door is not stored again
 * through another's.
 *
 * @since 0.1.0 @category constructors
 */
export const received = (provider: string, notice: ProviderNotice, now: number, door: Door = null): NotificationRecord =>
  Table.construct(NotificationRecord, {
    id: recordId(provider, notice.eventId),
    merchantId: door?.merchantId ?? noMerchant,
    providerAccount: door?.accountId ?? null,
    environment: ("environment" in notice ? notice.environment : null) ?? "live",
    provider,
    eventId: notice.eventId,
    notice,
    status: notice._tag === "Ignored" ? "ignored" : "received",
    ...Table.firstWrite(now)
  })
