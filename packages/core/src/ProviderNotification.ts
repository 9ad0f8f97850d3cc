/**
 * Provider notifications (D11): the port an adapter implements to let a provider tell Tender that
 * a payment, refund or payout moved. The adapter verifies the provider's signature over the exact
 * request bytes and names what happened as `ProviderNotice`s; Tender stores each verified
 * notification once per provider event id and applies its notices as a task.
 *
 * @since 0.1.0
 */
import { Data, Schema } from "effect"
import { Environment } from "./Schemas.js"

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

