/** The payment intents group (4.1-4.5, D10): one module per group, assembled in `Api.ts`. */
import { OpenApi } from "@effect/platform"
import { PaymentIntent, PaymentIntentCancel, PaymentIntents } from "@tender/core"
import { Schema } from "effect"
import {
  action,
  authenticated,
  CheckoutModeNotAllowed,
  create,
  FileUpload,
  group,
  IdempotencyConflict,
  IdempotencyHeaders,
  list,
  PayloadTooLarge,
  PaymentConfigurationUnavailable,
  PaymentIntentUnexpectedState,
  ReceiptByAsset,
  retrieve,
  RoutingUnavailable
} from "./shared.js"

/** Payment intents (4.1-4.5). @since 0.1.0 */
export class PaymentIntentsGroup extends group("paymentIntents", "Payment intents: create, retrieve, list, confirm, receipts (4.1-4.5) and cancel (D10).")
  .add(
    create("/payment_intents", "Create a payment intent", {
      payload: PaymentIntent.CreateParams,
      headers: IdempotencyHeaders,
      success: PaymentIntent.PaymentIntentCreated,
      identifier: "PaymentIntentCreated",
      created: "The intent, created",
      original: "The original intent: a repeated create with the same merchant_reference and fields (4.9)"
    })
      .addError(CheckoutModeNotAllowed)
      .addError(IdempotencyConflict)
      .addError(PaymentConfigurationUnavailable)
      .addError(RoutingUnavailable)
  )
  .add(retrieve("/payment_intents/:id", "Retrieve a payment intent", PaymentIntent.PaymentIntent))
  .add(
    list("/payment_intents", "List payment intents", PaymentIntents.ListParams, PaymentIntent.PaymentIntent, "PaymentIntentList")
  )
  .add(
    // 4.5, D3: the body is `{}` or absent; the outcome arrives later (3.1.6).
    action("confirm", "/payment_intents/:id/confirm", "Confirm a payment intent", PaymentIntent.PaymentIntent)
      .addError(PaymentIntentUnexpectedState)
  )
  .add(
    // 4.4: JSON `{asset_id}`, or the file itself (multipart, part `file`, Idempotency-Key required).
    action("receipt", "/payment_intents/:id/receipt", "Attach a receipt to a payment intent", PaymentIntent.PaymentIntent)
      .setPayload(Schema.Union(ReceiptByAsset, FileUpload))
      .addError(PaymentIntentUnexpectedState)
      .addError(PayloadTooLarge)
  )
  .add(
    // D10: the body is `{}`, absent, or `{cancellation_reason}`.
    action("cancel", "/payment_intents/:id/cancel", "Cancel a payment intent", PaymentIntent.PaymentIntent)
      .annotate(OpenApi.Description, "Only while requires_action; the provider is told durably, and a payment it reports later is refunded (D10).")
      // D10 allows the body absent (the handler is raw for it): the document must not require one.
      .annotate(OpenApi.Transform, (op) => ({ ...op, requestBody: { ...op.requestBody, required: false } }))
      .setPayload(PaymentIntentCancel.CancelParams)
      .addError(PaymentIntentUnexpectedState)
  )
  .pipe(authenticated)
{}
