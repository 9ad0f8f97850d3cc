/**
 * The payment intent: its wire shape (2.1), create request (2.2), storage record, and the
 * status rules of 3.1, kept in one place and exhaustive over the status union.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { prefixes } from "./Ids.js"
import { NextAction } from "./NextAction.js"
import {
  Amount,
  BoundedString,
  CheckoutMode,
  Country,
  Currency,
  Environment,
  formatTimestamp,
  MerchantReference,
  StorableText,
  Timestamp,
  withMessage
} from "./Schemas.js"
import * as Table from "./Table.js"

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

/** Terminal statuses: no further transition, `next_action` null (3.1.3; D10 adds `canceled`). @since 0.1.0 @category status */
export const isTerminal = (status: Status): boolean => {
  switch (status) {
    case "requires_action":
    case "processing":
      return false
    case "succeeded":
    case "failed":
    case "expired":
    case "canceled":
      return true
  }
}

/**
 * The transitions this library performs. The specification shows none; these are the
 * Stripe-like ones written down in docs/payment-intents.md.
 *
 * @since 0.1.0 @category status
 */
export const canTransition = (from: Status, to: Status): boolean => {
  switch (from) {
    case "requires_action":
      // D10: cancel only from requires_action.
      return to === "processing" || to === "succeeded" || to === "failed" || to === "expired" ||
        to === "requires_action" || to === "canceled"
    case "processing":
      return to === "requires_action" || to === "succeeded" || to === "failed" || to === "expired"
    case "succeeded":
    case "failed":
    case "expired":
    case "canceled":
      return false
  }
}

/**
 * The status a pending intent has: `requires_action` while there is a payer action (3.1.1),
 * `processing` when there is none (3.1.2).
 *
 * @since 0.1.0 @category status
 */
export const pendingStatus = (nextAction: NextAction | null): Status =>
  nextAction === null ? "processing" : "requires_action"

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
// Create request (2.2)
// ---------------------------------------------------------------------------

/** Payer identity and contact details. @since 0.1.0 @category request */
export const Customer = Schema.Struct({
  name: Schema.optional(BoundedString(256)),
  email: Schema.optional(withMessage(
    StorableText.pipe(Schema.maxLength(254), Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/)),
    "must be an email address of at most 254 characters"
  )),
  phone: Schema.optional(withMessage(
    Schema.String.pipe(Schema.pattern(/^\+?[0-9][0-9 -]{5,19}$/)),
    "must be a phone number of 6 to 20 digits, optionally starting with +"
  )),
  reference: Schema.optional(BoundedString(256))
}).annotations({ identifier: "Customer" })
/** @since 0.1.0 @category request */
export type Customer = typeof Customer.Type

/** Route-specific payer data (2.2); a separate namespace from `customer`. @since 0.1.0 @category request */
export const PaymentMethodOptions = Schema.Struct({
  bank: Schema.optional(withMessage(
    Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_]{1,32}$/)),
    "must be a bank code from discovery"
  )),
  account_name: Schema.optional(BoundedString(256)),
  account_number: Schema.optional(withMessage(
    Schema.String.pipe(Schema.pattern(/^[0-9]{6,20}$/)),
    "must be 6 to 20 digits"
  )),
  name_th: Schema.optional(withMessage(
    Schema.String.pipe(Schema.maxLength(256), Schema.pattern(/^[\u0E00-\u0E7F][\u0E00-\u0E7F .]*$/)),
    "must be a name written in Thai script"
  ))
}).annotations({ identifier: "PaymentMethodOptions" })
/** @since 0.1.0 @category request */
export type PaymentMethodOptions = typeof PaymentMethodOptions.Type

/** Free-form merchant data: at most 50 keys of up to 40 characters, values up to 500. @since 0.1.0 @category request */
export const Metadata = Schema.Unknown.pipe(
  // A key named __proto__ would be lost when the record is built (it sets the prototype instead):
  // refused by name, never acknowledged and dropped. `constructor` and `prototype` are plain keys.
  Schema.filter((u) =>
    typeof u !== "object" || u === null || !Object.prototype.hasOwnProperty.call(u, "__proto__") ||
    { path: ["__proto__"], message: "is a reserved key name; use another key" }
  ),
  Schema.compose(
    withMessage(
      Schema.Record({ key: StorableText.pipe(Schema.minLength(1), Schema.maxLength(40)), value: StorableText.pipe(Schema.maxLength(500)) })
        .pipe(Schema.filter((r) => Object.keys(r).length <= 50)),
      "must be an object of at most 50 string values (keys up to 40 characters, values up to 500; well-formed Unicode, no NUL)"
    ),
    { strict: false }
  )
).annotations({
  identifier: "Metadata",
  jsonSchema: {
    type: "object",
    maxProperties: 50,
    additionalProperties: { type: "string", maxLength: 500 },
    propertyNames: { minLength: 1, maxLength: 40, not: { const: "__proto__" } }
  }
})

