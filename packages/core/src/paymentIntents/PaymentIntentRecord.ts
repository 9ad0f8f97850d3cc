/**
 * The stored payment intent (the record every adapter persists, its `table`) and the status
 * rules of 3.1 it keeps, exhaustive over the status union. `PaymentIntent` names every export
 * here too, one by one: a new one is added there.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { prefixes } from "../resources/Ids.js"
import * as StatusRules from "../resources/internal/statusRules.js"
import { CheckoutMode } from "../resources/Schemas.js"
import * as Table from "../storage/Table.js"
import { NextAction } from "./NextAction.js"
import { Customer, PaymentMethodOptions } from "./PaymentIntentRequest.js"

// ---------------------------------------------------------------------------
// Statuses and their rules (3.1)
// ---------------------------------------------------------------------------

/** The statuses of 3.1. @since 0.1.0 @category status */
export const Status = Schema.Literal("requires_action", "processing", "succeeded", "failed", "expired", "canceled")
  .annotations({ identifier: "PaymentIntentStatus" })
/** @since 0.1.0 @category status */
export type Status = typeof Status.Type
/** @since 0.1.0 @category status */
export const statuses: ReadonlyArray<Status> = Status.literals

/**
 * The transitions this library performs. The specification shows none; these are the
 * Stripe-like ones written down in docs/payment-intents.md.
 */
const transitions: StatusRules.Transitions<Status> = {
  // D10: cancel only from requires_action.
  requires_action: ["processing", "succeeded", "failed", "expired", "requires_action", "canceled"],
  processing: ["requires_action", "succeeded", "failed", "expired"],
  succeeded: [],
  failed: [],
  expired: [],
  canceled: []
}

/** Terminal statuses: no further transition, `next_action` null (3.1.3; D10 adds `canceled`). @since 0.1.0 @category status */
export const isTerminal: (status: Status) => boolean = StatusRules.terminal(transitions)

/** Whether this library moves an intent from `from` to `to` (docs/payment-intents.md). @since 0.1.0 @category status */
export const canTransition: (from: Status, to: Status) => boolean = StatusRules.allowed(transitions)

/**
 * The status a pending intent has: `requires_action` while there is a payer action (3.1.1),
 * `processing` when there is none (3.1.2).
 *
 * @since 0.1.0 @category status
 */
export const pendingStatus = (nextAction: NextAction | null): Status => nextAction === null ? "processing" : "requires_action"

/**
 * Every way `intent` breaks the rules of 3.1; empty when it keeps them. Checked before
 * any intent is written.
 *
 * @since 0.1.0 @category status
 */
export const invariantViolations = (intent: PaymentIntentRecord): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const hasFailure = intent.failureCode !== null || intent.failureMessage !== null
  switch (intent.status) {
    case "requires_action":
      if (intent.nextAction === null) problems.push("3.1.1 requires_action without next_action")
      if (hasFailure) problems.push("3.1.4 failure fields set without a failure")
      break
    case "processing":
      if (intent.nextAction !== null) problems.push("3.1.2 processing with a next_action")
      if (hasFailure) problems.push("3.1.4 failure fields set without a failure")
      break
    case "succeeded":
    case "expired":
    case "canceled":
      if (intent.nextAction !== null) problems.push("3.1.3 terminal intent with a next_action")
      if (hasFailure) problems.push("3.1.4 failure fields set without a failure")
      break
    case "failed":
      if (intent.nextAction !== null) problems.push("3.1.3 terminal intent with a next_action")
      if (intent.failureCode === null || intent.failureMessage === null) {
        problems.push("failed intent without failure_code and failure_message")
      }
      break
  }
  if (intent.status !== "canceled" && intent.cancellationReason !== null) {
    problems.push("D10 cancellation_reason set on an intent that is not canceled")
  }
  const refunded = BigInt(intent.amountRefunded)
  const pending = BigInt(intent.refundsPending)
  if (refunded < 0n || pending < 0n || refunded + pending > BigInt(intent.amount)) {
    problems.push("D10 pending and succeeded refunds add up to more than the amount")
  }
  if (intent.hostedAction !== null && (intent.checkoutMode !== "hosted" || intent.status !== "requires_action")) {
    problems.push("2.3 a hosted payer action on an intent that is not a hosted intent awaiting its payer")
  }
  if (intent.checkoutMode === "hosted" && intent.nextAction !== null && intent.nextAction.type !== "redirect_to_url") {
    problems.push("2.3 hosted intent with a next_action other than redirect_to_url")
  }
  return problems
}

