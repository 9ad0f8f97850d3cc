/**
 * The payment intent: its wire shape (2.1), as get, list and create return it. Its create
 * request (2.2) is `PaymentIntentRequest`, its stored record and the status rules of 3.1 are
 * `PaymentIntentRecord`; both are re-exported here, so `PaymentIntent.CreateParams`,
 * `PaymentIntent.table` and `PaymentIntent.canTransition` keep their names.
 *
 * @since 0.1.0
 */
import { Schema, Struct } from "effect"
import * as WireShape from "../resources/internal/wireShape.js"
import * as RenderedView from "../resources/RenderedView.js"
import { Amount, CheckoutMode, Country, Currency, Environment } from "../resources/Schemas.js"
import { NextAction } from "./NextAction.js"
import type { PaymentIntentRecord } from "./PaymentIntentRecord.js"
import { CancellationReason, Receipt, Status } from "./PaymentIntentRecord.js"

/** The stored record and the status rules of 3.1. @since 0.1.0 */
export * from "./PaymentIntentRecord.js"
/** The create request of 2.2. @since 0.1.0 */
export * from "./PaymentIntentRequest.js"

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
