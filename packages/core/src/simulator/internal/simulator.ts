/**
 * What the simulator's payments and top-ups share (public, and documented, in `Simulator`): its
 * provider code, the magic amounts that drive outcomes and their timings
 * (docs/test-environment.md), and the D9 rule that it serves only the test environment.
 */
import { Effect } from "effect"
import type { ProviderPaymentRef } from "../../providers/Provider.js"
import { ProviderUnavailable } from "../../providers/Provider.js"

/** `Simulator.code`. */
export const code = "simulator"

/** `Simulator.magicAmounts`; each key's comment is the outcome it drives. */
export const magicAmounts = {
  /** The provider declines the payment when it is created: the intent is `failed`. */
  declineOnCreate: "40001",
  /** The provider declines the payment when it is confirmed: `failed` with `payment_declined`. */
  declineOnConfirm: "40002",
  /** The provider rejects the receipt: the receipt is `rejected` and the intent `failed` with `receipt_rejected`. */
  rejectReceipt: "40003",
  /** The payer action expires `shortExpiryMillis` after create: the intent becomes `expired`. */
  expireSoon: "40801",
  /** Slow confirmation: confirm answers `processing`; the provider reports success `slowConfirmationMillis` after create. */
  slowConfirmation: "20201",
  /** A payout that fails after approval: `failed` with `account_closed`. */
  payoutFails: "40004",
  /** A refund of this amount fails at the provider: `failed` with `refund_failed` (D10). */
  refundFails: "40005",
  /** A refund of this amount stays pending until `slowRefundMillis` after it was created, then succeeds (D10). */
  slowRefund: "20203",
  /**
   * A payment of this amount is paid by the payer just as it is canceled: the cancel reaches the
   * provider too late, the intent stays `canceled` and Tender refunds it as a late payment (D10).
   */
  paidAfterCancel: "40901",
  /**
   * The payer pays one minor unit more than asked: confirm, status, a receipt's review and a
   * cancel's answer report the payment succeeded with that amount, and the intent is left as it
   * is (D11: never succeeded with another amount).
   */
  overpaid: "40902",
  /** The provider is unreachable: a route failure, counted against its health. */
  unavailable: "50301"
} as const

/** `Simulator.shortExpiryMillis`. */
export const shortExpiryMillis = 10_000

/** `Simulator.slowConfirmationMillis`. */
export const slowConfirmationMillis = 5_000

/** `Simulator.slowRefundMillis`. */
export const slowRefundMillis = 5_000

/** `Simulator.Timings`. */
export interface Timings {
  readonly shortExpiryMillis: number
  readonly slowConfirmationMillis: number
  readonly slowRefundMillis: number
}

/** The timings with the host's choices over the defaults. */
export const timingsOf = (chosen: Partial<Timings> = {}): Timings => ({
  shortExpiryMillis: chosen.shortExpiryMillis ?? shortExpiryMillis,
  slowConfirmationMillis: chosen.slowConfirmationMillis ?? slowConfirmationMillis,
  slowRefundMillis: chosen.slowRefundMillis ?? slowRefundMillis
})

/** D9: live keys never reach the simulator; the outage amount is an outage for every operation. Neither acts (`ambiguous: false`). */
export const serves = (payment: Pick<ProviderPaymentRef, "environment" | "amount">) =>
  payment.environment !== "test"
    ? Effect.fail(new ProviderUnavailable({ provider: code, reason: "the simulator serves only the test environment", ambiguous: false }))
    : payment.amount === magicAmounts.unavailable
    ? Effect.fail(new ProviderUnavailable({ provider: code, reason: "simulated outage (magic amount 50301)", ambiguous: false }))
    : Effect.void
