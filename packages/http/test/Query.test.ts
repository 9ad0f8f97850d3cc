/**
 * D1: an unknown query value is 400 `validation_failed`. A route that takes no query parameters
 * refuses any, as a list refuses one it does not know; a name or value whose percent-escapes are
 * not UTF-8 is refused rather than read with U+FFFD in its place. Authentication comes first (5).
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpay } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { app, assertError, call } from "./harness.js"

describe("the query (D1)", () => {
  it("D1 a query parameter on a route that takes none -> 400 validation_failed naming it; nothing is created", async () => {
    const handler = app()
    const created = await call(handler, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual(created.status, 201, created.text)
    const got = await call(handler, "GET", `/payment_intents/${created.json.id}?foo=bar`, { key: keys.demoTest })
    assert.strictEqual(assertError(got, 400, "validation_failed", "foo").message, "foo is not a known parameter")
    assertError(
      await call(handler, "POST", "/payment_intents?environment=live", { key: keys.demoTest, body: promptpay }),
      400,
      "validation_failed",
      "environment"
    )
    const list = await call(handler, "GET", "/payment_intents", { key: keys.demoTest })
    assert.strictEqual(list.json.data.length, 1)
    // An empty query, or empty pairs, name nothing.
    assert.strictEqual((await call(handler, "GET", `/payment_intents/${created.json.id}?`, { key: keys.demoTest })).status, 200)
    assert.strictEqual((await call(handler, "GET", `/payment_intents/${created.json.id}?&&`, { key: keys.demoTest })).status, 200)
  })

  it("D1 a query value whose escapes are not UTF-8 -> 400 validation_failed naming the parameter", async () => {
    const handler = app()
    const res = await call(handler, "GET", "/payment_intents?merchant_reference=%E0%A4", { key: keys.demoTest })
    assertError(res, 400, "validation_failed", "merchant_reference")
    assertError(await call(handler, "GET", "/payment_intents?%E0%A4=1", { key: keys.demoTest }), 400, "validation_failed", "query")
    // Well-formed escapes and `+` still read as before.
    assert.strictEqual((await call(handler, "GET", "/payment_intents?merchant_reference=caf%C3%A9+1", { key: keys.demoTest })).status, 200)
  })

  it("5 authentication comes before the query check: no key and a bad query -> 401", async () => {
    assertError(await call(app(), "GET", "/payment_intents/dord_AAAAAAAAAAAAAAAAAAAAAAAA?foo=1"), 401, "authentication_required")
  })
})
