/**
 * The Effect host example: its own group and Tender's under one server and one OpenAPI
 * document; launched and interrupted as `main.ts` does (docs/embedding.md).
 */
import { basic, demoKey, freePort, promptpayFor } from "@tender/repo-test-support"
import { Effect, Fiber, Layer } from "effect"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "vitest"
import { layer } from "../src/server.js"

const port = await freePort()
const base = `http://127.0.0.1:${port}`
const auth = basic(demoKey)

// Effect's JSON logger writes to the console: keep the test output clean.
const quiet = { log: console.log }
console.log = () => {}
const fiber = Effect.runFork(Layer.launch(layer({
  port,
  publicOrigin: base,
  seedPath: fileURLToPath(new URL("../seed.json", import.meta.url)),
  checkoutSecret: "test-secret"
})))
afterAll(async () => {
  await Effect.runPromise(Fiber.interrupt(fiber))
  console.log = quiet.log
})

const up = async (origin = base) => {
  for (let i = 0; i < 200; i++) {
    try {
      return await fetch(`${origin}/health`)
    } catch {
      await new Promise((r) => setTimeout(r, 25))
    }
  }
  throw new Error("the example did not start")
}

describe("examples/effect-host: one Effect server, the shop's group and Tender's", () => {
  it("the shop's routes and Tender's under /payments answer; a create succeeds", async () => {
    assert.deepStrictEqual(await (await up()).json(), { ok: true })
    assert.strictEqual((await (await fetch(`${base}/products`)).json())[0].sku, "tea-1")
    const created = await fetch(`${base}/payments/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify(promptpayFor("6500"))
    })
    assert.strictEqual(created.status, 201)
    assert.strictEqual((await created.json()).amount, "6500")
    const missing = await fetch(`${base}/nowhere`)
    assert.strictEqual(missing.status, 404)
    assert.notInclude(await missing.text(), "resource_not_found")
  })

  it("one OpenAPI document lists the shop's operations and Tender's, prefixed", async () => {
    await up()
    const doc = await (await fetch(`${base}/openapi.json`)).json()
    assert.strictEqual(doc.info.title, "Shop API")
    assert.includeMembers(Object.keys(doc.paths), ["/health", "/products", "/payments/payment_intents", "/payments/payout_intents"])
  })

  it("interrupting the launched layer stops the server and Tender with it (shutdown)", async () => {
    const other = await freePort()
    const origin = `http://127.0.0.1:${other}`
    const second = Effect.runFork(Layer.launch(layer({
      port: other,
      publicOrigin: origin,
      seedPath: fileURLToPath(new URL("../seed.json", import.meta.url)),
      checkoutSecret: "test-secret"
    })))
    assert.strictEqual((await up(origin)).status, 200)
    await Effect.runPromise(Fiber.interrupt(second))
    let refused = false
    await fetch(`${origin}/health`).catch(() => (refused = true))
    assert.isTrue(refused, "the port still answered after the interrupt")
  })
})
