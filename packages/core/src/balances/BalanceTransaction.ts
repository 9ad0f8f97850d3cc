/**
 * The balance transaction (D12, after Stripe's BalanceTransaction): one movement of what the
 * platform owes a merchant, written in the same commit as the state change that causes it and
 * never changed afterwards. Inside, each is balanced postings between the merchant's balance and
 * the platform's own accounts, summing to zero, so the books balance by construction.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { prefixes } from "../resources/Ids.js"
import * as WireShape from "../resources/internal/wireShape.js"
import { Environment } from "../resources/Schemas.js"
import * as Table from "../storage/Table.js"

/** Every kind of movement D12 lists. @since 0.1.0 @category models */
export const Type = Schema.Literal(
  "payment",
  "refund",
  "refund_failure",
  "topup",
  "payout",
  "payout_cancel",
  "payout_failure",
  "adjustment"
)
/** @since 0.1.0 @category models */
export type Type = typeof Type.Type

/** A signed integer string of minor units: `"-1500"`, `"0"`, `"9835"` (D12). @since 0.1.0 @category wire */
export const SignedAmount = Schema.String.pipe(Schema.pattern(/^-?(0|[1-9]\d*)$/)).annotations({
  description: "Signed integer string of minor units"
})

/** A fee taken from a transaction. @since 0.1.0 @category models */
export const FeeDetail = Schema.Struct({
  type: Schema.Literal("application_fee", "provider_fee"),
  amount: Schema.String,
  currency: Schema.String,
  description: Schema.NullOr(Schema.String)
})
/** @since 0.1.0 @category models */
export type FeeDetail = typeof FeeDetail.Type

/**
 * The platform's accounts a posting names besides the merchant's balance (`balance`):
 * `platform_fees` (fees earned), `provider:<code>` (money held at a provider),
 * `payouts_in_transit` (paid out, not yet arrived) and `adjustments` (the host's corrections).
 * Amounts are signed: what the platform owes (the balance, the fees it keeps) positive, what it
 * holds or sent negative, so every transaction's postings sum to zero.
 *
 * @since 0.1.0 @category models
 */
export const Posting = Schema.Struct({ account: Schema.String, amount: Schema.String })
/** @since 0.1.0 @category models */
export type Posting = typeof Posting.Type

/** The account of the merchant's own balance in postings. @since 0.1.0 @category constants */
export const balanceAccount = "balance"

/** The stored balance transaction. @since 0.1.0 @category models */
export const BalanceTransactionRecord = Schema.Struct({
  ...Table.scopeFields,
  type: Type,
  /** Signed (D12). */
  amount: Table.AmountText,
  fee: Table.AmountText,
  /** `amount − fee`, signed. */
  net: Table.AmountText,
  currency: Schema.String,
  feeDetails: Schema.Array(FeeDetail),
  availableAt: Table.Millis,
  /** The payment intent, refund, top-up or payout intent that caused it; null for an adjustment. */
  source: Table.OrNull(Schema.String),
  description: Table.OrNull(Schema.String),
  /** The merchant's provider account the money moved through, where one is known. */
  providerAccount: Table.OrNull(Schema.String),
  postings: Schema.Array(Posting),
  /** An adjustment's idempotency key: the host's retry answers the adjustment it made. */
  idempotencyKey: Table.OrNull(Schema.String),
  createdAt: Table.Millis,
  version: Table.Integer
})
/** @since 0.1.0 @category models */
export type BalanceTransactionRecord = typeof BalanceTransactionRecord.Type

/**
 * How balance transactions are stored. One per (source, type): the store refuses a second
 * transaction for one money event, so none is ever counted twice; one adjustment per key.
 * They are never purged (D12).
 *
 * @since 0.1.0 @category models
 */
export const table = Table.make({
  name: "balance_transactions",
  idPrefix: prefixes.balanceTransaction,
  record: BalanceTransactionRecord,
  unique: [
    { name: "source_type", fields: ["source", "type"] },
    { name: "adjustment_key", fields: ["idempotencyKey"] }
  ]
})

/** Whether a transaction is available at `now`. @since 0.1.0 */
export const isAvailable = (r: Pick<BalanceTransactionRecord, "availableAt">, now: number): boolean => r.availableAt <= now

const fields = WireShape.of<BalanceTransactionRecord, number>()
const wire = fields.make({
  id: Schema.String,
  object: WireShape.constant("balance_transaction"),
  environment: Environment,
  type: Type,
  amount: SignedAmount,
  fee: Schema.String.annotations({ description: "Non-negative integer string of minor units" }),
  net: SignedAmount,
  currency: Schema.String,
  fee_details: Schema.Array(FeeDetail),
  status: fields.computed(Schema.Literal("pending", "available"), (r, now) => isAvailable(r, now) ? "available" : "pending"),
  available_at: WireShape.time,
  source: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  provider_account: Schema.NullOr(Schema.String),
  created_at: WireShape.time
})

/** The wire shape of D12. @since 0.1.0 @category wire */
export const Resource = wire.schema.annotations({ identifier: "BalanceTransaction" })
/** @since 0.1.0 @category wire */
export type Resource = typeof Resource.Type

/** A stored transaction as the API shows it at `now`. @since 0.1.0 @category wire */
export const toResource: (r: BalanceTransactionRecord, now: number) => Resource = wire.render

/** One currency's amount of a balance. @since 0.1.0 @category wire */
export const BalanceAmount = Schema.Struct({ amount: SignedAmount, currency: Schema.String })

/** GET /balance (D12). @since 0.1.0 @category wire */
export const Balance = Schema.Struct({
  object: Schema.Literal("balance"),
  environment: Environment,
  available: Schema.Array(BalanceAmount),
  pending: Schema.Array(BalanceAmount)
}).annotations({ identifier: "Balance" })
/** @since 0.1.0 @category wire */
export type Balance = typeof Balance.Type

/** The fee schedule of one payment method (D12): basis points of the amount, plus a fixed amount. @since 0.1.0 @category models */
export interface FeeRate {
  readonly rateBps: number
  /** Minor units of the payment's currency. */
  readonly fixedAmount: string
}

/**
 * The application fee of a payment (D12): ⌊amount × rate_bps / 10,000 + ½⌋ + fixed_amount,
 * never more than the amount. Integer arithmetic throughout.
 *
 * @since 0.1.0
 */
export const applicationFee = (amount: bigint, rate: FeeRate): bigint => {
  const proportional = (amount * BigInt(rate.rateBps) + 5000n) / 10000n
  const fee = proportional + BigInt(rate.fixedAmount)
  return fee > amount ? amount : fee
}
