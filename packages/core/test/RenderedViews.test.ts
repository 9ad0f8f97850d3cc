/**
 * A payment intent's read view as JSON text (`PaymentIntent.toResourceJson`), kept only
 * with a frozen record (what the in-memory store holds). The text must be the view's
 * `JSON.stringify`, and a change (a new record) must never show the old text.
 */
import { assert, describe, it } from "@effect/vitest"
import { PaymentIntent } from "@tender/core"

const record = (status: PaymentIntent.PaymentIntentRecord["status"], version: number) =>
  PaymentIntent.PaymentIntentRecord.make({
    id: "dord_000000000000000000000001",
    merchantId: "mch_demo",
    environment: "test",
    amount: "150000",
    currency: "THB",
    country: "TH",
    checkoutMode: "merchant",
    status,
    paymentMethod: "th_promptpay",
    customer: { name: "Somchai Jaidee" },
    fingerprint: "f".repeat(64),
    createdAt: Date.UTC(2026, 10, 26),
    updatedAt: Date.UTC(2026, 10, 26) + version,
    version
  })

describe("PaymentIntent.toResourceJson", () => {
  it("4.2 the text is the read view's JSON, frozen or not", () => {
    const r = record("requires_action", 1)
    assert.strictEqual(PaymentIntent.toResourceJson(r), JSON.stringify(PaymentIntent.toResource(r)))
    const frozen = Object.freeze(record("requires_action", 1))
    assert.strictEqual(PaymentIntent.toResourceJson(frozen), JSON.stringify(PaymentIntent.toResource(frozen)))
  })

  it("4.2 a changed intent (a new record of the same id, or the same id in another store) never shows another record's text", () => {
    const before = Object.freeze(record("requires_action", 1))
    const after = Object.freeze(record("succeeded", 2))
    const sameVersionElsewhere = Object.freeze(record("failed", 1))
    assert.include(PaymentIntent.toResourceJson(before), `"status":"requires_action"`)
    assert.include(PaymentIntent.toResourceJson(after), `"status":"succeeded"`)
    assert.include(PaymentIntent.toResourceJson(sameVersionElsewhere), `"status":"failed"`)
    assert.include(PaymentIntent.toResourceJson(before), `"status":"requires_action"`)
  })
})
