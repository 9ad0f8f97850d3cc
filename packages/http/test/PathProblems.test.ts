/**
 * D1: a path that names an endpoint the router cannot match (a parameter it cannot decode or that
 * is longer than it reads, or dot segments) is 400 `validation_failed` with a message saying
 * which, after authentication (5).
 */
import { assert, describe, it } from "@effect/vitest"
import { keys } from "../../core/test/fixtures.js"
import { app, assertError, basic, call, sendRaw, withNodeServer } from "./harness.js"

describe("paths the router cannot match (D1)", () => {
  it("D1 a path id longer than the router reads -> 400 validation_failed, param id, saying so", async () => {
    const res = await call(app(), "GET", `/payment_intents/dord_${"A".repeat(500)}`, { key: keys.demoTest })
    const error = assertError(res, 400, "validation_failed", "id")
    assert.match(error.message, /longer than 100 characters/)
  })

  it("D1 a path id that is not a valid percent-encoded string -> 400 validation_failed, param id", async () => {
    const error = assertError(await call(app(), "GET", "/payment_intents/%E0%A4", { key: keys.demoTest }), 400, "validation_failed", "id")
    assert.match(error.message, /percent-encoded/)
  })

  it("5 a too-long path id without a key -> 401 first", async () => {
    assertError(await call(app(), "GET", `/payment_intents/dord_${"A".repeat(500)}`), 401, "authentication_required")
  })

  it("D1 a path no route has as written -> 404 resource_not_found: another case, a trailing slash, a doubled slash (the router would match them)", async () => {
    const handler = app()
    for (const path of ["/PAYMENT_INTENTS", "/Payment_Intents", "/payment_intents/", "//payment_intents", "/webhook_event_types/"]) {
      assertError(await call(handler, "GET", path, { key: keys.demoTest }), 404, "resource_not_found")
    }
    assert.strictEqual((await call(handler, "GET", "/payment_intents", { key: keys.demoTest })).status, 200)
    assert.strictEqual((await call(handler, "HEAD", "/payment_intents", { key: keys.demoTest })).status, 200)
  })

  it("D1 a path with dot segments, sent as written -> 400 validation_failed, param path, saying so; nothing is resolved", async () => {
    await withNodeServer(async (port) => {
      const authorization = basic(keys.demoTest)
      for (const path of ["/payment_intents/../payment_intents", "/payment_intents/./dord_AAAAAAAAAAAAAAAAAAAAAAAA", "/x/../payment_intents?limit=1"]) {
        const res = await sendRaw(port, "GET", path, { authorization })
        assert.strictEqual(res.status, 400, `${path}: ${JSON.stringify(res.json)}`)
        assert.strictEqual(res.json.error.code, "validation_failed")
        assert.strictEqual(res.json.error.param, "path")
        assert.match(res.json.error.message, /must not contain \. or \.\. segments/)
      }
    })
  })
})
