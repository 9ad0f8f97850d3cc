/**
 * D5 on the Node server: an `Idempotency-Key` sent twice is refused (400, param Idempotency-Key),
 * not joined into one key "a, b" that a later request could replay; nothing is created.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpay } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { basic, sendRaw as send, withNodeServer } from "./harness.js"

describe("headers sent twice (D5)", () => {
  it("D5 an Idempotency-Key sent twice -> 400 validation_failed param Idempotency-Key; nothing is created, and the joined text is no key", async () => {
    await withNodeServer(async (port) => {
      const authorization = basic(keys.demoTest)
      const body = JSON.stringify(promptpay)
      const twice = await send(
        port,
        "POST",
        "/payment_intents",
        { authorization, "content-type": "application/json", "idempotency-key": ["key-a", "key-b"] },
        body
      )
      assert.strictEqual(twice.status, 400, JSON.stringify(twice.json))
      assert.strictEqual(twice.json.error.code, "validation_failed")
      assert.strictEqual(twice.json.error.param, "Idempotency-Key")
      const listed = await send(port, "GET", "/payment_intents", { authorization })
      assert.deepStrictEqual(listed.json.data, [])
      // The joined text was never claimed: a request under it runs afresh (201, not a replay).
      const joined = await send(
        port,
        "POST",
        "/payment_intents",
        { authorization, "content-type": "application/json", "idempotency-key": "key-a, key-b" },
        body
      )
      assert.strictEqual(joined.status, 201)
    })
  })
})
