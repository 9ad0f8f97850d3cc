import { describe, expect, it } from "@effect/vitest"
import { Asset, Event, PaymentIntent, Refund, Table, Task, WebhookDelivery, WebhookEndpoint } from "@tender/core"
import { Fixtures } from "@tender/testing"
import { Effect } from "effect"
import { Binary, BSON, type Document } from "mongodb"
import { decodeValue, encodeValue, fieldOf, readRecord, toDocument, toRecord } from "../src/internal/documents.js"
import { dbOptions } from "../src/MongoStorage.js"
import { taskRecord } from "./fake.js"

/** A document as it comes back from the server: serialized to BSON and read with the adapter's own options. */
const throughBson = (doc: Document): Document =>
  BSON.deserialize(BSON.serialize(doc), {
    promoteValues: dbOptions.promoteValues!,
    promoteLongs: dbOptions.promoteLongs!,
    promoteBuffers: dbOptions.promoteBuffers!,
    useBigInt64: dbOptions.useBigInt64!,
    bsonRegExp: dbOptions.bsonRegExp!
  })

const roundTrip = <A extends Table.StoredRecord>(table: Table.Table<A>, record: A): A => toRecord(table, throughBson(toDocument(table, record)))

/** The record read back from its document equals the record; the read-back, for checks of its own. */
const exactRoundTrip = <A extends Table.StoredRecord>(table: Table.Table<A>, record: A): A => {
  const back = roundTrip(table, record)
  expect(back).toStrictEqual(record)
  return back
}

const t = Date.UTC(2026, 10, 22, 9, 41, 7, 123)

const testScope = { merchantId: "mch_a", environment: "test" as const }

/** An asset of `bytes`. */
const assetOf = (bytes: Uint8Array) =>
  Asset.AssetRecord.make({ id: "asst_1", ...testScope, contentType: "image/png", size: bytes.length, sha256: "0".repeat(64), bytes, createdAt: t, version: 1 })

const fullIntent = PaymentIntent.PaymentIntentRecord.make({
  id: "dord_0123456789abcdefABCDEF",
  merchantId: "mch_a",
  environment: "live",
  amount: "999999999999999999",
  currency: "THB",
  country: "TH",
  checkoutMode: "hosted",
  status: "processing",
  merchantReference: "order-1",
  paymentMethod: "th_bank_transfer",
  nextAction: {
    type: "display_bank_transfer_instructions",
    bank_code: "kbank",
    bank_name: "Kasikornbank",
    account_number: "1234567890",
    account_name: "สมชาย ใจดี",
    reference: "R1",
    amount: "999999999999999999",
    currency: "THB",
    expires_at: "2026-11-22T10:41:07.123Z",
    requires_receipt: true
  },
  failureCode: "declined",
  failureMessage: "Declined by the bank",
  processingReason: "receipt_submitted",
  receipt: { status: "submitted", asset_id: "asst_1" },
  customer: { name: "Somchai Jaidee", email: "s@example.com", phone: "+66 81 234 5678", reference: "c-1" },
  paymentMethodOptions: { bank: "kbank", account_name: "Somchai", account_number: "1234567", name_th: "สมชาย" },
  returnUrl: "https://merchant.example/return?x=1",
  deviceFingerprint: "fp",
  metadata: { "$weird": "dollar", "a.b": "dotted", z: "1", a: "2" },
  externalReference: "ext-1",
  providerCode: "simulator",
  providerPaymentId: "sim_1",
  fingerprint: "f".repeat(64),
  createdAt: t,
  updatedAt: t + 1,
  version: 7
})

