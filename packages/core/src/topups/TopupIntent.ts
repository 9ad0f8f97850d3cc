/**
 * The top-up intent (2.5, 3.2): money a payer sends so that a merchant is credited a
 * destination amount in a destination currency. Its wire shape, create request, storage
 * record and status rules, exhaustive over the status union (docs/topups.md).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { EventType } from "../events/WebhookEvents.js"
import { DisplayBankTransferInstructions } from "../paymentIntents/NextAction.js"
import { prefixes } from "../resources/Ids.js"
import * as StatusRules from "../resources/internal/statusRules.js"
import * as WireShape from "../resources/internal/wireShape.js"
import { Amount, Country, Currency, Environment, formatTimestamp, MerchantReference, Timestamp, withMessage } from "../resources/Schemas.js"
import * as Table from "../storage/Table.js"

// ---------------------------------------------------------------------------
// Statuses (3.2; the rest settled in docs/payment-lifecycle.md)
// ---------------------------------------------------------------------------

/**
 * `requires_payment` (3.2) while the payer must pay; `processing` while a submitted receipt
 * is reviewed; then `succeeded` (credited), `failed` or `expired`, all terminal.
 *
 * @since 0.1.0 @category status
 */
export const Status = Schema.Literal("requires_payment", "processing", "succeeded", "failed", "expired")
  .annotations({ identifier: "TopupIntentStatus" })
/** @since 0.1.0 @category status */
export type Status = typeof Status.Type

/**
 * The transitions: a payment seen, refused or timed out ends `requires_payment`; a receipt
 * moves it to `processing`, which only the provider's verdict ends (a receipt under review
 * does not expire).
 */
const transitions: StatusRules.Transitions<Status> = {
  requires_payment: ["processing", "succeeded", "failed", "expired"],
  processing: ["succeeded", "failed"],
  succeeded: [],
  failed: [],
  expired: []
}

/** Terminal statuses: nothing changes after them. @since 0.1.0 @category status */
export const isTerminal: (status: Status) => boolean = StatusRules.terminal(transitions)

/** Whether a top-up may move from `from` to `to`. @since 0.1.0 @category status */
export const canTransition: (from: Status, to: Status) => boolean = StatusRules.allowed(transitions)

/**
 * The event a status emits when a top-up enters it (D7). `processing` has none: the closed
 * catalogue of D7 names no `topup_intent.processing`.
 *
 * @since 0.1.0 @category status
 */
export const statusEvents = (status: Status): ReadonlyArray<EventType> => {
  switch (status) {
    case "requires_payment":
      return ["topup_intent.created"]
    case "processing":
      return []
    case "succeeded":
      return ["topup_intent.succeeded"]
    case "failed":
      return ["topup_intent.failed"]
    case "expired":
      return ["topup_intent.expired"]
  }
}

// ---------------------------------------------------------------------------
// Create request (2.5)
// ---------------------------------------------------------------------------

/** `source.type` values (2.5). @since 0.1.0 @category request */
export const SourceType = withMessage(
  Schema.Literal("test_funding", "manual_receipt", "provider_gateway"),
  "must be one of: test_funding, manual_receipt, provider_gateway"
).annotations({ identifier: "TopupSourceType" })
/** @since 0.1.0 @category request */
export type SourceType = typeof SourceType.Type

/** `fee_mode` (2.5): `absorbed`, the fee is absorbed into the source amount. @since 0.1.0 @category request */
export const FeeMode = Schema.Literal("absorbed")

/** The provider code of a source. @since 0.1.0 @category request */
export const ProviderCode = withMessage(Schema.String.pipe(Schema.pattern(/^[a-z0-9_]{1,64}$/)), "must be an installed provider's code")

/**
 * POST /topup_intents body (2.5). `source.currency` picks among a provider's currencies for
 * the source type (default: the first it offers); `merchant_reference` and `country` are
 * optional and filter the list (4.8). Unknown fields are rejected.
 *
 * @since 0.1.0 @category request
 */
