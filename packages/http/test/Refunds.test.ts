/** D10 over HTTP, black box: create refunds, checked through the fetch handler only, as a test written from the decisions alone would. */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@tender/core"
import { bankTransfer, promptpayFor } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { absent, D4Time, fields, world } from "./d10World.js"
import { assertError } from "./harness.js"

describe("D10 refunds over HTTP", () => {
  it("D10 POST /refunds with only payment_intent refunds the remainder: 201, exactly the D10 fields", async () => {
    const w = await world()
    const pi = await w.paid()
    const res = await w.refund({ payment_intent: pi.id })
    assert.strictEqual(res.status, 201, res.text)
    assert.sameMembers(Object.keys(res.json), fields)
    assert.match(res.json.id, /^rfnd_[0-9A-Za-z]{24}$/)
    assert.strictEqual(res.json.object, "refund")
    assert.strictEqual(res.json.environment, "test")
    assert.strictEqual(res.json.payment_intent, pi.id)
    assert.strictEqual(res.json.amount, "150000")
    assert.strictEqual(res.json.currency, pi.currency)
    assert.strictEqual(res.json.status, "pending")
    for (const k of ["reason", "merchant_reference", "destination", "failure_code", "failure_message", "metadata"]) assert.isNull(res.json[k], k)
    assert.match(res.json.created_at, D4Time)
    assert.match(res.json.updated_at, D4Time)
    await w.work()
    const got = await w.req("GET", `/refunds/${res.json.id}`)
    assert.strictEqual(got.json.status, "succeeded")
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.amount_refunded, "150000")
    assertError(await w.refund({ payment_intent: pi.id, amount: "1" }), 409, "amount_exceeds_refundable", "amount")
  })

  it("D10 D4 amount: leading zero, \"0\", negative, a number, 19 digits, a decimal -> 400 param amount", async () => {
    const w = await world()
    const pi = await w.paid()
    for (const amount of ["0100", "0", "-5", 100, "1234567890123456789", "1.5", "", " 100", null]) {
      assertError(await w.refund({ payment_intent: pi.id, amount }), 400, "validation_failed", "amount")
    }
    assert.strictEqual((await w.req("GET", `/refunds?payment_intent=${pi.id}`)).json.data.length, 0)
  })

  it("D10 a refund of an intent not succeeded -> 409 payment_intent_unexpected_state", async () => {
    const w = await world()
    const open = await w.intent()
    const failed = await w.intent(Simulator.magicAmounts.declineOnCreate)
    const canceled = await w.intent()
    await w.req("POST", `/payment_intents/${canceled.id}/cancel`)
    for (const id of [open.id, failed.id, canceled.id]) {
      assertError(await w.refund({ payment_intent: id }), 409, "payment_intent_unexpected_state")
    }
  })

  it("D10 partial refunds adding up exactly to the amount are accepted; one more unit -> 409 amount_exceeds_refundable", async () => {
    const w = await world()
    const pi = await w.paid("1000")
    assertError(await w.refund({ payment_intent: pi.id, amount: "1001" }), 409, "amount_exceeds_refundable", "amount")
    assert.strictEqual((await w.refund({ payment_intent: pi.id, amount: "600" })).status, 201)
    assert.strictEqual((await w.refund({ payment_intent: pi.id, amount: "400" })).status, 201)
    assertError(await w.refund({ payment_intent: pi.id, amount: "1" }), 409, "amount_exceeds_refundable", "amount")
    assertError(await w.refund({ payment_intent: pi.id }), 409, "amount_exceeds_refundable")
    await w.work()
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.amount_refunded, "1000")
  })

  it("D10 a failed refund (magic amount) is failed with its failure code and its amount is refundable again", async () => {
    const w = await world()
    const pi = await w.paid("50000")
    const failing = await w.refund({ payment_intent: pi.id, amount: Simulator.magicAmounts.refundFails })
    assert.strictEqual(failing.status, 201)
    const rest = await w.refund({ payment_intent: pi.id, amount: String(50000 - 40005) })
    assert.strictEqual(rest.status, 201)
    await w.work()
    const failed = (await w.req("GET", `/refunds/${failing.json.id}`)).json
    assert.strictEqual(failed.status, "failed")
    assert.strictEqual(failed.failure_code, "refund_failed")
    assert.isString(failed.failure_message)
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.amount_refunded, "9995")
    const again = await w.refund({ payment_intent: pi.id, amount: "40005" })
    assert.strictEqual(again.status, 201, again.text)
  })

  it("D10 a slow refund (magic amount) stays pending while its provider has not settled it", async () => {
    const w = await world()
    const pi = await w.paid()
    const slow = await w.refund({ payment_intent: pi.id, amount: Simulator.magicAmounts.slowRefund })
    await w.work()
    assert.strictEqual((await w.req("GET", `/refunds/${slow.json.id}`)).json.status, "pending")
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.amount_refunded, "0")
  })

  it("D10 reason: each merchant reason accepted; late_payment, unknown or null -> 400 param reason", async () => {
    const w = await world()
    const pi = await w.paid()
    for (const reason of ["requested_by_customer", "duplicate", "fraudulent"]) {
      const res = await w.refund({ payment_intent: pi.id, amount: "100", reason })
      assert.strictEqual(res.status, 201, res.text)
      assert.strictEqual(res.json.reason, reason)
    }
    for (const reason of ["late_payment", "other", null, 1]) {
      assertError(await w.refund({ payment_intent: pi.id, amount: "100", reason }), 400, "validation_failed", "reason")
    }
  })

  it("D10 merchant_reference: 1 and 256 accepted, 0 and 257 -> 400; repeated with the same fields -> 200 the original; changed -> 409 idempotency_conflict", async () => {
    const w = await world()
    const pi = await w.paid()
    assertError(await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "" }), 400, "validation_failed", "merchant_reference")
    assertError(await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "r".repeat(257) }), 400, "validation_failed", "merchant_reference")
    assert.strictEqual((await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "r".repeat(256) })).status, 201)
    const first = await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "x" })
    assert.strictEqual(first.status, 201)
    const again = await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "x" })
    assert.strictEqual(again.status, 200, again.text)
    assert.deepStrictEqual(again.json, first.json)
    assertError(await w.refund({ payment_intent: pi.id, amount: "101", merchant_reference: "x" }), 409, "idempotency_conflict")
    assertError(await w.refund({ payment_intent: pi.id, amount: "100", reason: "duplicate", merchant_reference: "x" }), 409, "idempotency_conflict")
    assertError(await w.refund({ payment_intent: pi.id, amount: "100", metadata: { a: "b" }, merchant_reference: "x" }), 409, "idempotency_conflict")
    const listed = await w.req("GET", "/refunds?merchant_reference=x")
    assert.deepStrictEqual(listed.json.data.map((r: { id: string }) => r.id), [first.json.id])
    assert.strictEqual((await w.req("GET", `/refunds?payment_intent=${pi.id}`)).json.data.length, 2)
    // Another merchant may use the same reference.
    assert.strictEqual((await w.refund({ payment_intent: pi.id, merchant_reference: "x" }, keys.otherTest)).status, 404)
  })

  it("D10 a refund's merchant_reference is unique among refunds only: a payment intent's reference and a refund's do not collide", async () => {
    const w = await world()
    const pi = await w.paid("150000", { ...promptpayFor("150000"), merchant_reference: "order-1042" })
    const res = await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "order-1042" })
    assert.strictEqual(res.status, 201, res.text)
    assert.strictEqual(res.json.object, "refund")
    assert.strictEqual((await w.refund({ payment_intent: pi.id, amount: "100", merchant_reference: "shared-2" })).status, 201)
    const other = await w.intent("150000", { ...promptpayFor("150000"), merchant_reference: "shared-2" })
    assert.strictEqual(other.merchant_reference, "shared-2")
  })

  it("D10 metadata as on payment intents: accepted and echoed; a non-string value or an unknown key -> 400 with param", async () => {
    const w = await world()
    const pi = await w.paid()
    const ok = await w.refund({ payment_intent: pi.id, amount: "100", metadata: { order: "1042" } })
    assert.strictEqual(ok.status, 201, ok.text)
    assert.deepStrictEqual(ok.json.metadata, { order: "1042" })
    const bad = await w.refund({ payment_intent: pi.id, amount: "100", metadata: { order: 1042 } })
    assert.strictEqual(bad.status, 400, bad.text)
    assert.match(bad.json.error.param, /^metadata/)
    assertError(await w.refund({ payment_intent: pi.id, amount: "100", note: "x" }), 400, "validation_failed", "note")
  })

  it("D10 payment_intent: missing -> 400; malformed -> 400 as the path ids; unknown, other merchant's or environment's -> 404", async () => {
    const w = await world()
    const pi = await w.paid()
    assertError(await w.refund({ amount: "100" }), 400, "validation_failed", "payment_intent")
    assertError(await w.refund({ payment_intent: "dord_short" }), 400, "validation_failed", "payment_intent")
    assertError(await w.refund({ payment_intent: 12 }), 400, "validation_failed", "payment_intent")
    assertError(await w.refund({ payment_intent: absent }), 404, "resource_not_found")
    assertError(await w.refund({ payment_intent: pi.id }, keys.otherTest), 404, "resource_not_found")
    assertError(await w.refund({ payment_intent: pi.id }, keys.demoLive), 404, "resource_not_found")
    assert.strictEqual((await w.req("GET", `/refunds?payment_intent=${pi.id}`)).json.data.length, 0)
  })

  it("D10 destination: required where the method refunds to a bank account; shown masked to its last 4", async () => {
    const w = await world()
    const pi = await w.paid("150000", bankTransfer("1234567890"))
    assertError(await w.refund({ payment_intent: pi.id }), 400, "validation_failed", "destination")
    const destination = { type: "bank_account", bank: "KBANK", account_number: "9876543210", account_name: "Somchai Jaidee" }
    for (const bad of [{ ...destination, type: "card" }, { ...destination, extra: 1 }, { bank: "KBANK" }, "KBANK"]) {
      const res = await w.refund({ payment_intent: pi.id, destination: bad })
      assert.strictEqual(res.status, 400, res.text)
      assert.match(res.json.error.param, /^destination/)
    }
    const res = await w.refund({ payment_intent: pi.id, amount: "100", destination })
    assert.strictEqual(res.status, 201, res.text)
    assert.strictEqual(res.json.destination.type, "bank_account")
    assert.strictEqual(res.json.destination.bank, "KBANK")
    assert.notInclude(res.text, "9876543210")
    assert.isTrue(res.json.destination.account_number.endsWith("3210"))
    assert.notInclude((await w.req("GET", `/refunds/${res.json.id}`)).text, "9876543210")
    assert.notInclude((await w.req("GET", "/refunds")).text, "9876543210")
    // A method refunded to its source takes a destination as optional.
    const pp = await w.paid()
    assert.strictEqual((await w.refund({ payment_intent: pp.id, amount: "100" })).status, 201)
  })

  it("D10 4.9 POST /refunds under an Idempotency-Key replays byte for byte and refunds once", async () => {
    const w = await world()
    const pi = await w.paid()
    const headers = { "idempotency-key": crypto.randomUUID() }
    const first = await w.refund({ payment_intent: pi.id, amount: "100" }, keys.demoTest, headers)
    const again = await w.refund({ payment_intent: pi.id, amount: "100" }, keys.demoTest, headers)
    assert.strictEqual(first.status, 201)
    assert.strictEqual(again.status, 201)
    assert.strictEqual(again.text, first.text)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    assertError(await w.refund({ payment_intent: pi.id, amount: "101" }, keys.demoTest, headers), 409, "idempotency_conflict")
    assert.strictEqual((await w.req("GET", `/refunds?payment_intent=${pi.id}`)).json.data.length, 1)
  })
})
