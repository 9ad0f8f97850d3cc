/**
 * D1: a value of the wrong type gets a message a client can read, never Effect's text naming
 * the schema (`Expected PaymentMethodOptions, actual []`, `{ readonly type: … }`), and a value
 * outside a set of choices is one problem, not one per choice.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpay } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { app, assertError, call } from "./harness.js"

/** No trace of a schema's own text: its `Expected …`, a TypeScript type, or a schema's identifier. */
const assertPlain = (message: string) => {
  assert.notMatch(message, /Expected|actual|readonly|ReadonlyArray|PaymentMethodOptions|PayoutDestination|Customer\b|EventType/, message)
}

describe("decode messages (D1)", () => {
  const cases: ReadonlyArray<readonly [string, string, unknown, string, string]> = [
    ["POST", "/payment_intents", { ...promptpay, payment_method_options: [] }, "payment_method_options", "payment_method_options must be an object"],
    ["POST", "/payment_intents", { ...promptpay, payment_method_options: null }, "payment_method_options", "payment_method_options must be an object"],
    ["POST", "/payment_intents", { ...promptpay, customer: 5 }, "customer", "customer must be an object"],
    ["POST", "/topup_intents", { destination_amount: "1000", destination_currency: "USDT", source: "x" }, "source", "source must be an object"],
    ["POST", "/payout_intents", { amount: "1000", currency: "THB", merchant_reference: "p-1", destination: 5 }, "destination", "destination must be an object"],
    [
      "POST",
      "/webhook_endpoints",
      { url: "https://example.com/hook", enabled_events: "payment_intent.created" },
      "enabled_events",
      "enabled_events must be an array"
    ]
  ]
  for (const [method, path, body, param, message] of cases) {
    it(`D1 ${method} ${path} with ${param} of the wrong type -> 400 "${message}"`, async () => {
      const res = await call(app(), method, path, { key: keys.demoTest, body, headers: { "idempotency-key": `k-${Math.random()}` } })
      const error = assertError(res, 400, "validation_failed", param)
      assert.strictEqual(error.message, message)
      assertPlain(error.message)
    })
  }

  it("D1 a value outside a set of choices is one problem naming the choices, not one per choice", async () => {
    const res = await call(app(), "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "https://example.com/hook", enabled_events: ["nope"] } })
    const error = assertError(res, 400, "validation_failed", "enabled_events.0")
    assert.isUndefined(error.details, JSON.stringify(error.details))
    assert.match(error.message, /^enabled_events\.0 must be one of: .*payment_intent\.created/)
    assertPlain(error.message)
  })
})
