import { describe, expect, it } from "@effect/vitest"
import { PaymentIntent, Storage, StorageError } from "@tender/core"
import { Fixtures } from "@tender/testing"
import { needsTransaction, step, transactionOptions } from "../src/internal/commit.js"
import { toDocument } from "../src/internal/documents.js"
import { tenderCollections } from "./fake.js"

const c = tenderCollections
// The contract suite's record, pinned to the ids and reference the expected filters below name.
const t0 = Fixtures.t0
const intent = Fixtures.intent({ merchantId: "mch_a", environment: "test" }, {
  id: "dord_1",
  merchantReference: "order-1",
  metadata: { "$set": "a merchant's key", "a.b": "dotted" },
  version: 3
})
const ref = { merchantId: "mch_a", environment: "test", resourceType: "payment_intent", reference: "order-1", resourceId: "dord_1" } as const
const key = { apiKeyId: "key_1", key: "k-1", lockedUntil: t0 + 60_000 }

describe("commit: each write as one operation", () => {
  it("an insert is the record's document", () => {
    expect(step(c, Storage.Write.insert(PaymentIntent.table, intent))).toStrictEqual({
      op: "insert",
      collection: "tender_payment_intents",
      document: toDocument(PaymentIntent.table, intent)
    })
  })

  it("a versioned update replaces the document in its scope at the expected version, else StaleVersion", () => {
    const s = step(c, Storage.Write.update(PaymentIntent.table, { ...intent, version: 4 }, 3))
    expect(s.op).toBe("replace")
    if (s.op !== "replace") return
    expect(s.filter).toStrictEqual({ id: "dord_1", merchant_id: "mch_a", environment: "test", version: 3 })
    expect(s.document).toStrictEqual(toDocument(PaymentIntent.table, { ...intent, version: 4 }))
    expect(s.lost).toBeInstanceOf(StorageError.StaleVersion)
  })

  it("a replacement, not $set: merchant metadata keys starting with $ stay below the top level", () => {
    const s = step(c, Storage.Write.update(PaymentIntent.table, intent, 3))
    if (s.op !== "replace") throw new Error("not a replacement")
    expect(Object.keys(s.document).some((k) => k.startsWith("$"))).toBe(false)
    expect((s.document["metadata"] as Record<string, string>)["$set"]).toBe("a merchant's key")
  })

  it("D4 completing a reference needs the claim still held by the resource, else UniqueViolation", () => {
    const s = step(c, Storage.Write.completeReference(ref))
    expect(s).toMatchObject({
      op: "update",
      collection: "tender_merchant_references",
      filter: { merchant_id: "mch_a", environment: "test", resource_type: "payment_intent", reference: "order-1", resource_id: "dord_1" },
      update: { $set: { completed: true } }
    })
    if (s.op === "update") expect(s.lost).toBeInstanceOf(StorageError.UniqueViolation)
  })

  it("4.9.7 releasing a reference deletes only an uncompleted claim held by the resource", () => {
    expect(step(c, Storage.Write.releaseReference(ref))).toStrictEqual({
      op: "delete",
      collection: "tender_merchant_references",
      filter: { merchant_id: "mch_a", environment: "test", resource_type: "payment_intent", reference: "order-1", resource_id: "dord_1", completed: false }
    })
  })

  it("4.9.4 completing a key stores the response on the claim that holds it, unanswered, else ClaimLost", () => {
    const s = step(c, Storage.Write.completeIdempotency(key, { status: 201, body: "{ }", requestId: "req_1" }))
    expect(s).toMatchObject({
      op: "update",
      collection: "tender_idempotency_keys",
      filter: { api_key_id: "key_1", key: "k-1", locked_until: new Date(t0 + 60_000), response: null },
      update: { $set: { response: { status: 201, body: "{ }", request_id: "req_1" } } }
    })
    if (s.op === "update") expect(s.lost).toBeInstanceOf(StorageError.ClaimLost)
  })

  it("4.9.7 releasing a key deletes it only while this claim holds it, unanswered", () => {
    expect(step(c, Storage.Write.releaseIdempotency(key))).toStrictEqual({
      op: "delete",
      collection: "tender_idempotency_keys",
      filter: { api_key_id: "key_1", key: "k-1", locked_until: new Date(t0 + 60_000), response: null }
    })
  })

  it("one write is atomic by itself; several need one transaction, on the primary, committed by a majority within the operation timeout", () => {
    expect(needsTransaction([])).toBe(false)
    expect(needsTransaction([Storage.Write.insert(PaymentIntent.table, intent)])).toBe(false)
    expect(needsTransaction([Storage.Write.insert(PaymentIntent.table, intent), Storage.Write.completeReference(ref)])).toBe(true)
    expect(transactionOptions(10_000)).toStrictEqual({
      readPreference: "primary",
      readConcern: { level: "majority" },
      writeConcern: { w: "majority", wtimeoutMS: 10_000 },
      maxCommitTimeMS: 10_000
    })
  })
})
