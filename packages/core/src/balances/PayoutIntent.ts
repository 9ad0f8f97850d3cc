/**
 * The payout intent (2.7, 3.3, D8): money a merchant sends to a bank account. Its wire
 * shape, create request, storage record and status rules, exhaustive over the status union.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { prefixes } from "../resources/Ids.js"
import * as StatusRules from "../resources/internal/statusRules.js"
import * as WireShape from "../resources/internal/wireShape.js"
import { Amount, BoundedString, Currency, Environment, MerchantReference, withMessage } from "../resources/Schemas.js"
import * as Table from "../storage/Table.js"

// ---------------------------------------------------------------------------
// Statuses (3.3, D8)
// ---------------------------------------------------------------------------

/** The statuses of D8. @since 0.1.0 @category status */
export const Status = Schema.Literal("requires_approval", "processing", "succeeded", "failed", "canceled")
  .annotations({ identifier: "PayoutIntentStatus" })
/** @since 0.1.0 @category status */
export type Status = typeof Status.Type

/**
 * The transitions of D8: approval (`requires_approval` to `processing`, not through the
 * merchant API), the provider's outcome (`processing` to `succeeded` or `failed`), and cancel
 * (only from `requires_approval`, 3.3).
 */
const transitions: StatusRules.Transitions<Status> = {
  requires_approval: ["processing", "canceled"],
  processing: ["succeeded", "failed"],
  succeeded: [],
  failed: [],
  canceled: []
}

/** Terminal statuses: nothing changes after them. @since 0.1.0 @category status */
export const isTerminal: (status: Status) => boolean = StatusRules.terminal(transitions)

/** Whether a payout may move from `from` to `to` (D8). @since 0.1.0 @category status */
export const canTransition: (from: Status, to: Status) => boolean = StatusRules.allowed(transitions)

/** The event a status emits when a payout enters it (D7). @since 0.1.0 @category status */
export const statusEvent = (status: Status) => {
  switch (status) {
    case "requires_approval":
      return "payout_intent.created" as const
    case "processing":
      return "payout_intent.processing" as const
    case "succeeded":
      return "payout_intent.succeeded" as const
    case "failed":
      return "payout_intent.failed" as const
    case "canceled":
      return "payout_intent.canceled" as const
  }
}

// ---------------------------------------------------------------------------
// Create request (D8)
// ---------------------------------------------------------------------------

/** A Thai bank account, the destination of D8. @since 0.1.0 @category request */
export const Destination = Schema.Struct({
  type: Schema.Literal("bank_account"),
  bank: withMessage(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_]{1,32}$/)), "must be a bank code from discovery"),
  account_number: withMessage(Schema.String.pipe(Schema.pattern(/^[0-9]{6,20}$/)), "must be 6 to 20 digits"),
  account_name: BoundedString(256)
}).annotations({ identifier: "PayoutDestination", parseOptions: { onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type Destination = typeof Destination.Type

/** POST /payout_intents body (D8). Unknown fields are rejected. @since 0.1.0 @category request */
export const CreateParams = Schema.Struct({
  amount: Amount,
  currency: Currency,
  merchant_reference: MerchantReference,
  destination: Destination,
  description: Schema.optional(BoundedString(512)),
  metadata: Schema.optional(Schema.Record({ key: BoundedString(40), value: BoundedString(500) }))
}).annotations({ identifier: "PayoutIntentCreateParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type CreateParams = typeof CreateParams.Type

// ---------------------------------------------------------------------------
// Storage record
// ---------------------------------------------------------------------------

/** The stored payout intent: the account number in full (D8: masked in every response). @since 0.1.0 @category models */
export const PayoutIntentRecord = Schema.Struct({
  ...Table.scopeFields,
  status: Status,
  amount: Table.AmountText,
  currency: Schema.String,
  merchantReference: Schema.String,
  destination: Destination,
  description: Table.OrNull(Schema.String),
  metadata: Table.OrNull(Schema.Record({ key: Schema.String, value: Schema.String })),
  ...Table.providerFields,
  ...Table.requestFields
})
/** @since 0.1.0 @category models */
export type PayoutIntentRecord = typeof PayoutIntentRecord.Type

/** How payout intents are stored: `merchant_reference` unique per merchant and environment (4.9, D4). @since 0.1.0 @category models */
export const table = Table.makeReferenced({ name: "payout_intents", idPrefix: prefixes.payoutIntent, record: PayoutIntentRecord })

// ---------------------------------------------------------------------------
// Wire shape (D8)
// ---------------------------------------------------------------------------

/** The account number as every response shows it: its last 4 digits (D8). @since 0.1.0 */
export const mask = (accountNumber: string): string => "*".repeat(Math.max(0, accountNumber.length - 4)) + accountNumber.slice(-4)

/** A bank account destination as every response shows it, a payout's or a refund's (D8, D10). @since 0.1.0 @category wire */
export const MaskedDestination = Schema.Struct({
  type: Schema.Literal("bank_account"),
  bank: Schema.String,
  account_number: Schema.String.annotations({ description: "Masked to its last 4 digits" }),
  account_name: Schema.String
})

/** A stored destination in its wire shape: the account number masked (D8). @since 0.1.0 @category wire */
export const maskDestination = (d: Destination): typeof MaskedDestination.Type => ({ ...d, account_number: mask(d.account_number) })

const fields = WireShape.of<PayoutIntentRecord>()
const wire = fields.make({
  ...WireShape.identity("payout_intent", table.idPrefix),
  environment: Environment,
  status: Status,
  amount: Amount,
  currency: Currency,
  merchant_reference: Schema.String,
  destination: fields.computed(MaskedDestination, (r) => maskDestination(r.destination)),
  description: Schema.NullOr(Schema.String),
  ...WireShape.failure,
  ...WireShape.times
})

/** The payout intent of D8. @since 0.1.0 @category wire */
export const PayoutIntent = wire.schema.annotations({ identifier: "PayoutIntent" })
/** @since 0.1.0 @category wire */
export type PayoutIntent = typeof PayoutIntent.Type

/** @since 0.1.0 @category wire */
export const toResource: (r: PayoutIntentRecord) => PayoutIntent = wire.render
