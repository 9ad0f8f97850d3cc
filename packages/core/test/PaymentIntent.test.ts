import { assert, describe, it } from "@effect/vitest"
import { Fixtures } from "@tender/testing"
import { Schema } from "effect"
import { PaymentIntent, PaymentIntentRecord as PaymentIntentRecordModule, PaymentIntentRequest as PaymentIntentRequestModule } from "../src/index.js"
import type { PaymentIntentRecord } from "../src/paymentIntents/PaymentIntent.js"
import { paymentIntentCreatedFields, paymentIntentFields } from "./fixtures.js"

// The contract suite's complete record: a valid requires_action intent the cases below bend.
const base: PaymentIntentRecord = Fixtures.intent({ merchantId: "mch_demo", environment: "test" }, { providerPaymentId: "sim_1", createdAt: 0, updatedAt: 0 })

describe("PaymentIntent status rules", () => {
  it("3.1.1 requires_action without next_action is a violation", () => {
    assert.deepStrictEqual(PaymentIntent.invariantViolations(base), [])
    assert.include(PaymentIntent.invariantViolations({ ...base, nextAction: null })[0], "3.1.1")
  })

  it("3.1.2 a pending intent with no payer action is processing", () => {
    assert.strictEqual(PaymentIntent.pendingStatus(null), "processing")
    assert.strictEqual(PaymentIntent.pendingStatus({ type: "display_qr_code" }), "requires_action")
    assert.include(
      PaymentIntent.invariantViolations({ ...base, status: "processing" })[0],
      "3.1.2"
    )
  })

  it("3.1.3 every terminal status has next_action null", () => {
    for (const status of ["succeeded", "failed", "expired"] as const) {
      assert.isTrue(PaymentIntent.isTerminal(status))
      const problems = PaymentIntent.invariantViolations({ ...base, status, failureCode: "x", failureMessage: "y" })
      assert.isTrue(problems.some((p) => p.startsWith("3.1.3")), status)
    }
    assert.isFalse(PaymentIntent.isTerminal("requires_action"))
    assert.isFalse(PaymentIntent.isTerminal("processing"))
  })

  it("3.1.4 failure fields are null when there is no failure, and set on failed", () => {
    for (const status of ["requires_action", "processing", "succeeded", "expired"] as const) {
      const record = { ...base, status, nextAction: status === "requires_action" ? base.nextAction : null, failureCode: "x" }
      assert.isTrue(PaymentIntent.invariantViolations(record).some((p) => p.startsWith("3.1.4")), status)
    }
    const failed = { ...base, status: "failed" as const, nextAction: null }
    assert.lengthOf(PaymentIntent.invariantViolations(failed), 1)
    assert.deepStrictEqual(PaymentIntent.invariantViolations({ ...failed, failureCode: "declined", failureMessage: "no" }), [])
  })

  it("2.3 a hosted intent's action is always redirect_to_url", () => {
    assert.isTrue(PaymentIntent.invariantViolations({ ...base, checkoutMode: "hosted" }).some((p) => p.startsWith("2.3")))
    assert.deepStrictEqual(
      PaymentIntent.invariantViolations({
        ...base,
        checkoutMode: "hosted",
        nextAction: { type: "redirect_to_url", url: "https://x", expires_at: "2026-01-01T00:00:00.000Z" }
      }),
      []
    )
  })

  it("3.1 no transition leaves a terminal status, and every pending status can reach each terminal but canceled", () => {
    for (const from of PaymentIntent.statuses) {
      for (const to of PaymentIntent.statuses) {
        if (PaymentIntent.isTerminal(from)) assert.isFalse(PaymentIntent.canTransition(from, to), `${from}->${to}`)
        else if (PaymentIntent.isTerminal(to) && to !== "canceled") assert.isTrue(PaymentIntent.canTransition(from, to), `${from}->${to}`)
      }
    }
  })

  it("D10 canceled is terminal and reached from requires_action only", () => {
    assert.isTrue(PaymentIntent.isTerminal("canceled"))
    for (const from of PaymentIntent.statuses) {
      assert.strictEqual(PaymentIntent.canTransition(from, "canceled"), from === "requires_action", from)
    }
  })

  it("D10 an intent whose pending and succeeded refunds pass its amount, or with a cancellation_reason while not canceled, breaks the rules", () => {
    const intent = { ...base, status: "succeeded" as const, nextAction: null, amount: "1000" }
    assert.deepStrictEqual(PaymentIntent.invariantViolations({ ...intent, amountRefunded: "600", refundsPending: "400" }), [])
    assert.include(
      PaymentIntent.invariantViolations({ ...intent, amountRefunded: "600", refundsPending: "401" }),
      "D10 pending and succeeded refunds add up to more than the amount"
    )
    assert.include(
      PaymentIntent.invariantViolations({ ...intent, cancellationReason: "duplicate" }),
      "D10 cancellation_reason set on an intent that is not canceled"
    )
  })

  it("2.1 the create view has neither processing_reason nor receipt; the read view has both", () => {
    const created = PaymentIntent.toCreatedResource(base)
    assert.notProperty(created, "processing_reason")
    assert.notProperty(created, "receipt")
    const read = PaymentIntent.toResource(base)
    assert.property(read, "processing_reason")
    assert.property(read, "receipt")
    assert.strictEqual(read.created_at, "1970-01-01T00:00:00.000Z")
    assert.match(read.id, /^dord_/)
  })

  it("2.1 the wire schemas: create view has exactly the fields of 2.1 less processing_reason and receipt", () => {
    assert.deepStrictEqual(Object.keys(PaymentIntent.PaymentIntent.fields).sort(), paymentIntentFields)
    assert.deepStrictEqual(Object.keys(PaymentIntent.PaymentIntentCreated.fields).sort(), paymentIntentCreatedFields)
    assert.deepStrictEqual(Object.keys(PaymentIntent.toResource(base)).sort(), paymentIntentFields)
  })
})