/**
 * An absolute http(s) URL with no control character (C0, DEL, C1). The raw string is checked:
 * `new URL` silently strips tabs and newlines, and the page sends the payer to the URL as given
 * (4.1.4), so what is stored must be what parses.
 *
 * @since 0.1.0 @category request
 */
export const ReturnUrl = withMessage(
  StorableText.pipe(
    Schema.maxLength(2048),
    Schema.filter((s) => {
      if (/[\u0000-\u001f\u007f-\u009f]/.test(s)) return false
      try {
        const url = new URL(s)
        return url.protocol === "https:" || url.protocol === "http:"
      } catch {
        return false
      }
    })
  ),
  "must be an absolute http or https URL of at most 2048 characters, with no control characters"
)

/** Method codes as discovery returns them. @since 0.1.0 @category request */
export const MethodCode = withMessage(
  Schema.String.pipe(Schema.pattern(/^[a-z0-9_]{1,64}$/)),
  "must be a payment method code from discovery"
)

/** POST /payment_intents body (2.2). Unknown fields are rejected. @since 0.1.0 @category request */
export const CreateParams = Schema.Struct({
  amount: Amount,
  currency: Currency,
  country: Country,
  checkout_mode: Schema.optional(CheckoutMode),
  merchant_reference: Schema.optional(MerchantReference),
  customer: Customer,
  payment_method: Schema.optional(MethodCode),
  payment_method_options: Schema.optional(PaymentMethodOptions),
  return_url: Schema.optional(ReturnUrl),
  device_fingerprint: Schema.optional(BoundedString(512)),
  metadata: Schema.optional(Metadata),
  external_reference: Schema.optional(BoundedString(256))
}).annotations({
  identifier: "PaymentIntentCreateParams",
  parseOptions: { errors: "all", onExcessProperty: "error" }
})
/** @since 0.1.0 @category request */
export type CreateParams = typeof CreateParams.Type

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
  id: Schema.String,
  merchantId: Schema.String,
  environment: Environment,
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
  fingerprint: Schema.String,
  createdAt: Table.Millis,
  updatedAt: Table.Millis,
  version: Table.Integer
})
/** @since 0.1.0 @category models */
export type PaymentIntentRecord = typeof PaymentIntentRecord.Type

/**
 * How payment intents are stored: every field of the record, and `merchant_reference`
 * unique per merchant and environment (4.9 merchant_reference rule 1, D4).
 *
 * @since 0.1.0 @category models
 */
export const table = Table.make({
  name: "payment_intents",
  idPrefix: prefixes.paymentIntent,
  record: PaymentIntentRecord,
  unique: [{ name: "reference", fields: ["merchantReference"] }]
})

// ---------------------------------------------------------------------------
// Wire shape (2.1)
// ---------------------------------------------------------------------------

const resourceFields = {
  object: Schema.Literal("payment_intent"),
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
  failure_code: Schema.NullOr(Schema.String),
  failure_message: Schema.NullOr(Schema.String),
  cancellation_reason: Schema.NullOr(CancellationReason),
  amount_refunded: Schema.String.annotations({ description: "D10: the sum of succeeded refunds, minor units; \"0\" when none" })
}

/** The payment intent as get, list and receipt return it (2.1). @since 0.1.0 @category wire */
export const PaymentIntent = Schema.Struct({
  ...resourceFields,
  processing_reason: Schema.NullOr(Schema.String),
  receipt: Schema.NullOr(Receipt),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "PaymentIntent" })
/** @since 0.1.0 @category wire */
export type PaymentIntent = typeof PaymentIntent.Type

/** The create response: neither `processing_reason` nor `receipt` (2.1). @since 0.1.0 @category wire */
export const PaymentIntentCreated = Schema.Struct({
  ...resourceFields,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "PaymentIntentCreated" })
/** @since 0.1.0 @category wire */
export type PaymentIntentCreated = typeof PaymentIntentCreated.Type

/** The read view (get, list). @since 0.1.0 @category wire */
export const toResource = (r: PaymentIntentRecord): PaymentIntent => ({
  object: "payment_intent",
  id: r.id,
  amount: r.amount,
  currency: r.currency,
  country: r.country,
  environment: r.environment,
  checkout_mode: r.checkoutMode,
  status: r.status,
  merchant_reference: r.merchantReference,
  payment_method: r.paymentMethod,
  next_action: r.nextAction,
  failure_code: r.failureCode,
  failure_message: r.failureMessage,
  cancellation_reason: r.cancellationReason,
  amount_refunded: r.amountRefunded,
  processing_reason: r.processingReason,
  receipt: r.receipt,
  created_at: formatTimestamp(r.createdAt),
  updated_at: formatTimestamp(r.updatedAt)
})

/** The create view: the read view less `processing_reason` and `receipt` (2.1). @since 0.1.0 @category wire */
export const toCreatedResource = (r: PaymentIntentRecord): PaymentIntentCreated => {
  const { processing_reason: _p, receipt: _r, ...rest } = toResource(r)
  return rest
}
