/**
 * The payment intent: its wire shape (2.1), as get, list and create return it. Its create
 * request (2.2) is `PaymentIntentRequest`, its stored record and the status rules of 3.1 are
 * `PaymentIntentRecord`, where each is told in full; their names are exported here too, so
 * `PaymentIntent.CreateParams`, `PaymentIntent.table` and `PaymentIntent.canTransition` keep
 * their names.
 *
 * @since 0.1.0
 */
import { Schema, Struct } from "effect"
import * as WireShape from "../resources/internal/wireShape.js"
import * as RenderedView from "../resources/RenderedView.js"
import { Amount, CheckoutMode, Country, Currency, Environment } from "../resources/Schemas.js"
import { NextAction } from "./NextAction.js"
import * as IntentRecord from "./PaymentIntentRecord.js"
import * as IntentRequest from "./PaymentIntentRequest.js"

// ---------------------------------------------------------------------------
// The stored record and the status rules of 3.1 (`PaymentIntentRecord`, where each is told in full)
// ---------------------------------------------------------------------------

/** The statuses of 3.1. @since 0.1.0 @category status */
export const Status = IntentRecord.Status
/** @since 0.1.0 @category status */
export type Status = IntentRecord.Status
/** Every status of 3.1. @since 0.1.0 @category status */
export const statuses = IntentRecord.statuses
/** Terminal statuses: no further transition, `next_action` null (3.1.3; D10 adds `canceled`). @since 0.1.0 @category status */
export const isTerminal = IntentRecord.isTerminal
/** Whether this library moves an intent from `from` to `to` (docs/payment-intents.md). @since 0.1.0 @category status */
export const canTransition = IntentRecord.canTransition
/** The status a pending intent has: `requires_action` while there is a payer action (3.1.1), else `processing` (3.1.2). @since 0.1.0 @category status */
export const pendingStatus = IntentRecord.pendingStatus
/** Every way `intent` breaks the rules of 3.1; empty when it keeps them. Checked before any intent is written. @since 0.1.0 @category status */
export const invariantViolations = IntentRecord.invariantViolations
/** Where a receipt stands (2.1): `required`, `submitted`, then `accepted` or `rejected`. @since 0.1.0 @category models */
export const ReceiptStatus = IntentRecord.ReceiptStatus
/** A receipt of the intent (2.1): its status, and the asset submitted as evidence once there is one. @since 0.1.0 @category models */
export const Receipt = IntentRecord.Receipt
/** @since 0.1.0 @category models */
export type Receipt = IntentRecord.Receipt
/** Why a payment intent was canceled (D10). @since 0.1.0 @category models */
export const CancellationReason = IntentRecord.CancellationReason
/** @since 0.1.0 @category models */
export type CancellationReason = IntentRecord.CancellationReason
/** The stored payment intent, as every adapter stores it (`table`). Times are epoch milliseconds. @since 0.1.0 @category models */
export const PaymentIntentRecord = IntentRecord.PaymentIntentRecord
/** @since 0.1.0 @category models */
export type PaymentIntentRecord = IntentRecord.PaymentIntentRecord
/** How payment intents are stored: `merchant_reference` unique per merchant and environment (4.9, D4). @since 0.1.0 @category models */
export const table = IntentRecord.table

// ---------------------------------------------------------------------------
// The create request of 2.2 (`PaymentIntentRequest`, where each is told in full)
// ---------------------------------------------------------------------------

/** Payer identity and contact details. @since 0.1.0 @category request */
export const Customer = IntentRequest.Customer
/** @since 0.1.0 @category request */
export type Customer = IntentRequest.Customer
/** Route-specific payer data (2.2), a namespace apart from `customer`. @since 0.1.0 @category request */
export const PaymentMethodOptions = IntentRequest.PaymentMethodOptions
/** @since 0.1.0 @category request */
export type PaymentMethodOptions = IntentRequest.PaymentMethodOptions
/** Free-form merchant data: at most 50 keys of up to 40 characters, values up to 500. @since 0.1.0 @category request */
export const Metadata = IntentRequest.Metadata
/** An absolute http(s) URL with no control character, checked as given (4.1.4). @since 0.1.0 @category request */
export const ReturnUrl = IntentRequest.ReturnUrl
/** Method codes as discovery returns them. @since 0.1.0 @category request */
export const MethodCode = IntentRequest.MethodCode
/** POST /payment_intents body (2.2). Unknown fields are rejected. @since 0.1.0 @category request */
export const CreateParams = IntentRequest.CreateParams
/** @since 0.1.0 @category request */
export type CreateParams = IntentRequest.CreateParams

// ---------------------------------------------------------------------------
// Wire shape (2.1)
// ---------------------------------------------------------------------------

const wire = WireShape.of<PaymentIntentRecord>().make({
  object: WireShape.constant("payment_intent"),
  id: Schema.String.annotations({ description: "Begins with dord_" }),
  amount: Amount,
  currency: Currency,
  country: Country,
  environment: Environment,
  checkout_mode: CheckoutMode,
  status: Status,
  merchant_reference: Schema.NullOr(Schema.String),
  payment_method: Schema.NullOr(Schema.String),
  next_action: Schema.NullOr(NextAction),
  ...WireShape.failure,
  cancellation_reason: Schema.NullOr(CancellationReason),
  amount_refunded: Schema.String.annotations({ description: "D10: the sum of succeeded refunds, minor units; \"0\" when none" }),
  processing_reason: Schema.NullOr(Schema.String),
  receipt: Schema.NullOr(Receipt),
  ...WireShape.times
})

/** The payment intent as get, list and receipt return it (2.1). @since 0.1.0 @category wire */
export const PaymentIntent = wire.schema.annotations({ identifier: "PaymentIntent" })
/** @since 0.1.0 @category wire */
export type PaymentIntent = typeof PaymentIntent.Type

/** The create response: neither `processing_reason` nor `receipt` (2.1). @since 0.1.0 @category wire */
export const PaymentIntentCreated = Schema.Struct(Struct.omit(PaymentIntent.fields, "processing_reason", "receipt"))
  .annotations({ identifier: "PaymentIntentCreated" })
/** @since 0.1.0 @category wire */
export type PaymentIntentCreated = typeof PaymentIntentCreated.Type

/** The read view (get, list). @since 0.1.0 @category wire */
export const toResource: (r: PaymentIntentRecord) => PaymentIntent = wire.render

/** The read view as JSON text, rendered once per record a store handed back (`RenderedView`). @since 0.1.0 @category wire */
export const toResourceJson: (r: PaymentIntentRecord) => string = RenderedView.json(toResource)

/** The create view: the read view less `processing_reason` and `receipt` (2.1). @since 0.1.0 @category wire */
export const toCreatedResource = (r: PaymentIntentRecord): PaymentIntentCreated => {
  const { processing_reason: _p, receipt: _r, ...rest } = toResource(r)
  return rest
}
