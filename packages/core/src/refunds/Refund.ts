/**
 * The refund (D10): money given back from a succeeded payment. Its wire shape, create request,
 * storage record and status rules, exhaustive over the status union, and the never-more-than-paid
 * rule as pure functions over the payment intent's refund counters.
 *
 * @since 0.1.0
 */
import { Either, Schema } from "effect"
import { Destination, maskDestination, MaskedDestination } from "../balances/PayoutIntent.js"
import type { PaymentIntentRecord } from "../paymentIntents/PaymentIntent.js"
import { Metadata } from "../paymentIntents/PaymentIntent.js"
import { prefixes } from "../resources/Ids.js"
import * as StatusRules from "../resources/internal/statusRules.js"
import * as WireShape from "../resources/internal/wireShape.js"
import { Amount, Currency, Environment, MerchantReference, withMessage } from "../resources/Schemas.js"
import * as Table from "../storage/Table.js"

// ---------------------------------------------------------------------------
// Statuses (D10)
// ---------------------------------------------------------------------------

/** The statuses of D10. @since 0.1.0 @category status */
export const Status = Schema.Literal("pending", "succeeded", "failed").annotations({ identifier: "RefundStatus" })
/** @since 0.1.0 @category status */
export type Status = typeof Status.Type

/** D10: `pending` → `succeeded` | `failed`; nothing after. @since 0.1.0 @category status */
export const canTransition: (from: Status, to: Status) => boolean = StatusRules.allowed<Status>({
  pending: ["succeeded", "failed"],
  succeeded: [],
  failed: []
})

/** The event a refund emits when it enters a status (D10). @since 0.1.0 @category status */
export const statusEvent = (status: Status) => {
  switch (status) {
    case "pending":
      return "refund.created" as const
    case "succeeded":
      return "refund.succeeded" as const
    case "failed":
      return "refund.failed" as const
  }
}

/** The reasons a merchant may give (D10). @since 0.1.0 @category request */
export const RequestReason = Schema.Literal("requested_by_customer", "duplicate", "fraudulent")

/** Every reason a refund may carry: the merchant's, or `late_payment`, which Tender sets itself (D10 cancel). @since 0.1.0 @category models */
export const Reason = Schema.Literal("requested_by_customer", "duplicate", "fraudulent", "late_payment")
  .annotations({ identifier: "RefundReason" })
/** @since 0.1.0 @category models */
export type Reason = typeof Reason.Type

// ---------------------------------------------------------------------------
// Create request (D10)
// ---------------------------------------------------------------------------

/** POST /refunds body (D10). Unknown fields are rejected. @since 0.1.0 @category request */
export const CreateParams = Schema.Struct({
  payment_intent: withMessage(
    Schema.String.pipe(Schema.pattern(/^dord_[0-9A-Za-z]{24}$/)),
    "must be a payment intent id: dord_ followed by 24 letters and digits"
  ),
  amount: Schema.optional(Amount),
  reason: Schema.optional(RequestReason),
  merchant_reference: Schema.optional(MerchantReference),
  metadata: Schema.optional(Metadata),
  destination: Schema.optional(Destination)
}).annotations({ identifier: "RefundCreateParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type CreateParams = typeof CreateParams.Type

// ---------------------------------------------------------------------------
// Storage record
// ---------------------------------------------------------------------------

/** The stored refund: the destination's account number in full (masked in every response). @since 0.1.0 @category models */
export const RefundRecord = Schema.Struct({
  ...Table.scopeFields,
  paymentIntentId: Schema.String,
  amount: Table.AmountText,
  currency: Schema.String,
  status: Status,
  reason: Table.OrNull(Reason),
  merchantReference: Table.OrNull(Schema.String),
  destination: Table.OrNull(Destination),
  metadata: Table.OrNull(Schema.Record({ key: Schema.String, value: Schema.String })),
  ...Table.providerFields,
  ...Table.requestFields
})
/** @since 0.1.0 @category models */
export type RefundRecord = typeof RefundRecord.Type

/** How refunds are stored: `merchant_reference` unique per merchant and environment among refunds (D10). @since 0.1.0 @category models */
export const table = Table.makeReferenced({ name: "refunds", idPrefix: prefixes.refund, record: RefundRecord })

// ---------------------------------------------------------------------------
// Wire shape (D10)
// ---------------------------------------------------------------------------

const fields = WireShape.of<RefundRecord>()
const wire = fields.make({
  ...WireShape.identity("refund", table.idPrefix),
  environment: Environment,
  payment_intent: fields.computed(
    Schema.String.annotations({ description: "The refunded payment intent (dord_…)" }),
    (r) => r.paymentIntentId
  ),
  amount: Amount,
  currency: Currency,
  status: Status,
  reason: Schema.NullOr(Reason),
  merchant_reference: Schema.NullOr(Schema.String),
  destination: fields.computed(Schema.NullOr(MaskedDestination), (r) => r.destination === null ? null : maskDestination(r.destination)),
  ...WireShape.failure,
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })),
  ...WireShape.times
})

/** The refund of D10. @since 0.1.0 @category wire */
export const Refund = wire.schema.annotations({ identifier: "Refund" })
/** @since 0.1.0 @category wire */
export type Refund = typeof Refund.Type

/** @since 0.1.0 @category wire */
export const toResource: (r: RefundRecord) => Refund = wire.render

// ---------------------------------------------------------------------------
// Never more than paid (D10)
// ---------------------------------------------------------------------------

/** What is still refundable: the amount less pending and succeeded refunds (D10). @since 0.1.0 */
export const refundable = (intent: Pick<PaymentIntentRecord, "amount" | "amountRefunded" | "refundsPending">): bigint =>
  BigInt(intent.amount) - BigInt(intent.amountRefunded) - BigInt(intent.refundsPending)

/**
 * Reserve `amount` (default: all that is refundable) on the payment intent: the intent as it is
 * with the refund pending, or the refundable remainder when the refund would pass it. The caller
 * writes the result with the version it read, so two refunds that read the same intent cannot
 * both commit: the store's versioned update is what makes the rule hold under concurrency.
 *
 * @since 0.1.0
 */
export const reserve = (
  intent: PaymentIntentRecord,
  amount: string | undefined,
  now: number
): Either.Either<{ readonly intent: PaymentIntentRecord; readonly amount: string }, { readonly refundable: bigint }> => {
  const left = refundable(intent)
  const wanted = amount === undefined ? left : BigInt(amount)
  if (wanted <= 0n || wanted > left) return Either.left({ refundable: left })
  return Either.right({
    amount: wanted.toString(),
    intent: {
      ...intent,
      refundsPending: (BigInt(intent.refundsPending) + wanted).toString(),
      updatedAt: Math.max(now, intent.updatedAt),
      version: intent.version + 1
    }
  })
}

/**
 * The intent once a pending refund of `amount` settles: `succeeded` moves it to
 * `amount_refunded`; `failed` gives it back to what is refundable (D10).
 *
 * @since 0.1.0
 */
export const settle = (intent: PaymentIntentRecord, amount: string, outcome: "succeeded" | "failed", now: number): PaymentIntentRecord => ({
  ...intent,
  refundsPending: (BigInt(intent.refundsPending) - BigInt(amount)).toString(),
  amountRefunded: outcome === "succeeded" ? (BigInt(intent.amountRefunded) + BigInt(amount)).toString() : intent.amountRefunded,
  updatedAt: Math.max(now, intent.updatedAt),
  version: intent.version + 1
})
