/**
 * Balances on MongoDB (D12): the sums of balance transactions as one aggregation (amounts are
 * stored as strings, D4, and summed as 64-bit integers), and the lock document a commit that must
 * not overdraw a balance writes, so two such commits on one balance conflict and one is retried
 * (a multi-document transaction's write conflict) instead of both reading the same sum.
 * The pipeline and the lock's key are pure, tested without a server.
 */
import type { Storage } from "@tender/core"
import type { Document } from "mongodb"

/** The lock document of a balance: one per merchant, environment and currency. */
export const lockId = (b: Storage.BalanceKey): string => `${b.environment}\u0000${b.merchantId}\u0000${b.currency}`

/** `net` as a 64-bit integer when available at `now`, a debit always (or, `available` false, when not). */
const netWhen = (available: boolean, now: Date): Document => {
  const counts = { $or: [{ $lte: ["$available_at", now] }, { $lt: [{ $toLong: "$net" }, 0] }] }
  return { $cond: [available ? counts : { $not: [counts] }, { $toLong: "$net" }, { $toLong: 0 }] }
}

/**
 * What a commit that must not overdraw `balance` sums: its available transactions and every debit,
 * whenever it is dated (a concurrent payout decided a moment later is dated after `now`).
 */
export const guardPipeline = (balance: Storage.BalanceKey, now: number): ReadonlyArray<Document> => [
  {
    $match: {
      environment: balance.environment,
      merchant_id: balance.merchantId,
      currency: balance.currency,
      $or: [{ available_at: { $lte: new Date(now) } }, { net: { $regex: "^-" } }]
    }
  },
  { $group: { _id: "$currency", available: { $sum: { $toLong: "$net" } } } }
]

/** The aggregation of `query`'s balances: one document per currency, sorted by currency. */
export const pipeline = (query: Storage.BalanceQuery): ReadonlyArray<Document> => {
  const now = new Date(query.now)
  return [
    { $match: { environment: query.environment, ...(query.merchantId === undefined ? {} : { merchant_id: query.merchantId }) } },
    {
      $group: {
        _id: "$currency",
        available: { $sum: netWhen(true, now) },
        pending: { $sum: netWhen(false, now) },
        fees: { $sum: { $toLong: "$fee" } }
      }
    },
    { $sort: { _id: 1 } }
  ]
}

/** An aggregation's document as a balance total; sums come back as numbers or `Long`s. */
export const toTotal = (doc: Document): Storage.BalanceTotal => ({
  currency: String(doc["_id"]),
  available: String(doc["available"] ?? 0),
  pending: String(doc["pending"] ?? 0),
  fees: String(doc["fees"] ?? 0)
})