describe("PaymentIntent create schema", () => {
  const decode = Schema.decodeUnknownEither(PaymentIntent.CreateParams)
  const ok = { amount: "150000", currency: "THB", country: "TH", customer: {} }

  it("2.1 amount matches ^[1-9]\\d*$ with at most 18 digits (D4)", () => {
    for (const amount of ["1", "150000", "999999999999999999"]) assert.isTrue(decode({ ...ok, amount })._tag === "Right", amount)
    for (const amount of ["0", "0150", "-1", "1.5", "1e3", "1000000000000000000", "", 150000]) {
      assert.isTrue(decode({ ...ok, amount })._tag === "Left", String(amount))
    }
  })

  it("2.1 currency is ^[A-Z]{3,6}$ and country ^[A-Z]{2}$", () => {
    assert.isTrue(decode({ ...ok, currency: "USDT" })._tag === "Right")
    for (const currency of ["thb", "TH", "ABCDEFG"]) assert.isTrue(decode({ ...ok, currency })._tag === "Left", currency)
    for (const country of ["th", "THA", "T"]) assert.isTrue(decode({ ...ok, country })._tag === "Left", country)
  })

  it("2.2 customer is required on every request", () => {
    const { customer: _c, ...noCustomer } = ok
    assert.isTrue(decode(noCustomer)._tag === "Left")
  })

  it("2.2 customer_name and customer_phone are never accepted inside payment_method_options", () => {
    for (const field of ["customer_name", "customer_phone"]) {
      const r = decode({ ...ok, payment_method: "th_bank_transfer", payment_method_options: { [field]: "x" } })
      assert.isTrue(r._tag === "Left", field)
    }
  })

  // Other keys than the four decode here and are 400 at create unless a route's payer family declares them
  // (ProviderPort.test.ts, "a foreign field is 400").
  it("2.2 checkout_mode is hosted or merchant; payment_method_options takes bank, account_name, account_number, name_th, and no key that is not a field name", () => {
    assert.isTrue(decode({ ...ok, checkout_mode: "merchant" })._tag === "Right")
    assert.isTrue(decode({ ...ok, checkout_mode: "popup" })._tag === "Left")
    const options = { bank: "KBANK", account_name: "A", account_number: "0123456789", name_th: "สมชาย" }
    assert.isTrue(decode({ ...ok, payment_method: "th_bank_transfer", payment_method_options: options })._tag === "Right")
    assert.isTrue(decode({ ...ok, payment_method: "th_bank_transfer", payment_method_options: { ...options, "e-mail": "a@b.co" } })._tag === "Left")
  })

  it("2.2 device fingerprint, metadata and external reference are accepted", () => {
    assert.isTrue(decode({ ...ok, device_fingerprint: "fp_1", metadata: { order: "1" }, external_reference: "ext-1" })._tag === "Right")
  })

  it("D1 unknown top-level fields are rejected, not dropped", () => {
    assert.isTrue(decode({ ...ok, amount_cents: 5 })._tag === "Left")
  })

  it("D4 merchant_reference on create is optional, 1 to 256 characters", () => {
    assert.isTrue(decode(ok)._tag === "Right")
    for (const ref of ["x", "x".repeat(256)]) assert.isTrue(decode({ ...ok, merchant_reference: ref })._tag === "Right", ref)
    for (const ref of ["", "x".repeat(257), 42]) assert.isTrue(decode({ ...ok, merchant_reference: ref })._tag === "Left", String(ref))
  })
})

describe("Ids (D4)", () => {
  it("D4 ids are a prefix and 24 base62 characters, never sequential", async () => {
    const { Ids } = await import("../src/index.js")
    const ids = Array.from({ length: 2000 }, () => Ids.randomBase62())
    for (const id of ids) assert.match(id, /^[0-9A-Za-z]{24}$/)
    assert.strictEqual(new Set(ids).size, ids.length)
    // Every one of the 62 characters appears: no alphabet slice is lost to bias.
    assert.strictEqual(new Set(ids.join("")).size, 62)
    assert.isTrue(Ids.isWellFormed("dord_", "dord_" + ids[0]))
    assert.isFalse(Ids.isWellFormed("dord_", "dord_" + ids[0]!.slice(1)))
  })
})

describe("PaymentIntent names its record's and request's exports", () => {
  // PaymentIntent lists them one by one, each with its doc (docs/architecture.md, "Module map of
  // `packages/core`"), not with `export *`: a name added to either module and not to PaymentIntent fails here.
  it("every value of PaymentIntentRecord and PaymentIntentRequest is PaymentIntent's, the same value", () => {
    for (const owner of [PaymentIntentRecordModule, PaymentIntentRequestModule]) {
      for (const [name, value] of Object.entries(owner)) {
        assert.strictEqual((PaymentIntent as Record<string, unknown>)[name], value, name)
      }
    }
  })
})
