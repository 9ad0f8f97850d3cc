/**
 * D12 on MongoDB, its pure parts: the balance sums as an aggregation, the payout's check as a lock
 * document and a sum in the commit's transaction, the backfill's mapping, the merchant's balance
 * settings in its document, and the `source_type` index that keeps one transaction per money event.
 * The whole runs in the contract suite where `MONGODB_URL` is given.
 */
import { describe, expect, it } from "@effect/vitest"
import { BalanceTransaction, Ledger, Merchants, PaymentIntent, PayoutIntent, Refund, Storage, StorageError, TopupIntent } from "@tender/core"
import { Fixtures } from "@tender/testing"
import { BSON } from "mongodb"
import * as Backfill from "../src/internal/backfill.js"
import * as Balances from "../src/internal/balances.js"
import { step } from "../src/internal/commit.js"
import { toDocument, toRecord } from "../src/internal/documents.js"
import { indexSpecs } from "../src/internal/indexes.js"
import { tenderCollections as c } from "./fake.js"

const balance = { merchantId: "mch_a", environment: "test", currency: "THB" } as const
const t0 = Date.UTC(2026, 10, 22)

describe("D12 balances on MongoDB: pure parts", () => {
  it("D12 a payout's check is one step of its transaction: the balance's lock document, then the sum of its available transactions and every debit", () => {
    const s = step(c, Storage.Write.requireAvailable(balance, t0))
    expect(s).toStrictEqual({
      op: "balance",
      collection: "tender_balance_transactions",
      locks: "tender_balance_locks",
      lockId: "test\u0000mch_a\u0000THB",
      pipeline: [
        {
          $match: {
            environment: "test",
            merchant_id: "mch_a",
            currency: "THB",
            $or: [{ available_at: { $lte: new Date(t0) } }, { net: { $regex: "^-" } }]
          }
        },
        { $group: { _id: "$currency", available: { $sum: { $toLong: "$net" } } } }
      ],
      lost: new StorageError.StaleVersion({ message: "the available balance does not cover this payout" })
    })
  })

  it("D12 the balance sums group by currency, sorted, one merchant's or the whole environment's; Long sums read as strings", () => {
    const one = Balances.pipeline({ environment: "test", merchantId: "mch_a", now: t0 })
    expect(one[0]).toStrictEqual({ $match: { environment: "test", merchant_id: "mch_a" } })
    expect(one[2]).toStrictEqual({ $sort: { _id: 1 } })
    expect(Balances.pipeline({ environment: "live", now: t0 })[0]).toStrictEqual({ $match: { environment: "live" } })
    expect(Balances.toTotal({ _id: "THB", available: BSON.Long.fromString("-1500"), pending: 0, fees: BSON.Long.fromString("1650") }))
      .toStrictEqual({ currency: "THB", available: "-1500", pending: "0", fees: "1650" })
  })

  it("D12 a transaction is stored with signed amounts as strings and reads back as written; one per (source, type)", () => {
    const txn = Ledger.transaction({
      merchantId: "mch_a",
      environment: "test",
      type: "refund",
      amount: -1500n,
      currency: "THB",
      source: "rfnd_1",
      counter: "provider:simulator",
      createdAt: t0
    })
    const doc = BSON.deserialize(BSON.serialize(toDocument(BalanceTransaction.table, txn)))
    expect(doc["amount"]).toBe("-1500")
    expect(toRecord(BalanceTransaction.table, doc)).toStrictEqual(txn)
    const unique = indexSpecs(c, { expireKeys: true }).find((s) => s.collection === "tender_balance_transactions" && s.name === "unique_source_type")
    expect(unique?.unique).toBe(true)
    expect(Object.keys(unique?.key ?? {})).toStrictEqual(["merchant_id", "environment", "source", "type"])
  })

  it("D12 the backfill maps each stored resource to the source LedgerBackfill reads", () => {
    const scope = { merchantId: "mch_a", environment: "test" as const }
    const intent = Fixtures.intent(scope, { status: "succeeded" })
    expect(Backfill.sourceOf(PaymentIntent.table, intent)).toStrictEqual({ kind: "payment_intent", record: intent })
    expect(Backfill.sourceOf(Refund.table, intent).kind).toBe("refund")
    expect(Backfill.sourceOf(TopupIntent.table, intent).kind).toBe("topup_intent")
    expect(Backfill.sourceOf(PayoutIntent.table, intent).kind).toBe("payout_intent")
    expect(Backfill.sources.map((t) => t.name)).toStrictEqual(["payment_intents", "refunds", "topup_intents", "payout_intents"])
  })

  it("D12 a merchant's fee schedule and settlement delay round trip through its document (Merchants.table, issue 49)", () => {
    const merchant = {
      id: "mch_a",
      name: "A",
      allowedCheckoutModes: ["merchant"],
      routes: [],
      fees: { th_promptpay: { rateBps: 165, fixedAmount: "0" } },
      settlementDelayDays: 2,
      providerAccounts: [],
      createdAt: 7,
      version: 1
    }
    expect(toRecord(Merchants.table, BSON.deserialize(BSON.serialize(toDocument(Merchants.table, merchant))))).toStrictEqual(merchant)
  })
})
