/**
 * Idempotency and merchant_reference through the real fetch handler: races, in-flight
 * repeats, stored 4xx answers, keys under two API keys (4.9, D5).
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpayNamed as promptpay } from "@tender/repo-test-support"
import { gated, keys, layer } from "../../core/test/fixtures.js"
import { app, assertError, call } from "./harness.js"

describe("idempotency and merchant_reference over HTTP (4.9, D5)", () => {
  it("4.9.6 same Idempotency-Key while the original is in flight -> 409 idempotency_conflict with Retry-After; afterwards the original is replayed; 4.9.5 a changed body -> 409 without it", async () => {
    const g = gated()
    const h = app(layer({ providers: [g.provider] }))
    const headers = { "idempotency-key": "http-inflight" }
    const first = call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    await g.called
    const inFlight = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    assertError(inFlight, 409, "idempotency_conflict", "Idempotency-Key")
    assert.strictEqual(inFlight.headers.get("retry-after"), "1", "a retry resolves it: Retry-After says so")
    g.release()
    const original = await first
    assert.strictEqual(original.status, 201)
    const replay = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    assert.strictEqual(replay.status, 201)
    assert.strictEqual(replay.text, original.text)
    assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
    // 4.9.5: a changed body conflicts for good; no Retry-After, so no client retries it.
    const changed = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: "150001" }, headers })
    assertError(changed, 409, "idempotency_conflict", "Idempotency-Key")
    assert.isNull(changed.headers.get("retry-after"))
  })

  it("4.9 ref.3 the same merchant_reference while the original is in flight -> 409 idempotency_conflict; afterwards the original (200)", async () => {
    const g = gated()
    const h = app(layer({ providers: [g.provider] }))
    const body = { ...promptpay, merchant_reference: "http-ref-inflight" }
    const first = call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    await g.called
    const inFlight = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    assertError(inFlight, 409, "idempotency_conflict", "merchant_reference")
    assert.strictEqual(inFlight.headers.get("retry-after"), "1")
    g.release()
    const original = await first
    assert.strictEqual(original.status, 201)
    const again = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.json.id, original.json.id)
  })

  it("4.9 N concurrent creates with one merchant_reference, each under its own Idempotency-Key, create exactly one intent", async () => {
    const h = app()
    const body = { ...promptpay, merchant_reference: "http-ref-race" }
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(h, "POST", "/payment_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `race-${i}` } }))
    )
    assert.lengthOf(results.filter((r) => r.status === 201), 1)
    const id = results.find((r) => r.status === 201)!.json.id
    for (const r of results) {
      if (r.status === 200) assert.strictEqual(r.json.id, id)
      else if (r.status !== 201) assertError(r, 409, "idempotency_conflict", "merchant_reference")
    }
    const list = await call(h, "GET", "/payment_intents?merchant_reference=http-ref-race", { key: keys.demoTest })
    assert.lengthOf(list.json.data, 1)
    // Each key now answers for good: a retry replays its own stored answer, or reaches the original.
    for (let i = 0; i < results.length; i++) {
      const retry = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `race-${i}` } })
      assert.include([200, 201], retry.status)
      assert.strictEqual(retry.json.id, id)
    }
  })

  it("D5 a 4xx is stored and replayed over HTTP with Idempotent-Replayed: true", async () => {
    const h = app()
    const headers = { "idempotency-key": "http-403" }
    const first = await call(h, "POST", "/payment_intents", { key: keys.hostedOnly, body: promptpay, headers })
    assertError(first, 403, "checkout_mode_not_allowed")
    const again = await call(h, "POST", "/payment_intents", { key: keys.hostedOnly, body: promptpay, headers })
    assert.strictEqual(again.status, 403)
    assert.strictEqual(again.text, first.text)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(again.headers.get("request-id"), first.json.error.request_id)
  })

  it("4.9.3 the same Idempotency-Key under two API keys of one merchant does not collide", async () => {
    const h = app()
    const headers = { "idempotency-key": "shared-http-key" }
    const test = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    const live = await call(h, "POST", "/payment_intents", {
      key: keys.demoLive,
      body: { ...promptpay, checkout_mode: "hosted", payment_method: undefined },
      headers
    })
    assert.strictEqual(test.status, 201)
    assert.strictEqual(live.status, 201)
    assert.isNull(live.headers.get("idempotent-replayed"))
    assert.strictEqual(live.json.environment, "live")
  })
})
