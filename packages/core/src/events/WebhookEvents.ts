/**
 * The closed catalogue of outbound webhook event types (6.1, D7), each with an example
 * payload. Served without authentication (4.11, 5.5).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { type FailureCode, failureMessages } from "../providers/internal/providerFailures.js"

/** Every event type (D7). Handlers switch exhaustively over this union. @since 0.1.0 */
export const EventType = Schema.Literal(
  "payment_intent.created",
  "payment_intent.requires_action",
  "payment_intent.processing",
  "payment_intent.succeeded",
  "payment_intent.failed",
  "payment_intent.expired",
  "payment_intent.receipt_submitted",
  "topup_intent.created",
  "topup_intent.succeeded",
  "topup_intent.failed",
  "topup_intent.expired",
  "payout_intent.created",
  "payout_intent.processing",
  "payout_intent.succeeded",
  "payout_intent.failed",
  "payout_intent.canceled",
  // D10, after D7's list.
  "payment_intent.canceled",
  "refund.created",
  "refund.succeeded",
  "refund.failed",
  // An endpoint whose every attempt failed for the stated time (docs/webhooks.md).
  "webhook_endpoint.disabled"
).annotations({ identifier: "EventType" })
/** @since 0.1.0 */
export type EventType = typeof EventType.Type

const at = "2026-11-22T08:15:30.123Z"

const paymentIntent = (status: string, extra: Record<string, unknown> = {}) => ({
  object: "payment_intent",
  id: "dord_3kT9qL2mXw8ZbR4nV7cY1pHs",
  amount: "150000",
  currency: "THB",
  country: "TH",
  environment: "test",
  checkout_mode: "merchant",
  status,
  merchant_reference: "order_1042",
  payment_method: "th_promptpay",
  next_action: null,
  failure_code: null,
  failure_message: null,
  cancellation_reason: null,
  amount_refunded: "0",
  processing_reason: null,
  receipt: null,
  created_at: at,
  updated_at: at,
  ...extra
})

// The worked example of docs/topups.md: 100 USDT credited, paid in THB by bank transfer and receipt.
const topupIntent = (status: string, extra: Record<string, unknown> = {}) => ({
  object: "topup_intent",
  id: "tuin_8fJ2kQ9wLm3XcV5bN1rT7yZa",
  status,
  environment: "test",
  merchant_reference: "topup_15",
  country: "TH",
  destination: { amount: "100000000", credited_amount: status === "succeeded" ? "100000000" : "0", currency: "USDT", merchant_id: "mch_demo" },
  source: {
    type: "manual_receipt",
    amount: "367942",
    currency: "THB",
    expires_at: "2026-11-22T09:15:30.123Z",
    fee_amount: "3626",
    fee_mode: "absorbed",
    provider: "simulator"
  },
  fx: { source_currency: "THB", destination_currency: "USDT", rate: "0.027586", spread_amount: "1813" },
  next_action: null,
  receipt: { status: status === "succeeded" ? "accepted" : status === "failed" ? "rejected" : "required" },
  expires_at: "2026-11-22T09:15:30.123Z",
  failure_code: null,
  failure_message: null,
  created_at: at,
  updated_at: at,
  ...extra
})

const topupInstructions = {
  next_action: {
    type: "display_bank_transfer_instructions",
    bank_code: "KBANK",
    bank_name: "Kasikornbank",
    account_number: "0471234567",
    account_name: "Tender Simulator Co., Ltd.",
    reference: "8F2A51C9D03B",
    amount: "367942",
    currency: "THB",
    expires_at: "2026-11-22T09:15:30.123Z",
    requires_receipt: true
  }
}

const payoutIntent = (status: string, extra: Record<string, unknown> = {}) => ({
  object: "payout_intent",
  id: "pout_5Hn7Rt2Kq9WzLm4Xc8Vb1Ny3",
  environment: "test",
  status,
  amount: "500000",
  currency: "THB",
  merchant_reference: "payout_77",
  destination: { type: "bank_account", bank: "KBANK", account_number: "******6789", account_name: "Somchai Jaidee" },
  description: "November supplier settlement",
  failure_code: null,
  failure_message: null,
  created_at: at,
  updated_at: at,
  ...extra
})

const refund = (status: string, extra: Record<string, unknown> = {}) => ({
  object: "refund",
  id: "rfnd_7Kq2Wz9Lm4Xc8Vb1Ny3Hn5Rt",
  environment: "test",
  payment_intent: "dord_3kT9qL2mXw8ZbR4nV7cY1pHs",
  amount: "50000",
  currency: "THB",
  status,
  reason: "requested_by_customer",
  merchant_reference: "refund_1042_1",
  destination: null,
  failure_code: null,
  failure_message: null,
  metadata: null,
  created_at: at,
  updated_at: at,
  ...extra
})

