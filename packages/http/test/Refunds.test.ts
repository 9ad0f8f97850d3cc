/**
 * D10 over HTTP, black box: cancel a payment intent and refund a succeeded one, checked through
 * the fetch handler only, as a test written from the decisions alone would. The workers that
 * run the provider tasks are drained explicitly (`Workers.drain`), so no test waits on a clock.
 */
import { bankTransfer, promptpayFor } from "@tender/test-support"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Event, Simulator, Workers } from "@tender/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { keys, layer } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import { assertError, call, type Key } from "./harness.js"

const disposers: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const d of disposers) await d()
})

/** A handler and the workers over the same store. */
const world = async () => {
  const runtime = ManagedRuntime.make(layer())
  const context = await runtime.runPromise(Effect.context<TenderHttp.Services>())
  const { dispose, handler } = TenderHttp.toWebHandler(Layer.succeedContext(context))
  disposers.push(async () => {
    await dispose()
    await runtime.dispose()
  })
  const req = (method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
    call(handler, method, path, { key: keys.demoTest, ...options })
  const work = async () => {
    for (let i = 0; i < 4; i++) await runtime.runPromise(Workers.drain({ owner: "test" }))
  }
  const intent = async (amount = "150000", body: Record<string, unknown> = promptpayFor(amount)) => {
    const res = await req("POST", "/payment_intents", { body: { ...body, amount } })
    assert.strictEqual(res.status, 201, res.text)
    return res.json
  }
  const paid = async (amount = "150000", body?: Record<string, unknown>) => {
    const created = await intent(amount, body)
    if (body?.payment_method === "th_bank_transfer") {
      const form = new FormData()
      const png = new Uint8Array(64)
      png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
      form.append("file", new Blob([png], { type: "image/png" }), "r.png")
      const submitted = await req("POST", `/payment_intents/${created.id}/receipt`, { form, headers: { "idempotency-key": crypto.randomUUID() } })
      assert.strictEqual(submitted.status, 200, submitted.text)
    } else {
      assert.strictEqual((await req("POST", `/payment_intents/${created.id}/confirm`)).status, 200)
    }
    await work()
    const got = await req("GET", `/payment_intents/${created.id}`)
    assert.strictEqual(got.json.status, "succeeded", got.text)
    return got.json
  }
  const refund = (body: Record<string, unknown>, key: Key = keys.demoTest, headers: Record<string, string> = {}) =>
    req("POST", "/refunds", { key, body, headers })
  /** The events of one resource as stored (D7: written with the change), as envelopes. */
  const events = (resourceId: string) =>
    runtime.runPromise(Event.forResource({ merchantId: "mch_demo", environment: "test" }, resourceId)).then((rows) => rows.map(Event.toEnvelope))
  return { handler, req, work, intent, paid, refund, events }
}

const absent = "dord_000000000000000000000000"
const D4Time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe("D10 cancel over HTTP", () => {
  it("D10 cancel: body absent, {} and each valid reason -> 200 canceled, next_action null, cancellation_reason set", async () => {
    const w = await world()
    for (const body of [undefined, {}, { cancellation_reason: "requested_by_customer" }, { cancellation_reason: "duplicate" }, { cancellation_reason: "abandoned" }]) {
      const pi = await w.intent()
      const res = await w.req("POST", `/payment_intents/${pi.id}/cancel`, body === undefined ? {} : { body })
      assert.strictEqual(res.status, 200, res.text)
      assert.strictEqual(res.json.object, "payment_intent")
      assert.strictEqual(res.json.status, "canceled")
      assert.isNull(res.json.next_action)
      assert.strictEqual(res.json.cancellation_reason, body?.cancellation_reason ?? null)
      assert.strictEqual(res.json.amount_refunded, "0")
      const got = await w.req("GET", `/payment_intents/${pi.id}`)
      assert.strictEqual(got.json.status, "canceled")
      assert.strictEqual(got.json.cancellation_reason, body?.cancellation_reason ?? null)
    }
  })

  it("D10 cancel: an empty body with a JSON content type is the same as absent", async () => {
    const w = await world()
    const pi = await w.intent()
    const res = await w.req("POST", `/payment_intents/${pi.id}/cancel`, { raw: "", headers: { "content-type": "application/json" } })
    assert.strictEqual(res.status, 200, res.text)
  })

  it("D10 cancel: an invalid reason, an unknown key, non-JSON or a non-object body -> 400 and the intent is untouched", async () => {
    const w = await world()
    const pi = await w.intent()
    const path = `/payment_intents/${pi.id}/cancel`
    assertError(await w.req("POST", path, { body: { cancellation_reason: "fraudulent" } }), 400, "validation_failed", "cancellation_reason")
    assertError(await w.req("POST", path, { body: { cancellation_reason: null } }), 400, "validation_failed", "cancellation_reason")
    assertError(await w.req("POST", path, { body: { reason: "duplicate" } }), 400, "validation_failed", "reason")
    assert.strictEqual((await w.req("POST", path, { raw: "{not json", headers: { "content-type": "application/json" } })).status, 400)
    assert.strictEqual((await w.req("POST", path, { body: [] })).status, 400)
    const text = await w.req("POST", path, { raw: "cancellation_reason=duplicate", headers: { "content-type": "text/plain" } })
    assert.isAtLeast(text.status, 400)
    assert.isBelow(text.status, 500)
    assertError(text, text.status, text.json.error.code)
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.status, "requires_action")
  })

  it("D10 cancel twice -> the second is 409 payment_intent_unexpected_state", async () => {
    const w = await world()
    const pi = await w.intent()
    assert.strictEqual((await w.req("POST", `/payment_intents/${pi.id}/cancel`)).status, 200)
    assertError(await w.req("POST", `/payment_intents/${pi.id}/cancel`), 409, "payment_intent_unexpected_state")
  })

  it("D10 cancel of succeeded, failed, processing or expired -> 409 payment_intent_unexpected_state", async () => {
    const w = await world()
    const succeeded = await w.paid()
    const failed = await w.intent(Simulator.magicAmounts.declineOnCreate)
    const processing = await w.intent(Simulator.magicAmounts.slowConfirmation)
    assert.strictEqual((await w.req("POST", `/payment_intents/${processing.id}/confirm`)).status, 200)
    await w.work()
    assert.strictEqual((await w.req("GET", `/payment_intents/${processing.id}`)).json.status, "processing")
    assert.strictEqual(failed.status, "failed")
    for (const id of [succeeded.id, failed.id, processing.id]) {
      assertError(await w.req("POST", `/payment_intents/${id}/cancel`), 409, "payment_intent_unexpected_state")
    }
  })

  it("D10 cancel: unknown, another merchant's or another environment's id -> 404; malformed id -> 400 as GET does", async () => {
    const w = await world()
    const pi = await w.intent()
    assertError(await w.req("POST", `/payment_intents/${absent}/cancel`), 404, "resource_not_found")
    assertError(await w.req("POST", `/payment_intents/${pi.id}/cancel`, { key: keys.otherTest }), 404, "resource_not_found")
    assertError(await w.req("POST", `/payment_intents/${pi.id}/cancel`, { key: keys.demoLive }), 404, "resource_not_found")
    const get = await w.req("GET", "/payment_intents/dord_short")
    const cancel = await w.req("POST", "/payment_intents/dord_short/cancel")
    assertError(cancel, get.status, get.json.error.code, get.json.error.param)
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.status, "requires_action")
  })

  it("D10 every payment intent carries cancellation_reason null and amount_refunded \"0\": create, get, list", async () => {
    const w = await world()
    const pi = await w.intent()
    for (const shown of [pi, (await w.req("GET", `/payment_intents/${pi.id}`)).json, (await w.req("GET", "/payment_intents")).json.data[0]]) {
      assert.strictEqual(shown.id, pi.id)
      assert.isNull(shown.cancellation_reason)
      assert.strictEqual(shown.amount_refunded, "0")
    }
  })

  it("D10 4.9 cancel under an Idempotency-Key: the retry replays the same body byte for byte with Idempotent-Replayed: true", async () => {
    const w = await world()
    const pi = await w.intent()
    const headers = { "idempotency-key": crypto.randomUUID() }
    const first = await w.req("POST", `/payment_intents/${pi.id}/cancel`, { body: { cancellation_reason: "duplicate" }, headers })
    const again = await w.req("POST", `/payment_intents/${pi.id}/cancel`, { body: { cancellation_reason: "duplicate" }, headers })
    assert.strictEqual(first.status, 200)
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.text, first.text)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    assertError(await w.req("POST", `/payment_intents/${pi.id}/cancel`, { body: { cancellation_reason: "abandoned" }, headers }), 409, "idempotency_conflict")
  })

  it("D10 4.3 GET /payment_intents?status=canceled lists the canceled intents only", async () => {
    const w = await world()
    const canceled = await w.intent()
    const open = await w.intent()
    await w.req("POST", `/payment_intents/${canceled.id}/cancel`)
    const res = await w.req("GET", "/payment_intents?status=canceled")
    assert.strictEqual(res.status, 200, res.text)
    assert.deepStrictEqual(res.json.data.map((p: { id: string }) => p.id), [canceled.id])
    assert.notInclude(res.json.data.map((p: { id: string }) => p.id), open.id)
  })

  it("D10 D7 payment_intent.canceled is emitted with the intent as data.object and is in the catalogue with an example", async () => {
    const w = await world()
    const pi = await w.intent()
    await w.req("POST", `/payment_intents/${pi.id}/cancel`, { body: { cancellation_reason: "abandoned" } })
    const canceled = (await w.events(pi.id)).filter((e) => e.type === "payment_intent.canceled")
    assert.lengthOf(canceled, 1)
    assert.strictEqual(canceled[0]!.object, "event")
    assert.match(canceled[0]!.id, /^evt_/)
    assert.strictEqual(canceled[0]!.environment, "test")
    const object = canceled[0]!.data.object as Record<string, unknown>
    assert.strictEqual(object.id, pi.id)
    assert.strictEqual(object.status, "canceled")
    assert.strictEqual(object.cancellation_reason, "abandoned")
    const catalogue = await w.req("GET", "/webhook_event_types")
    const entry = catalogue.json.data.find((d: { type: string }) => d.type === "payment_intent.canceled")
    assert.strictEqual(entry.example.data.object.status, "canceled")
    assert.strictEqual(entry.example.data.object.object, "payment_intent")
  })

  it("D10 a payment the provider reports after the cancel leaves the intent canceled and refunds it as late_payment", async () => {
    const w = await world()
    const pi = await w.intent(Simulator.magicAmounts.paidAfterCancel)
    assert.strictEqual((await w.req("POST", `/payment_intents/${pi.id}/cancel`)).json.status, "canceled")
    await w.work()
    const got = await w.req("GET", `/payment_intents/${pi.id}`)
    assert.strictEqual(got.json.status, "canceled")
    const refunds = await w.req("GET", `/refunds?payment_intent=${pi.id}`)
    assert.lengthOf(refunds.json.data, 1)
    assert.strictEqual(refunds.json.data[0].reason, "late_payment")
    assert.strictEqual(refunds.json.data[0].amount, Simulator.magicAmounts.paidAfterCancel)
    assert.strictEqual(refunds.json.data[0].status, "succeeded")
    assert.strictEqual(got.json.amount_refunded, Simulator.magicAmounts.paidAfterCancel)
    const types = (await w.events(refunds.json.data[0].id)).map((e) => e.type)
    assert.deepStrictEqual(types, ["refund.created", "refund.succeeded"])
    // A second run of the workers refunds nothing twice.
    await w.work()
    assert.lengthOf((await w.req("GET", `/refunds?payment_intent=${pi.id}`)).json.data, 1)
  })
})

