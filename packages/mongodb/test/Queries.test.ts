import { describe, expect, it } from "@effect/vitest"
import { PaymentIntent, Storage } from "@tender/core"
import { Effect } from "effect"
import type { Document } from "mongodb"
import { toRecord } from "../src/internal/documents.js"
import { afterPosition, idFilter, listFilter, listOptions, listSort, projection, scopedFilter } from "../src/internal/queries.js"
import { matches, storedBothWays } from "./fake.js"

const table = PaymentIntent.table
type Intent = PaymentIntent.PaymentIntentRecord
const scope = { merchantId: "mch_a", environment: "test" } as const
const t = Date.UTC(2026, 10, 22)

// Strings compare by byte (the simple collation), dates by time, as the server compares them.
const compare = (a: unknown, b: unknown): number =>
  a instanceof Date && b instanceof Date
    ? a.getTime() - b.getTime()
    : Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)))
const serverSort = (a: Document, b: Document) => -compare(a["created_at"], b["created_at"]) || -compare(a["id"], b["id"])
const serverList = (docs: ReadonlyArray<Document>, q: Storage.ListQuery<Intent>): ReadonlyArray<Intent> =>
  docs.filter((d) => matches(d, listFilter(table, q))).sort(serverSort).slice(0, listOptions(q.limit).limit).map((d) => toRecord(table, d))

// -- A data set with many ties on created_at, two scopes, and every filter value.
const statuses = ["requires_action", "processing", "succeeded", "failed", "expired"] as const
const rows: ReadonlyArray<Intent> = Array.from({ length: 240 }, (_, i) =>
  PaymentIntent.PaymentIntentRecord.make({
    id: `dord_${((i * 7919) % 1000).toString(36).padStart(3, "0")}${i % 2 === 0 ? "A" : "a"}${i}`,
    merchantId: i % 5 === 0 ? "mch_b" : "mch_a",
    environment: i % 7 === 0 ? "live" : "test",
    amount: String(100 + i),
    currency: i % 3 === 0 ? "USD" : "THB",
    country: i % 4 === 0 ? "SG" : "TH",
    checkoutMode: "merchant",
    status: statuses[i % statuses.length]!,
    merchantReference: i % 6 === 0 ? null : `ref-${i}`,
    customer: {},
    fingerprint: "f",
    createdAt: t + Math.floor(i / 4) * 1000,
    updatedAt: t,
    version: 1
  }))
const { docs, memory } = storedBothWays(table, rows)

const memoryList = (q: Storage.ListQuery<Intent>) => Effect.runSync(memory.list(table, q))

const shapes: ReadonlyArray<[string, Omit<Storage.ListQuery<Intent>, "merchantId" | "environment" | "limit">]> = [
  ["scope only", {}],
  ["one status", { where: { status: "succeeded" } }],
  ["several statuses", { where: { status: ["failed", "expired", "failed"] } }],
  ["one status in a list", { where: { status: ["processing"] } }],
  ["no status in a list", { where: { status: [] } }],
  ["country", { where: { country: "SG" } }],
  ["currency", { where: { currency: "USD" } }],
  ["merchant_reference", { where: { merchantReference: "ref-3" } }],
  ["created_after (inclusive)", { createdAfter: t + 20_000 }],
  ["created_before (exclusive)", { createdBefore: t + 20_000 }],
  ["a created range", { createdAfter: t + 10_000, createdBefore: t + 40_000 }],
  ["everything at once", { where: { status: ["succeeded", "failed"], country: "TH", currency: "THB" }, createdAfter: t + 5_000, createdBefore: t + 50_000 }],
  ["undefined entries are no filter", { where: { status: undefined, country: undefined } }]
]

describe("queries: list filters and order", () => {
  for (const [name, shape] of shapes) {
    it(`4.3 ${name}: the same page as the in-memory store`, () => {
      for (const environment of ["test", "live"] as const) {
        const q = { ...scope, environment, ...shape, limit: 1000 }
        expect(serverList(docs, q)).toStrictEqual(memoryList(q))
      }
    })

    it(`D6 ${name}: keyset pages visit every row once, in the in-memory store's order`, () => {
      const seen: Array<Intent> = []
      let after: Storage.ListQuery<Intent>["after"]
      for (;;) {
        const page = serverList(docs, { ...scope, ...shape, after, limit: 7 })
        seen.push(...page)
        if (page.length < 7) break
        const last = page[page.length - 1]!
        after = { createdAt: last.createdAt, id: last.id }
      }
      expect(seen).toStrictEqual(memoryList({ ...scope, ...shape, limit: 1000 }))
    })
  }

  it("4.3 the scope always comes from the query", () => {
    expect(listFilter(table, { merchantId: "m", environment: "live", limit: 1 })).toStrictEqual({ merchant_id: "m", environment: "live" })
  })

  it("4.3 several values are one $in, deduplicated; one value is an equality", () => {
    expect(listFilter(table, { ...scope, where: { status: ["failed", "expired", "failed"] }, limit: 1 })).toStrictEqual({
      ...{ merchant_id: "mch_a", environment: "test" },
      status: { $in: ["failed", "expired"] }
    })
    expect(listFilter(table, { ...scope, where: { status: ["failed"] }, limit: 1 })["status"]).toBe("failed")
    expect(listFilter(table, { ...scope, where: { merchantReference: "r" }, limit: 1 })["merchant_reference"]).toBe("r")
  })

  it("4.3 created_after is $gte and created_before is $lt, on dates", () => {
    expect(listFilter(table, { ...scope, createdAfter: t, createdBefore: t + 1, limit: 1 })["created_at"]).toStrictEqual({
      $gte: new Date(t),
      $lt: new Date(t + 1)
    })
  })

  it("D6 the cursor is older, or as old with a lower id, bounded by $lte so the index range starts at the cursor", () => {
    const after = { createdAt: t + 5, id: "dord_m" }
    expect(afterPosition(after)).toStrictEqual({
      createdAt: { $lte: new Date(t + 5) },
      or: [{ created_at: { $lt: new Date(t + 5) } }, { created_at: new Date(t + 5), id: { $lt: "dord_m" } }]
    })
    expect(listFilter(table, { ...scope, createdBefore: t + 9, after, limit: 1 })).toStrictEqual({
      merchant_id: "mch_a",
      environment: "test",
      created_at: { $lt: new Date(t + 9), $lte: new Date(t + 5) },
      $or: afterPosition(after).or
    })
  })

  it("D6 newest first by (created_at, id), ids by byte: uppercase before lowercase", () => {
    expect(listSort).toStrictEqual({ created_at: -1, id: -1 })
    expect(listOptions(25)).toStrictEqual({ sort: { created_at: -1, id: -1 }, limit: 25, projection: { _id: 0 } })
    const page = serverList(docs, { ...scope, limit: 1000 })
    const tie = page.filter((r) => r.createdAt === page[0]!.createdAt).map((r) => r.id)
    expect(tie).toStrictEqual([...tie].sort().reverse())
  })

  it("an unknown where field is a programming error", () => {
    expect(() => listFilter(table, { ...scope, where: { nope: "x" } as never, limit: 1 })).toThrow(/no field nope/)
  })

  it("4.2 get is scoped to merchant and environment; find is by id alone; neither returns _id", () => {
    expect(scopedFilter(scope, "dord_1")).toStrictEqual({ id: "dord_1", merchant_id: "mch_a", environment: "test" })
    expect(idFilter("dord_1")).toStrictEqual({ id: "dord_1" })
    expect(projection).toStrictEqual({ _id: 0 })
  })
})
