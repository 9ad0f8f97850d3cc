/** D10 over HTTP, black box: cancel a payment intent, checked through the fetch handler only, as a test written from the decisions alone would. */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@tender/core"
import { keys } from "../../core/test/fixtures.js"
import { absent, world } from "./d10World.js"
import { assertError } from "./harness.js"

describe("D10 cancel over HTTP", () => {
  it("D10 cancel: body absent, {} and each valid reason -> 200 canceled, next_action null, cancellation_reason set", async () => {
    const w = await world()
    for (
      const body of [undefined, {}, { cancellation_reason: "requested_by_customer" }, { cancellation_reason: "duplicate" }, {
        cancellation_reason: "abandoned"
      }]
    ) {
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
