import { describe, expect, it } from "@effect/vitest"
import { Storage, TopupIntent } from "@tender/core"
import { Effect } from "effect"
import { toRecord } from "../src/internal/documents.js"
import { indexSpecs } from "../src/internal/indexes.js"
import { listFilter, listOptions } from "../src/internal/queries.js"
import { matches, storedBothWays, tenderCollections } from "./fake.js"

const table = TopupIntent.table
type Topup = TopupIntent.TopupIntentRecord
const t = Date.UTC(2026, 10, 22)
const statuses = ["requires_payment", "processing", "succeeded", "failed", "expired"] as const
const sources = ["test_funding", "manual_receipt", "provider_gateway"] as const

const rows: ReadonlyArray<Topup> = Array.from({ length: 120 }, (_, i) =>
  TopupIntent.TopupIntentRecord.make({
    id: `tuin_${String(i).padStart(24, "0")}`,
    merchantId: i % 5 === 0 ? "mch_b" : "mch_a",
    environment: i % 7 === 0 ? "live" : "test",
    status: statuses[i % 5]!,
    merchantReference: i % 6 === 0 ? null : `ref-${i}`,
    country: i % 4 === 0 ? null : "TH",
    destinationAmount: String(1000 + i),
    destinationCurrency: i % 3 === 0 ? "USDT" : "THB",
    creditedAmount: "0",
    sourceType: sources[i % 3]!,
    sourceProvider: "simulator",
    sourceCurrency: "ETH",
    sourceNetwork: "ethereum",
    // Past what a 64-bit integer holds: kept as an exact string.
    sourceAmount: "123456789012345678901234567890" + String(i).padStart(8, "0"),
    convertedAmount: "1",
    feeAmount: "0",
    spreadAmount: "0",
    fxRate: "0.0000084721",
    fxSpread: "0.005",
    feeRate: "0.01",
    feeFixed: "0",
    providerTopupId: "simtu_x",
    expiresAt: t + 3_600_000,
    fingerprint: "f",
    createdAt: t + Math.floor(i / 4) * 1000,
    updatedAt: t,
    version: 1
  }))
const { docs, memory } = storedBothWays(table, rows)

describe("mongodb: top-up intents (2.5, 4.8)", () => {
  it("2.5 a top-up document round-trips every field; a 38-digit source amount stays an exact string", () => {
    for (const r of rows) expect(toRecord(table, docs[rows.indexOf(r)]!)).toStrictEqual(r)
    expect(docs[1]!["source_amount"]).toBe("12345678901234567890123456789000000001")
  })

  it("4.8 every filter, status and source_type each single or several at once: the same page as the in-memory store", () => {
    const shapes: ReadonlyArray<Storage.ListQuery<Topup>["where"]> = [
      {},
      { sourceType: "manual_receipt" },
      { sourceType: ["manual_receipt", "provider_gateway"], status: ["requires_payment", "failed"] },
      { country: "TH", destinationCurrency: "THB", merchantReference: "ref-7" },
      { destinationCurrency: "USDT", status: "succeeded", sourceType: ["test_funding"] }
    ]
    for (const where of shapes) {
      for (const environment of ["test", "live"] as const) {
        const q: Storage.ListQuery<Topup> = { merchantId: "mch_a", environment, where, limit: 1000 }
        const server = docs.filter((d) => matches(d, listFilter(table, q)))
          .map((d) => toRecord(table, d))
          .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
          .slice(0, listOptions(q.limit).limit)
        expect(server).toStrictEqual(Effect.runSync(memory.list(table, q)))
      }
    }
  })

  it("4.8 each list filter of a top-up leads an index after the scope and ends in the keyset order; merchant_reference is unique", () => {
    const c = tenderCollections
    const specs = indexSpecs(c, { expireKeys: true }).filter((s) => s.collection === "tender_topup_intents")
    for (const column of ["status", "country", "destination_currency", "merchant_reference", "source_type"]) {
      expect(Object.entries(specs.find((s) => s.name === `list_${column}`)!.key)).toStrictEqual([
        ["merchant_id", 1],
        ["environment", 1],
        [column, 1],
        ["created_at", -1],
        ["id", -1]
      ])
    }
    expect(specs.find((s) => s.name === "unique_reference")?.unique).toBe(true)
  })
})
