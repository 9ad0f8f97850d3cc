/**
 * The balance transactions of history written before the ledger existed (D12: an upgraded
 * deployment's balances are right from its first request). Each stored payment intent, refund,
 * top-up and payout says by its status which money events happened to it, so each is mapped on
 * its own: a store backfills in pages, and a transaction already written (one per source and
 * type) is skipped. Fees are none and every transaction available at once: the merchant had no
 * fee schedule nor settlement delay before the upgrade.
 *
 * @since 0.1.0
 */
import type { PaymentIntentRecord } from "../paymentIntents/PaymentIntentRecord.js"
import type { RefundRecord } from "../refunds/Refund.js"
import type { TopupIntentRecord } from "../topups/TopupIntent.js"
import type { BalanceTransactionRecord } from "./BalanceTransaction.js"
import type * as Ledger from "./Ledger.js"
import { accounts, transaction } from "./Ledger.js"
import type { PayoutIntentRecord } from "./PayoutIntent.js"

type Scoped = "id" | "merchantId" | "environment" | "status"

/**
 * A stored record whose history moved money, by its kind, with the fields that tell it (a store
 * reads those columns alone, so a later field of the record never breaks an old database's upgrade).
 *
 * @since 0.1.0 @category models
 */
export type Source =
  | { readonly kind: "payment_intent"; readonly record: Pick<PaymentIntentRecord, Scoped | "amount" | "currency" | "providerCode" | "updatedAt"> }
  | {
    readonly kind: "refund"
    readonly record: Pick<RefundRecord, Scoped | "amount" | "currency" | "providerCode" | "reason" | "paymentIntentId" | "createdAt" | "updatedAt">
  }
  | {
    readonly kind: "topup_intent"
    readonly record: Pick<TopupIntentRecord, Scoped | "creditedAmount" | "destinationCurrency" | "sourceProvider" | "updatedAt">
  }
  | { readonly kind: "payout_intent"; readonly record: Pick<PayoutIntentRecord, Scoped | "amount" | "currency" | "createdAt" | "updatedAt"> }

/** The transactions the history of one stored record implies, oldest first. @since 0.1.0 */
export const transactionsOf = (source: Source): ReadonlyArray<BalanceTransactionRecord> => {
  const move = (
    m: Omit<Ledger.Movement, "merchantId" | "environment">,
    r: { readonly merchantId: string; readonly environment: Ledger.Movement["environment"] }
  ) => transaction({ ...m, merchantId: r.merchantId, environment: r.environment })
  // A payment or a top-up moved money once, when it succeeded, through its provider.
  const succeeded = (
    r: { readonly id: string; readonly status: string; readonly updatedAt: number } & Parameters<typeof move>[1],
    m: Pick<Ledger.Movement, "type" | "amount" | "currency">,
    provider: Parameters<typeof accounts.provider>[0]
  ) => r.status === "succeeded" ? [move({ ...m, source: r.id, counter: accounts.provider(provider), createdAt: r.updatedAt }, r)] : []
  switch (source.kind) {
    case "payment_intent": {
      const r = source.record
      return succeeded(r, { type: "payment", amount: BigInt(r.amount), currency: r.currency }, r.providerCode)
    }
    case "refund": {
      const r = source.record
      const counter = accounts.provider(r.providerCode)
      const out: Array<BalanceTransactionRecord> = []
      // D10: the late payment a canceled or expired intent's refund gives back was received first.
      if (r.reason === "late_payment") {
        out.push(move({ type: "payment", amount: BigInt(r.amount), currency: r.currency, source: r.paymentIntentId, counter, createdAt: r.createdAt }, r))
      }
      out.push(move({ type: "refund", amount: -BigInt(r.amount), currency: r.currency, source: r.id, counter, createdAt: r.createdAt }, r))
      if (r.status === "failed") {
        out.push(move({ type: "refund_failure", amount: BigInt(r.amount), currency: r.currency, source: r.id, counter, createdAt: r.updatedAt }, r))
      }
      return out
    }
    case "topup_intent": {
      const r = source.record
      return succeeded(r, { type: "topup", amount: BigInt(r.creditedAmount), currency: r.destinationCurrency }, r.sourceProvider)
    }
    case "payout_intent": {
      const r = source.record
      const base = { currency: r.currency, source: r.id, counter: accounts.inTransit }
      const out = [move({ ...base, type: "payout", amount: -BigInt(r.amount), createdAt: r.createdAt }, r)]
      if (r.status === "canceled") out.push(move({ ...base, type: "payout_cancel", amount: BigInt(r.amount), createdAt: r.updatedAt }, r))
      if (r.status === "failed") out.push(move({ ...base, type: "payout_failure", amount: BigInt(r.amount), createdAt: r.updatedAt }, r))
      return out
    }
  }
}