const fields = [
  "object", "id", "environment", "payment_intent", "amount", "currency", "status", "reason", "merchant_reference",
  "destination", "failure_code", "failure_message", "metadata", "created_at", "updated_at"
]

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

describe("D10 reading refunds over HTTP", () => {
  it("D10 GET /refunds/{id}: 404 across merchants and environments, 400 for a malformed id", async () => {
    const w = await world()
    const pi = await w.paid()
    const r = (await w.refund({ payment_intent: pi.id, amount: "100" })).json
    const got = await w.req("GET", `/refunds/${r.id}`)
    assert.strictEqual(got.status, 200)
    assert.deepStrictEqual(got.json, r)
    assertError(await w.req("GET", `/refunds/${r.id}`, { key: keys.otherTest }), 404, "resource_not_found")
    assertError(await w.req("GET", `/refunds/${r.id}`, { key: keys.demoLive }), 404, "resource_not_found")
    assertError(await w.req("GET", "/refunds/rfnd_000000000000000000000000"), 404, "resource_not_found")
    assertError(await w.req("GET", "/refunds/rfnd_x"), 400, "validation_failed", "id")
  })

  it("D10 D6 GET /refunds: envelope, newest first, limit bounds, bad cursor -> 400 cursor, filters", async () => {
    const w = await world()
    const a = await w.paid()
    const b = await w.paid()
    const r1 = (await w.refund({ payment_intent: a.id, amount: "100" })).json
    const r2 = (await w.refund({ payment_intent: a.id, amount: Simulator.magicAmounts.refundFails })).json
    const r3 = (await w.refund({ payment_intent: b.id, amount: "300", merchant_reference: "ref-3" })).json
    await w.work()
    const all = await w.req("GET", "/refunds")
    assert.strictEqual(all.status, 200, all.text)
    assert.sameMembers(Object.keys(all.json), ["data", "has_more", "next_cursor"])
    assert.isNull(all.json.next_cursor)
    assert.deepStrictEqual(all.json.data.map((r: { id: string }) => r.id), [r3.id, r2.id, r1.id])
    assert.isFalse(all.json.has_more)
    const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((r) => r.id)
    assert.deepStrictEqual(ids(await w.req("GET", `/refunds?payment_intent=${a.id}`)), [r2.id, r1.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?status=failed")), [r2.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?status=failed,succeeded")), [r3.id, r2.id, r1.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?merchant_reference=ref-3")), [r3.id])
    assertError(await w.req("GET", "/refunds?status=canceled"), 400, "validation_failed", "status")
    assertError(await w.req("GET", "/refunds?limit=0"), 400, "validation_failed", "limit")
    assertError(await w.req("GET", "/refunds?limit=101"), 400, "validation_failed", "limit")
    assertError(await w.req("GET", "/refunds?cursor=garbage"), 400, "validation_failed", "cursor")
    assertError(await w.req("GET", "/refunds?amount=100"), 400, "validation_failed", "amount")
    assertError(await w.req("GET", "/refunds?payment_intent=dord_x"), 400, "validation_failed", "payment_intent")
    // Pages: limit 1, then the cursor.
    const page1 = await w.req("GET", "/refunds?limit=1")
    assert.isTrue(page1.json.has_more)
    assert.deepStrictEqual(ids(page1), [r3.id])
    const cursor = page1.json.next_cursor
    assert.isString(cursor, page1.text)
    const page2 = await w.req("GET", `/refunds?limit=1&cursor=${encodeURIComponent(cursor)}`)
    assert.deepStrictEqual(ids(page2), [r2.id])
    // A cursor never widens what the caller sees: another merchant's filter set or a wider one.
    const other = await w.req("GET", `/refunds?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: keys.otherTest })
    assert.include([200, 400], other.status)
    if (other.status === 200) assert.lengthOf(other.json.data, 0)
    const filtered = await w.req("GET", `/refunds?payment_intent=${b.id}&limit=1`)
    assert.deepStrictEqual(ids(filtered), [r3.id])
    assert.isFalse(filtered.json.has_more)
    const reused = await w.req("GET", `/refunds?status=succeeded&limit=5&cursor=${encodeURIComponent(cursor)}`)
    if (reused.status === 200) for (const r of reused.json.data) assert.strictEqual(r.status, "succeeded")
    else assertError(reused, 400, "validation_failed", "cursor")
  })

  it("D10 4.3 created_after is inclusive and created_before exclusive; an offset is required", async () => {
    const w = await world()
    const pi = await w.paid()
    const r = (await w.refund({ payment_intent: pi.id, amount: "100" })).json
    const ids = async (q: string) => {
      const res = await w.req("GET", `/refunds?${q}`)
      assert.strictEqual(res.status, 200, res.text)
      return res.json.data.map((x: { id: string }) => x.id)
    }
    const at = encodeURIComponent(r.created_at)
    assert.deepStrictEqual(await ids(`created_after=${at}`), [r.id])
    assert.deepStrictEqual(await ids(`created_before=${at}`), [])
    const later = encodeURIComponent(new Date(Date.parse(r.created_at) + 1).toISOString())
    assert.deepStrictEqual(await ids(`created_before=${later}`), [r.id])
    assert.deepStrictEqual(await ids(`created_after=${later}`), [])
    assertError(await w.req("GET", "/refunds?created_after=2026-01-01T00:00:00"), 400, "validation_failed", "created_after")
    assertError(await w.req("GET", "/refunds?created_before=yesterday"), 400, "validation_failed", "created_before")
  })
})

describe("D10 refund events over HTTP", () => {
  it("D10 D7 a refund emits refund.created, then refund.succeeded or refund.failed, with the refund as data.object", async () => {
    const w = await world()
    const pi = await w.paid()
    const ok = (await w.refund({ payment_intent: pi.id, amount: "100" })).json
    const ko = (await w.refund({ payment_intent: pi.id, amount: Simulator.magicAmounts.refundFails })).json
    await w.work()
    const okEvents = await w.events(ok.id)
    assert.deepStrictEqual(okEvents.map((e) => e.type), ["refund.created", "refund.succeeded"])
    assert.deepStrictEqual(okEvents[1]!.data.object, (await w.req("GET", `/refunds/${ok.id}`)).json)
    assert.strictEqual((okEvents[0]!.data.object as { status: string }).status, "pending")
    const koEvents = await w.events(ko.id)
    assert.deepStrictEqual(koEvents.map((e) => e.type), ["refund.created", "refund.failed"])
    assert.strictEqual((koEvents[1]!.data.object as { failure_code: string }).failure_code, "refund_failed")
  })

  it("D10 D7 refund.created, refund.succeeded and refund.failed are in the catalogue with a refund as data.object", async () => {
    const w = await world()
    const catalogue = await w.req("GET", "/webhook_event_types")
    for (const type of ["refund.created", "refund.succeeded", "refund.failed"]) {
      const entry = catalogue.json.data.find((d: { type: string }) => d.type === type)
      assert.isDefined(entry, type)
      assert.strictEqual(entry.example.data.object.object, "refund")
      assert.sameMembers(Object.keys(entry.example.data.object), fields)
      assert.match(entry.example.data.object.id, /^rfnd_[0-9A-Za-z]{24}$/)
    }
  })
})

describe("D10 hostile and edge inputs over HTTP", () => {
  it("D10 POST /refunds: a body that is not a JSON object -> 400, never 500", async () => {
    const w = await world()
    for (const raw of ["", "[]", "null", "\"x\"", "{", "{\"payment_intent\":\"dord_000000000000000000000000\",\"amount\":1e3}"]) {
      const res = await w.req("POST", "/refunds", { raw, headers: { "content-type": "application/json" } })
      assert.strictEqual(res.status, 400, `${raw}: ${res.text}`)
      assertError(res, 400, res.json.error.code)
    }
    const form = await w.req("POST", "/refunds", { raw: "payment_intent=x", headers: { "content-type": "application/x-www-form-urlencoded" } })
    assert.isAtLeast(form.status, 400)
    assert.isBelow(form.status, 500)
  })

  it("D10 4.3 GET /refunds: repeated status, offsets other than Z, empty filters", async () => {
    const w = await world()
    const pi = await w.paid()
    const ok = (await w.refund({ payment_intent: pi.id, amount: "100" })).json
    const ko = (await w.refund({ payment_intent: pi.id, amount: Simulator.magicAmounts.refundFails })).json
    await w.work()
    const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((r) => r.id)
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?status=failed&status=succeeded")), [ko.id, ok.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?status=pending")), [])
    const bangkok = encodeURIComponent("2000-01-01T07:00:00.000+07:00")
    assert.deepStrictEqual(ids(await w.req("GET", `/refunds?created_after=${bangkok}`)), [ko.id, ok.id])
    for (const q of ["status=", "payment_intent=", "merchant_reference=", "status=succeeded,", "limit=1.5", "limit=abc", "cursor="]) {
      const res = await w.req("GET", `/refunds?${q}`)
      assert.strictEqual(res.status, 400, `${q}: ${res.text}`)
      assertError(res, 400, "validation_failed", q.split("=")[0])
    }
  })

  it("D10 D4 an 18-digit amount is well formed: over the remainder it is 409 amount_exceeds_refundable, not 400", async () => {
    const w = await world()
    const pi = await w.paid()
    assertError(await w.refund({ payment_intent: pi.id, amount: "999999999999999999" }), 409, "amount_exceeds_refundable", "amount")
  })

  it("D10 4.9 a repeated merchant_reference answers the original even once nothing is left to refund", async () => {
    const w = await world()
    const pi = await w.paid()
    const first = await w.refund({ payment_intent: pi.id, merchant_reference: "all" })
    assert.strictEqual(first.status, 201)
    await w.work()
    const again = await w.refund({ payment_intent: pi.id, merchant_reference: "all" })
    assert.strictEqual(again.status, 200, again.text)
    assert.strictEqual(again.json.id, first.json.id)
    assert.strictEqual(again.json.status, "succeeded")
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.amount_refunded, "150000")
  })

  it("D10 4.2 another merchant filtering GET /refunds by a foreign payment intent sees nothing", async () => {
    const w = await world()
    const pi = await w.paid()
    await w.refund({ payment_intent: pi.id, amount: "100" })
    for (const key of [keys.otherTest, keys.demoLive]) {
      const res = await w.req("GET", `/refunds?payment_intent=${pi.id}`, { key })
      assert.strictEqual(res.status, 200, res.text)
      assert.lengthOf(res.json.data, 0)
    }
  })

  it("D10 D7 the catalogue's payment intent examples carry cancellation_reason and amount_refunded", async () => {
    const w = await world()
    const catalogue = await w.req("GET", "/webhook_event_types")
    for (const entry of catalogue.json.data.filter((d: { type: string }) => d.type.startsWith("payment_intent."))) {
      assert.property(entry.example.data.object, "cancellation_reason", entry.type)
      assert.strictEqual(entry.example.data.object.amount_refunded, "0", entry.type)
    }
  })

  it("D10 the OpenAPI document: cancel's body is optional; every D10 route lists the errors it answers", async () => {
    const w = await world()
    const doc = (await w.req("GET", "/openapi.json")).json
    const cancel = doc.paths["/payment_intents/{id}/cancel"].post
    assert.isFalse(cancel.requestBody.required)
    assert.includeMembers(Object.keys(cancel.responses), ["200", "400", "401", "404", "409"])
    const create = doc.paths["/refunds"].post
    assert.isTrue(create.requestBody.required)
    assert.includeMembers(Object.keys(create.responses), ["200", "201", "400", "401", "404", "409", "422"])
    assert.includeMembers(Object.keys(doc.paths["/refunds/{id}"].get.responses), ["200", "400", "401", "404"])
    assert.includeMembers(Object.keys(doc.paths["/refunds"].get.responses), ["200", "400", "401"])
  })
})