describe("documents: records both ways", () => {
  it("every field of a payment intent round trips through BSON", () => {
    exactRoundTrip(PaymentIntent.table, fullIntent)
  })

  it("a payment intent with every nullable field null reads back null, not absent", () => {
    const bare = PaymentIntent.PaymentIntentRecord.make({
      id: "dord_1",
      merchantId: "mch_a",
      environment: "test",
      amount: "1",
      currency: "THB",
      country: "TH",
      checkoutMode: "merchant",
      status: "requires_action",
      customer: {},
      fingerprint: "f",
      createdAt: t,
      updatedAt: t,
      version: 1
    })
    const back = roundTrip(PaymentIntent.table, bare)
    expect(back).toStrictEqual(bare)
    expect(back.nextAction).toBeNull()
    expect(Object.keys(back)).toStrictEqual(Object.keys(toRecord(PaymentIntent.table, toDocument(PaymentIntent.table, bare))))
  })

  it("D4 an 18-digit amount is stored as the string itself and reads back exactly", () => {
    const doc = toDocument(PaymentIntent.table, fullIntent)
    expect(doc["amount"]).toBe("999999999999999999")
    expect(roundTrip(PaymentIntent.table, { ...fullIntent, amount: "100000000000000001" }).amount).toBe("100000000000000001")
  })

  it("D4 times are BSON dates exact to the millisecond", () => {
    const doc = toDocument(PaymentIntent.table, fullIntent)
    expect(doc["created_at"]).toBeInstanceOf(Date)
    const back = throughBson(doc)
    expect(back["created_at"]).toBeInstanceOf(Date)
    expect((back["created_at"] as Date).getTime()).toBe(t)
    expect(roundTrip(PaymentIntent.table, fullIntent).updatedAt).toBe(t + 1)
  })

  it("json fields are embedded documents that keep their key order, including nested ones", () => {
    const data = { z: 1, a: { y: [3, { q: 1, b: 2 }], b: null }, m: "x", "$dollar": true, "dot.ted": 1.5 }
    const ev = Event.EventRecord.make({
      id: "evt_1",
      ...testScope,
      type: "payment_intent.created",
      resourceType: "payment_intent",
      resourceId: "dord_1",
      resourceVersion: 1,
      ordinal: 0,
      data,
      createdAt: t,
      version: 1
    })
    expect(toDocument(Event.table, ev)["data"]).toStrictEqual(data)
    expect(JSON.stringify(exactRoundTrip(Event.table, ev).data)).toBe(JSON.stringify(data))
  })

  it("inside json, null stays null and an absent (undefined) field stays absent", () => {
    const field = fieldOf(PaymentIntent.table, "receipt")
    const stored = encodeValue(field, { status: "required", asset_id: undefined, note: null })
    expect(stored).toStrictEqual({ status: "required", note: null })
    const back = decodeValue(field, throughBson({ v: stored })["v"]) as Record<string, unknown>
    expect("asset_id" in back).toBe(false)
    expect(back["note"]).toBeNull()
  })

  it("bytes are BSON Binary and read back as a Uint8Array byte for byte", () => {
    const bytes = new Uint8Array(256).map((_, i) => i)
    const asset = assetOf(bytes)
    expect(toDocument(Asset.table, asset)["bytes"]).toBeInstanceOf(Binary)
    expect(exactRoundTrip(Asset.table, asset).bytes.constructor).toBe(Uint8Array)
  })

  it("a Binary whose buffer is larger than its content reads back only its content", () => {
    const b = new Binary(new Uint8Array([1, 2, 3]))
    b.put(4)
    expect(decodeValue(fieldOf(Asset.table, "bytes"), b)).toStrictEqual(new Uint8Array([1, 2, 3, 4]))
  })

  it("every field of a task round trips, leased and not", () => {
    const task = taskRecord(t)
    exactRoundTrip(Task.table, task)
    const leased = { ...task, leaseOwner: "w1", leaseUntil: t + 60_000, lastError: "boom", attempts: 3, version: 4 }
    exactRoundTrip(Task.table, leased)
  })

  it("integers and times read back as numbers whatever BSON number type holds them", () => {
    const version = fieldOf(Task.table, "version")
    expect(decodeValue(version, new BSON.Int32(5))).toBe(5)
    expect(decodeValue(version, BSON.Long.fromNumber(2 ** 40))).toBe(2 ** 40)
    expect(decodeValue(version, 7n)).toBe(7)
    expect(decodeValue(fieldOf(Task.table, "dueAt"), new Date(t))).toBe(t)
  })

  it("a field the document lacks reads back null", () => {
    const doc = toDocument(Task.table, {
      id: "task_1",
      merchantId: "m",
      environment: "test",
      kind: "payment_intent.expire",
      resourceId: "r",
      status: "pending",
      dueAt: t,
      attempts: 0,
      leaseOwner: null,
      leaseUntil: null,
      lastError: null,
      createdAt: t,
      updatedAt: t,
      version: 1
    })
    delete doc["last_error"]
    expect(toRecord(Task.table, doc).lastError).toBeNull()
  })

  it("D10 a payment intent stored before refunds existed reads back with amount_refunded and refunds_pending \"0\"", () => {
    const doc = throughBson(toDocument(PaymentIntent.table, fullIntent))
    delete doc["amount_refunded"]
    delete doc["refunds_pending"]
    delete doc["cancellation_reason"]
    const read = toRecord(PaymentIntent.table, doc)
    expect([read.amountRefunded, read.refundsPending, read.cancellationReason]).toStrictEqual(["0", "0", null])
  })

  it("webhook tools: an endpoint and an attempt stored before the webhook tools existed read back with failingSince, eventType and url null; a disabled endpoint round trips", () => {
    const endpoint = WebhookEndpoint.WebhookEndpointRecord.make({
      id: "we_0123456789abcdefABCDEF01",
      merchantId: "mch_a",
      environment: "test",
      url: "https://hooks.example.com/x",
      description: null,
      enabledEvents: ["*"],
      secrets: [{ encrypted: "aXY.dGFn.Ym9keQ", expiresAt: null }],
      status: "disabled",
      failingSince: null,
      createdAt: t,
      updatedAt: t,
      version: 2
    })
    expect(roundTrip(WebhookEndpoint.table, endpoint)).toStrictEqual(endpoint)
    const old = throughBson(toDocument(WebhookEndpoint.table, { ...endpoint, status: "enabled", failingSince: t }))
    delete old["failing_since"]
    expect(toRecord(WebhookEndpoint.table, old).failingSince).toBeNull()
    const attempt = WebhookDelivery.AttemptRecord.make({
      id: "wha_0123456789abcdefABCDEF01",
      merchantId: "mch_a",
      environment: "test",
      endpointId: endpoint.id,
      eventId: "evt_0123456789abcdefABCDEF01",
      eventType: "payment_intent.succeeded",
      url: endpoint.url,
      attempt: 1,
      statusCode: 200,
      durationMillis: 3,
      error: null,
      createdAt: t,
      version: 1
    })
    expect(roundTrip(WebhookDelivery.attemptTable, attempt)).toStrictEqual(attempt)
    const before = throughBson(toDocument(WebhookDelivery.attemptTable, attempt))
    delete before["event_type"]
    delete before["url"]
    const read = toRecord(WebhookDelivery.attemptTable, before)
    expect([read.eventType, read.url]).toStrictEqual([null, null])
  })

  it("D10 every field of a refund round trips through BSON, the destination's account number in full", () => {
    exactRoundTrip(Refund.table, Fixtures.completeRefund(testScope, "dord_0123456789abcdefABCDEF", { createdAt: t, updatedAt: t + 1 }))
    const intent = { ...fullIntent, status: "canceled" as const, cancellationReason: "duplicate" as const, amountRefunded: "12", refundsPending: "3" }
    exactRoundTrip(PaymentIntent.table, intent)
  })

  it("documents name fields by column, in record order", () => {
    expect(Object.keys(toDocument(PaymentIntent.table, fullIntent))).toStrictEqual(PaymentIntent.table.fields.map((f) => f.column))
    expect(() => fieldOf(PaymentIntent.table, "nope")).toThrow(/payment_intents has no field nope/)
  })

  it("a document that cannot be read is a StorageFailure, never a defect", () => {
    const doc = { ...toDocument(Asset.table, assetOf(new Uint8Array([1]))), bytes: "not bytes" }
    const failed = Effect.runSync(Effect.flip(readRecord(Asset.table, doc)))
    expect(failed._tag).toBe("StorageFailure")
    expect(failed.message).toBe("mongodb: read assets failed")
  })
})
