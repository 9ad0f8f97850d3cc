/**
 * The wire shapes through the real fetch handler: a payment intent's fields on create, get and
 * list, the list envelope, limit and filters, discovery, and the environment the key stamps.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpayNamed as promptpay } from "@tender/repo-test-support"
import { keys, paymentIntentCreatedFields, paymentIntentFields as readFields } from "../../core/test/fixtures.js"
import { app, assertError, call } from "./harness.js"

describe("wire shapes over HTTP (2.1, 2.4, 2.6, 4.3, 5.3)", () => {
  it("2.1 create answers 2.1's fields less processing_reason and receipt; get and list answer all of them, identically", async () => {
    const h = app()
    const created = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, merchant_reference: "shape-1" } })
    assert.strictEqual(created.status, 201)
    assert.deepStrictEqual(Object.keys(created.json).sort(), paymentIntentCreatedFields)
    assert.match(created.json.id, /^dord_[0-9A-Za-z]{24}$/)
    for (const t of ["created_at", "updated_at"]) assert.match(created.json[t], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    assert.deepInclude(created.json, {
      object: "payment_intent",
      amount: "150000",
      currency: "THB",
      country: "TH",
      environment: "test",
      checkout_mode: "merchant",
      merchant_reference: "shape-1",
      payment_method: "th_promptpay"
    })
    const got = await call(h, "GET", `/payment_intents/${created.json.id}`, { key: keys.demoTest })
    assert.deepStrictEqual(Object.keys(got.json).sort(), readFields)
    const listed = await call(h, "GET", "/payment_intents", { key: keys.demoTest })
    assert.deepStrictEqual(listed.json.data[0], got.json)
    const { processing_reason: _p, receipt: _r, ...rest } = got.json
    assert.deepStrictEqual(rest, created.json)
  })

  it("2.6 the list envelope: data newest first, has_more, next_cursor null on the last page", async () => {
    const h = app()
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })).json.id)
    const all = await call(h, "GET", "/payment_intents", { key: keys.demoTest })
    assert.deepStrictEqual(Object.keys(all.json), ["data", "has_more", "next_cursor"])
    assert.isFalse(all.json.has_more)
    assert.isNull(all.json.next_cursor)
    assert.sameMembers(all.json.data.map((d: { id: string }) => d.id), ids)
    const times = all.json.data.map((d: { created_at: string }) => d.created_at)
    assert.deepStrictEqual(times, [...times].sort().reverse())
    const first = await call(h, "GET", "/payment_intents?limit=2", { key: keys.demoTest })
    assert.isTrue(first.json.has_more)
    assert.isString(first.json.next_cursor)
    const last = await call(h, "GET", `/payment_intents?limit=2&cursor=${first.json.next_cursor}`, { key: keys.demoTest })
    assert.lengthOf(last.json.data, 1)
    assert.isFalse(last.json.has_more)
    assert.isNull(last.json.next_cursor)
  })

  it("4.3 limit is an integer from 1 to 100: 1 and 100 are accepted; 0, 101, 1.5, -1, 1e2 -> 400 param limit (D6)", async () => {
    const h = app()
    for (let i = 0; i < 2; i++) await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.lengthOf((await call(h, "GET", "/payment_intents?limit=1", { key: keys.demoTest })).json.data, 1)
    assert.lengthOf((await call(h, "GET", "/payment_intents?limit=100", { key: keys.demoTest })).json.data, 2)
    for (const limit of ["0", "101", "1.5", "-1", "1e2", ""]) {
      assertError(await call(h, "GET", `/payment_intents?limit=${limit}`, { key: keys.demoTest }), 400, "validation_failed", "limit")
    }
  })

  it("4.3 each filter applies over HTTP: country, currency, status, merchant_reference, created_after, created_before", async () => {
    const h = app()
    const a = (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, merchant_reference: "f-a" } })).json
    const ids = async (query: string) => (await call(h, "GET", `/payment_intents?${query}`, { key: keys.demoTest })).json.data.map((d: { id: string }) => d.id)
    assert.deepStrictEqual(await ids("country=TH"), [a.id])
    assert.deepStrictEqual(await ids("country=VN"), [])
    assert.deepStrictEqual(await ids("currency=USD"), [])
    assert.deepStrictEqual(await ids("status=failed"), [])
    assert.deepStrictEqual(await ids("status=failed,requires_action"), [a.id])
    assert.deepStrictEqual(await ids("merchant_reference=f-b"), [])
    assert.deepStrictEqual(await ids(`created_after=${encodeURIComponent(a.created_at)}`), [a.id])
    assert.deepStrictEqual(await ids(`created_before=${encodeURIComponent(a.created_at)}`), [])
  })

  it("2.4 discovery over HTTP: echo of country and currency, the key's environment, empty methods when nothing is eligible", async () => {
    const h = app()
    const q = "?amount=150000&country=TH&currency=THB"
    const test = await call(h, "GET", `/payment_methods/options${q}`, { key: keys.demoTest })
    assert.deepStrictEqual(Object.keys(test.json), ["country", "currency", "environment", "methods"])
    assert.deepInclude(test.json, { country: "TH", currency: "THB", environment: "test" })
    for (const m of test.json.methods) assert.deepStrictEqual(m.next_action_types, ["redirect_to_url"])
    const live = await call(h, "GET", `/payment_methods/options${q}`, { key: keys.demoLive })
    assert.deepStrictEqual(live.json, { country: "TH", currency: "THB", environment: "live", methods: [] })
    const denied = await call(h, "GET", `/payment_methods/options${q}&checkout_mode=merchant`, { key: keys.hostedOnly })
    assert.deepStrictEqual(denied.json.methods, [])
  })

  it("5.3 no query parameter or header overrides the environment the key stamps", async () => {
    const h = app()
    assertError(await call(h, "GET", "/payment_intents?environment=live", { key: keys.demoTest }), 400, "validation_failed", "environment")
    assertError(
      await call(h, "GET", "/payment_methods/options?amount=150000&country=TH&currency=THB&environment=live", { key: keys.demoTest }),
      400,
      "validation_failed",
      "environment"
    )
    const res = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: promptpay,
      headers: { "x-environment": "live", "tender-environment": "live", environment: "live" }
    })
    assert.strictEqual(res.status, 201)
    assert.strictEqual(res.json.environment, "test")
  })
})