const webhookEndpoint = {
  object: "webhook_endpoint",
  id: "we_4Rt8Kq2Wz6Lc9Vb3Ny5HXm1Q",
  url: "https://hooks.example.com/tender",
  description: null,
  enabled_events: ["*"],
  status: "disabled",
  environment: "test",
  created_at: at
}

/** A failure as an event's object shows it, from Tender's one list. */
const failed = (code: FailureCode) => ({ failure_code: code, failure_message: failureMessages[code] })

const examples: Record<EventType, { readonly description: string; readonly object: unknown }> = {
  "payment_intent.created": {
    description: "A payment intent was created.",
    object: paymentIntent("requires_action", { next_action: { type: "display_qr_code", qr_data: "00020101021229370016A000000677010111…6304ABCD" } })
  },
  "payment_intent.requires_action": {
    description: "The payer must act: see next_action.",
    object: paymentIntent("requires_action", { next_action: { type: "display_qr_code", qr_data: "00020101021229370016A000000677010111…6304ABCD" } })
  },
  "payment_intent.processing": {
    description: "The payment is pending at the provider with no payer action.",
    object: paymentIntent("processing", { processing_reason: "asynchronous" })
  },
  "payment_intent.succeeded": { description: "The payment succeeded (terminal).", object: paymentIntent("succeeded") },
  "payment_intent.failed": { description: "The payment failed (terminal).", object: paymentIntent("failed", failed("payment_declined")) },
  "payment_intent.expired": { description: "The payer did not complete in time (terminal).", object: paymentIntent("expired") },
  "payment_intent.receipt_submitted": {
    description: "A receipt was attached and submitted to the provider.",
    object: paymentIntent("processing", { payment_method: "th_bank_transfer", receipt: { status: "submitted" }, processing_reason: "asynchronous" })
  },
  "payment_intent.canceled": {
    description: "The payment intent was canceled before it was paid (terminal, D10).",
    object: paymentIntent("canceled", { cancellation_reason: "requested_by_customer" })
  },
  "topup_intent.created": {
    description: "A top-up intent was created and awaits payment: see next_action.",
    object: topupIntent("requires_payment", topupInstructions)
  },
  "topup_intent.succeeded": { description: "The top-up was paid and credited (terminal).", object: topupIntent("succeeded") },
  "topup_intent.failed": {
    description: "The top-up failed (terminal).",
    object: topupIntent("failed", failed("receipt_rejected"))
  },
  "topup_intent.expired": { description: "The top-up was not paid in time (terminal).", object: topupIntent("expired") },
  "payout_intent.created": { description: "A payout intent was created and awaits approval.", object: payoutIntent("requires_approval") },
  "payout_intent.processing": { description: "The payout was approved and is being sent.", object: payoutIntent("processing") },
  "payout_intent.succeeded": { description: "The payout arrived (terminal).", object: payoutIntent("succeeded") },
  "payout_intent.failed": {
    description: "The payout failed (terminal).",
    object: payoutIntent("failed", failed("account_closed"))
  },
  "payout_intent.canceled": { description: "The payout was canceled before approval (terminal).", object: payoutIntent("canceled") },
  "refund.created": { description: "A refund was created and is pending at the provider (D10).", object: refund("pending") },
  "refund.succeeded": { description: "The refund reached the payer (terminal, D10).", object: refund("succeeded") },
  "refund.failed": {
    description: "The refund failed; its amount is refundable again (terminal, D10).",
    object: refund("failed", failed("refund_failed"))
  },
  "webhook_endpoint.disabled": {
    description: "Every delivery to the endpoint failed for the stated time, so it was disabled; enable it again with POST /webhook_endpoints/{id}/enable.",
    object: webhookEndpoint
  }
}

/** One catalogue entry: the type, what it means, and an example event envelope (D7). @since 0.1.0 */
export const EventTypeEntry = Schema.Struct({
  type: EventType,
  description: Schema.String,
  example: Schema.Struct({
    object: Schema.Literal("event"),
    id: Schema.String,
    type: EventType,
    environment: Schema.Literal("test", "live"),
    created_at: Schema.String,
    data: Schema.Struct({ object: Schema.Unknown })
  })
}).annotations({ identifier: "WebhookEventType" })

/** GET /webhook_event_types response. @since 0.1.0 */
export const Catalogue = Schema.Struct({ data: Schema.Array(EventTypeEntry) }).annotations({ identifier: "WebhookEventTypes" })

/** The static catalogue, in the order of D7. @since 0.1.0 */
export const catalogue: typeof Catalogue.Type = {
  data: EventType.literals.map((type, i) => ({
    type,
    description: examples[type].description,
    example: {
      object: "event" as const,
      id: `evt_${String(i + 1).padStart(2, "0")}Xm4Qk8Rt2Wz6Lc9Vb3Ny5H`,
      type,
      environment: "test" as const,
      created_at: at,
      data: { object: examples[type].object }
    }
  }))
}
