/**
 * 4.9.2 and D5 on every route that takes an `Idempotency-Key`: the rule's
 * create and upload cases are in Api.test.ts; here every other POST route and DELETE, so no
 * route takes a key the rule refuses, and a refused key is never claimed.
 */
import { assert, describe, it } from "@effect/vitest"
import { payout as payoutFor, promptpayNamed, topup } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { app, assertError, call, formWith, png } from "./harness.js"

const promptpay = promptpayNamed
const payout = payoutFor("payout-key-rule")

/** Keys 4.9.2 refuses that a client can send: empty, 256 characters, beyond ASCII (Latin-1 and C1 bytes), DEL. */
const refused = ["", "k".repeat(256), "caf\u00e9", "\u0085next-line", "del\u007f", "\u00ff".repeat(10)]

describe("4.9.2 Idempotency-Key format on every route (D5)", () => {
  const h = app()

  it("4.9.2 D10 a key outside 1 to 255 printable ASCII -> 400 validation_failed param Idempotency-Key on every POST and DELETE route, cancel and refunds included", async () => {
    const intent = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual(intent.status, 201, intent.text)
    const routes: Array<[string, string, { body?: unknown; form?: FormData }]> = [
      ["POST", "/payment_intents", { body: promptpay }],
      ["POST", `/payment_intents/${intent.json.id}/confirm`, { body: {} }],
      ["POST", `/payment_intents/${intent.json.id}/receipt`, { form: formWith(png()) }],
      ["POST", "/assets", { form: formWith(png()) }],
      ["POST", "/topup_intents", { body: topup }],
      ["POST", "/payout_intents", { body: payout }],
      ["POST", "/payout_intents/poi_000000000000000000000000/cancel", { body: {} }],
      ["POST", `/payment_intents/${intent.json.id}/cancel`, { body: {} }],
      ["POST", "/refunds", { body: { payment_intent: intent.json.id } }],
      ["POST", "/webhook_endpoints", { body: { url: "https://hooks.example.com/t", enabled_events: ["payment_intent.succeeded"] } }],
      ["DELETE", "/webhook_endpoints/we_000000000000000000000000", {}]
    ]
    for (const [method, path, request] of routes) {
      for (const key of refused) {
        const res = await call(h, method, path, { key: keys.demoTest, ...request, headers: { "idempotency-key": key } })
        const error = assertError(res, 400, "validation_failed", "Idempotency-Key")
        assert.strictEqual(error.message, "Idempotency-Key must be 1 to 255 printable ASCII characters.", `${method} ${path}`)
      }
    }
    // Nothing was created under a refused key.
    assert.strictEqual((await call(h, "GET", `/payment_intents/${intent.json.id}`, { key: keys.demoTest })).json.status, "requires_action")
    for (const path of ["/payment_intents", "/topup_intents", "/payout_intents", "/webhook_endpoints", "/refunds"]) {
      const list = await call(h, "GET", path, { key: keys.demoTest })
      assert.lengthOf(list.json.data, path === "/payment_intents" ? 1 : 0, path)
    }
  })

  it("4.9.2 the bounds are kept: 255 characters, a space inside and every printable ASCII character are keys that run, then replay", async () => {
    const printable = Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).join("")
    for (const key of ["k".repeat(255), "a key with spaces", printable, "~"]) {
      const headers = { "idempotency-key": key }
      const first = await call(h, "POST", "/topup_intents", { key: keys.demoTest, body: topup, headers })
      assert.strictEqual(first.status, 201, first.text)
      const again = await call(h, "POST", "/topup_intents", { key: keys.demoTest, body: topup, headers })
      assert.strictEqual(again.text, first.text)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    }
  })
})