export const CreateParams = Schema.Struct({
  destination_amount: Amount,
  destination_currency: Currency,
  source: Schema.Struct({
    type: SourceType,
    provider: Schema.optional(ProviderCode),
    currency: Schema.optional(Currency)
  }).annotations({ parseOptions: { onExcessProperty: "error" } }),
  merchant_reference: Schema.optional(MerchantReference),
  country: Schema.optional(Country)
}).annotations({ identifier: "TopupIntentCreateParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type CreateParams = typeof CreateParams.Type

// ---------------------------------------------------------------------------
// next_action (2.5)
// ---------------------------------------------------------------------------

/** Pay a crypto deposit address (2.5). @since 0.1.0 @category wire */
export const DisplayCryptoPaymentInstructions = Schema.Struct({
  type: Schema.Literal("display_crypto_payment_instructions"),
  address: Schema.String,
  amount: Schema.String.annotations({ description: "Source minor units (the token's smallest unit)" }),
  currency: Schema.String,
  network: Schema.String,
  expires_at: Timestamp
}).annotations({ identifier: "DisplayCryptoPaymentInstructions" })

/** A top-up's payer action: a crypto deposit, or a bank transfer proved by a receipt. @since 0.1.0 @category wire */
export const NextAction = Schema.Union(DisplayCryptoPaymentInstructions, DisplayBankTransferInstructions)
  .annotations({ identifier: "TopupNextAction" })
/** @since 0.1.0 @category wire */
export type NextAction = typeof NextAction.Type

/** A `manual_receipt` top-up's receipt. @since 0.1.0 @category models */
export const Receipt = Schema.Struct({
  status: Schema.Literal("required", "submitted", "accepted", "rejected"),
  asset_id: Schema.optional(Schema.String)
})

// ---------------------------------------------------------------------------
// Storage record
// ---------------------------------------------------------------------------

/**
 * The stored top-up. Source-side amounts are text: a token with 18 decimals can need more
 * than the 18 digits of D4 (1 ETH is 10^18 wei).
 *
 * @since 0.1.0 @category models
 */
export const TopupIntentRecord = Schema.Struct({
  ...Table.scopeFields,
  status: Status,
  merchantReference: Table.OrNull(Schema.String),
  country: Table.OrNull(Schema.String),
  destinationAmount: Table.AmountText,
  destinationCurrency: Schema.String,
  /** "0" until `succeeded`, then what `Money.credited` credited: the destination amount. */
  creditedAmount: Schema.String,
  sourceType: SourceType,
  sourceProvider: Schema.String,
  /** The merchant's own account at the provider that took it (D13), for its whole life; null: the deployment's. */
  providerAccount: Table.OrNull(Schema.String),
  sourceCurrency: Schema.String,
  sourceNetwork: Table.OrNull(Schema.String),
  sourceAmount: Schema.String,
  convertedAmount: Schema.String,
  feeAmount: Schema.String,
  spreadAmount: Schema.String,
  fxRate: Schema.String,
  fxSpread: Schema.String,
  feeRate: Schema.String,
  feeFixed: Schema.String,
  nextAction: Table.OrNull(NextAction),
  receipt: Table.OrNull(Receipt),
  providerTopupId: Schema.String,
  expiresAt: Table.Millis,
  failureCode: Table.OrNull(Schema.String),
  failureMessage: Table.OrNull(Schema.String),
  ...Table.requestFields
})
/** @since 0.1.0 @category models */
export type TopupIntentRecord = typeof TopupIntentRecord.Type

/** How top-ups are stored: `merchant_reference` unique per merchant and environment (4.9, D4). @since 0.1.0 @category models */
export const table = Table.makeReferenced({ name: "topup_intents", idPrefix: prefixes.topupIntent, record: TopupIntentRecord })

// ---------------------------------------------------------------------------
// Wire shape (2.5)
// ---------------------------------------------------------------------------

const fields = WireShape.of<TopupIntentRecord>()
const wire = fields.make({
  ...WireShape.identity("topup_intent", table.idPrefix),
  status: Status,
  environment: Environment,
  merchant_reference: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  destination: fields.computed(
    Schema.Struct({
      amount: Amount,
      credited_amount: Schema.String.annotations({ description: "Minor units credited: 0 until succeeded, then amount exactly" }),
      currency: Currency,
      merchant_id: Schema.String
    }),
    (r) => ({ amount: r.destinationAmount, credited_amount: r.creditedAmount, currency: r.destinationCurrency, merchant_id: r.merchantId })
  ),
  source: fields.computed(
    Schema.Struct({
      type: SourceType,
      amount: Schema.String.annotations({ description: "What the payer pays, in source minor units: converted + spread + fee" }),
      currency: Schema.String,
      expires_at: Timestamp,
      fee_amount: Schema.String,
      fee_mode: FeeMode,
      provider: Schema.NullOr(Schema.String)
    }),
    (r) => ({
      type: r.sourceType,
      amount: r.sourceAmount,
      currency: r.sourceCurrency,
      expires_at: formatTimestamp(r.expiresAt),
      fee_amount: r.feeAmount,
      fee_mode: "absorbed" as const,
      provider: r.sourceProvider
    })
  ),
  fx: fields.computed(
    Schema.Struct({
      source_currency: Schema.String,
      destination_currency: Schema.String,
      rate: Schema.String.annotations({ description: "Mid-market rate: destination units per source unit, a plain decimal string" }),
      spread_amount: Schema.String.annotations({ description: "Source minor units" })
    }),
    (r) => ({ source_currency: r.sourceCurrency, destination_currency: r.destinationCurrency, rate: r.fxRate, spread_amount: r.spreadAmount })
  ),
  next_action: Schema.NullOr(NextAction),
  receipt: fields.computed(
    Schema.NullOr(Schema.Struct({ status: Receipt.fields.status })),
    (r) => r.receipt === null ? null : { status: r.receipt.status }
  ),
  expires_at: WireShape.time,
  ...WireShape.failure,
  ...WireShape.times
})

/** The top-up intent of 2.5. @since 0.1.0 @category wire */
export const TopupIntent = wire.schema.annotations({ identifier: "TopupIntent" })
/** @since 0.1.0 @category wire */
export type TopupIntent = typeof TopupIntent.Type

/** @since 0.1.0 @category wire */
export const toResource: (r: TopupIntentRecord) => TopupIntent = wire.render
