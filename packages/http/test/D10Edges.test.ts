/** D10 over HTTP, black box: hostile and edge inputs, concurrency, terminal rules and the OpenAPI document for cancel and refunds. */
import { assert, describe, it } from "@effect/vitest"
import { Simulator, Workers } from "@tender/core"
import { promptpayFor } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime, TestClock, TestContext } from "effect"
import { keys, layer } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import { world } from "./d10World.js"
import { assertError, call } from "./harness.js"

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
    const { ok, ko } = await w.settledRefunds()
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

  it("D10 3.1.3 3.1.4 a canceled intent is terminal: no next_action, no failure, confirm and receipt -> 409", async () => {
    const w = await world()
    const pi = await w.intent()
    const canceled = (await w.req("POST", `/payment_intents/${pi.id}/cancel`)).json
    assert.isNull(canceled.next_action)
    assert.isNull(canceled.failure_code)
    assert.isNull(canceled.failure_message)
    assertError(
      await w.req("POST", `/payment_intents/${pi.id}/confirm`, { headers: { "idempotency-key": crypto.randomUUID() } }),
      409,
      "payment_intent_unexpected_state"
    )
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])], { type: "image/png" }), "r.png")
    assertError(
      await w.req("POST", `/payment_intents/${pi.id}/receipt`, { form, headers: { "idempotency-key": crypto.randomUUID() } }),
      409,
      "payment_intent_unexpected_state"
    )
    await w.work()
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.status, "canceled")
  })

  it("D10 concurrent requests: two cancels -> one 200 and one 409; refunds racing past the amount -> the excess is 409", async () => {
    const w = await world()
    const pi = await w.intent()
    const cancels = await Promise.all([1, 2].map(() => w.req("POST", `/payment_intents/${pi.id}/cancel`)))
    assert.sameMembers(cancels.map((c) => c.status), [200, 409])
    const paid = await w.paid("100000")
    const refunds = await Promise.all([1, 2, 3, 4, 5].map(() => w.refund({ payment_intent: paid.id, amount: "30000" })))
    assert.sameMembers(refunds.map((r) => r.status), [201, 201, 201, 409, 409])
    await w.work()
    assert.strictEqual((await w.req("GET", `/payment_intents/${paid.id}`)).json.amount_refunded, "90000")
  })

  it("D10 cancel with Idempotency-Key: an absent body and {} are the same request; another reason under the key -> 409", async () => {
    const w = await world()
    const pi = await w.intent()
    const headers = { "idempotency-key": crypto.randomUUID() }
    const first = await w.req("POST", `/payment_intents/${pi.id}/cancel`, { headers })
    const again = await w.req("POST", `/payment_intents/${pi.id}/cancel`, { body: {}, headers })
    assert.strictEqual(again.status, 200, again.text)
    assert.strictEqual(again.text, first.text)
    assertError(await w.req("POST", `/payment_intents/${pi.id}/cancel`, { body: { cancellation_reason: "duplicate" }, headers }), 409, "idempotency_conflict")
  })

  it("D10 POST /refunds answers a wrong content type as POST /payment_intents does", async () => {
    const w = await world()
    const pi = await w.paid()
    const body = JSON.stringify({ payment_intent: pi.id, amount: "100" })
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const refund = await w.req("POST", "/refunds", { raw: body, headers: { "content-type": type } })
      const create = await w.req("POST", "/payment_intents", { raw: JSON.stringify(promptpayFor("100")), headers: { "content-type": type } })
      assert.strictEqual(refund.status, create.status, `${type}: ${refund.text} / ${create.text}`)
      if (create.status >= 400) assertError(refund, create.status, create.json.error.code)
    }
  })

  it("D10 D7 a webhook endpoint may subscribe to the D10 events by name", async () => {
    const w = await world()
    const enabled = ["payment_intent.canceled", "refund.created", "refund.succeeded", "refund.failed"]
    const res = await w.req("POST", "/webhook_endpoints", { body: { url: "https://hooks.example.test/d10", enabled_events: enabled } })
    assert.strictEqual(res.status, 201, res.text)
    assert.sameMembers(res.json.enabled_events, enabled)
    assertError(
      await w.req("POST", "/webhook_endpoints", { body: { url: "https://hooks.example.test/d10", enabled_events: ["refund.canceled"] } }),
      400,
      "validation_failed"
    )
  })

  it("D10 D6 a cursor from GET /payment_intents does not page GET /refunds", async () => {
    const w = await world()
    const pi = await w.paid()
    await w.intent()
    await w.refund({ payment_intent: pi.id, amount: "100" })
    const intents = await w.req("GET", "/payment_intents?limit=1")
    const cursor = intents.json.next_cursor as string
    assert.isString(cursor)
    assertError(await w.req("GET", `/refunds?cursor=${encodeURIComponent(cursor)}`), 400, "validation_failed", "cursor")
  })

  it("D1 D10 a body over 1 MiB on cancel or POST /refunds -> 413 param body, and the intent is untouched", async () => {
    const w = await world()
    const pi = await w.intent()
    const big = JSON.stringify({ cancellation_reason: "duplicate", pad: "x".repeat(1024 * 1024) })
    assertError(
      await w.req("POST", `/payment_intents/${pi.id}/cancel`, { raw: big, headers: { "content-type": "application/json" } }),
      413,
      "validation_failed",
      "body"
    )
    assertError(await w.req("POST", "/refunds", { raw: big, headers: { "content-type": "application/json" } }), 413, "validation_failed", "body")
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.status, "requires_action")
  })

  it("D10 a confirm requested before the cancel and run after it leaves the intent canceled and drops no money", async () => {
    const w = await world()
    const pi = await w.intent()
    const confirm = await w.req("POST", `/payment_intents/${pi.id}/confirm`)
    assert.strictEqual(confirm.status, 200, confirm.text)
    // Confirm is durable (4.5): the intent still awaits its payer, so the cancel is allowed.
    assert.strictEqual(confirm.json.status, "requires_action")
    const cancel = await w.req("POST", `/payment_intents/${pi.id}/cancel`)
    assert.strictEqual(cancel.status, 200, cancel.text)
    await w.work()
    const got = (await w.req("GET", `/payment_intents/${pi.id}`)).json
    assert.strictEqual(got.status, "canceled")
    assert.isNull(got.next_action)
    // The confirm never reached the simulator's payer, so nothing was paid and nothing is refunded.
    assert.deepStrictEqual((await w.req("GET", `/refunds?payment_intent=${pi.id}`)).json.data, [])
    assert.strictEqual(got.amount_refunded, "0")
  })

  it("D10 an expired intent cannot be canceled: 409 payment_intent_unexpected_state", async () => {
    // The workers run on a test clock moved past the magic amount's short expiry; the handler keeps the real clock.
    const runtime = ManagedRuntime.make(Layer.merge(layer(), TestContext.TestContext))
    const context = await runtime.runPromise(Effect.context<TenderHttp.Services>())
    const { dispose, handler } = TenderHttp.toWebHandler(Layer.succeedContext(context))
    try {
      const created = await call(handler, "POST", "/payment_intents", { key: keys.demoTest, body: promptpayFor(Simulator.magicAmounts.expireSoon) })
      assert.strictEqual(created.status, 201, created.text)
      await runtime.runPromise(Effect.gen(function*() {
        yield* TestClock.setTime(Date.now() + Simulator.shortExpiryMillis + 60_000)
        for (let i = 0; i < 3; i++) yield* Workers.drain({ owner: "test" })
      }))
      const got = await call(handler, "GET", `/payment_intents/${created.json.id}`, { key: keys.demoTest })
      assert.strictEqual(got.json.status, "expired", got.text)
      assertError(await call(handler, "POST", `/payment_intents/${created.json.id}/cancel`, { key: keys.demoTest }), 409, "payment_intent_unexpected_state")
    } finally {
      await dispose()
      await runtime.dispose()
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