// ---------------------------------------------------------------------------
// Storage record (domain model; adapters persist exactly this)
// ---------------------------------------------------------------------------

/**
 * Where a receipt stands (2.1): `required` while the method waits for payment evidence,
 * `submitted` once attached and sent to the provider, then `accepted` or `rejected`.
 *
 * @since 0.1.0 @category models
 */
export const ReceiptStatus = Schema.Literal("required", "submitted", "accepted", "rejected")
  .annotations({ identifier: "ReceiptStatus" })

/** A receipt of the intent (2.1): its status, and the asset submitted as evidence once there is one. @since 0.1.0 @category models */
export const Receipt = Schema.Struct({
  status: ReceiptStatus,
  asset_id: Schema.optional(Schema.String.annotations({ description: "The asset submitted (asst_…)" }))
}).annotations({ identifier: "Receipt" })
/** @since 0.1.0 @category models */
export type Receipt = typeof Receipt.Type

/** Why a payment intent was canceled (D10). @since 0.1.0 @category models */
export const CancellationReason = Schema.Literal("requested_by_customer", "duplicate", "abandoned")
  .annotations({ identifier: "CancellationReason" })
/** @since 0.1.0 @category models */
export type CancellationReason = typeof CancellationReason.Type

/** The stored payment intent, as every adapter stores it (`table`). Times are epoch milliseconds. @since 0.1.0 @category models */
export const PaymentIntentRecord = Schema.Struct({
  ...Table.scopeFields,
  amount: Table.AmountText,
  currency: Schema.String,
  country: Schema.String,
  checkoutMode: CheckoutMode,
  status: Status,
  merchantReference: Table.OrNull(Schema.String),
  paymentMethod: Table.OrNull(Schema.String),
  nextAction: Table.OrNull(NextAction),
  failureCode: Table.OrNull(Schema.String),
  failureMessage: Table.OrNull(Schema.String),
  processingReason: Table.OrNull(Schema.String),
  receipt: Table.OrNull(Receipt),
  customer: Customer,
  paymentMethodOptions: Table.OrNull(PaymentMethodOptions),
  returnUrl: Table.OrNull(Schema.String),
  deviceFingerprint: Table.OrNull(Schema.String),
  metadata: Table.OrNull(Schema.Record({ key: Schema.String, value: Schema.String })),
  externalReference: Table.OrNull(Schema.String),
  providerCode: Table.OrNull(Schema.String),
  /** The merchant's own account at the provider that took it (D13), for its whole life; null: the deployment's. */
  providerAccount: Table.OrNull(Schema.String),
  providerPaymentId: Table.OrNull(Schema.String),
  /**
   * A hosted intent's payer action at its provider (QR, bank instructions, a redirect to the
   * provider), shown inside the hosted page: 2.3 keeps `next_action` the page's own
   * `redirect_to_url` in hosted mode. Null until the payer chose and paid on the page, and
   * whenever no payer action remains (3.1.1-3.1.3 hold for it as for `next_action`).
   */
  hostedAction: Table.OrNull(NextAction),
  /** D10: why the intent was canceled; null unless `canceled`. */
  cancellationReason: Table.OrNull(CancellationReason),
  /** D10: the sum of succeeded refunds, minor units; "0" when none. */
  amountRefunded: Table.AmountFromZero,
  /**
   * D10: the sum of pending refunds, minor units. What is refundable is `amount` less this and
   * `amountRefunded`; a refund reserves its amount here in the same versioned write that inserts
   * it, so concurrent refunds never pass the amount in any store.
   */
  refundsPending: Table.AmountFromZero,
  ...Table.requestFields
})
/** @since 0.1.0 @category models */
export type PaymentIntentRecord = typeof PaymentIntentRecord.Type

/**
 * How payment intents are stored: every field of the record, and `merchant_reference`
 * unique per merchant and environment (4.9 merchant_reference rule 1, D4).
 *
 * @since 0.1.0 @category models
 */
export const table = Table.makeReferenced({ name: "payment_intents", idPrefix: prefixes.paymentIntent, record: PaymentIntentRecord })
