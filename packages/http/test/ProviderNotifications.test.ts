/**
 * The providers' door, `POST /provider_notifications/{provider}` (D11), through the real handler
 * and over real sockets through every way to mount Tender: the Effect server (`NodeHttpServer`),
 * the `node:http` listener, Express, Fastify and the fetch handler. The simulator's signature is
 * over the exact bytes, so a body any parser had touched (re-encoded, whitespace dropped) would
 * be refused: a body with odd spacing and Thai text is accepted byte for byte, and one byte
 * changed is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Canonical, Simulator, Workers } from "@tender/core"
import { promptpay, sendChunked } from "@tender/repo-test-support"
import { Layer } from "effect"
import express from "express"
import { createServer } from "node:http"
import { keys, layer } from "../../core/test/fixtures.js"
import * as Express from "../src/Express.js"
import { assertError, call } from "./harness.js"
import { hostMounts } from "./mounts.js"

// The host's own JSON parser stays on in the Fastify app: Tender's hook runs before it.
const { mounts, listening, webHandler } = hostMounts({ fastifyRoutes: (app) => app.post("/orders", async (request) => ({ order: request.body })) })

/** A simulator event as a provider sends it: odd spacing and non-ASCII text, which any re-encoding would change. */
const eventBody = (
  id = `evt_${crypto.randomUUID()}`,
  data: Record<string, string> = { payment_intent: "dord_000000000000000000000000", provider_payment_id: "sim_unknown" }
) => `{"id":"${id}",  "type":"payment.succeeded",\n "data":${JSON.stringify(data)}, "note":"ทดสอบ ✓"}`

/** Headers of a signed simulator notification of `body`. */
const signedHeaders = (body: string) => ({
  "content-type": "application/json",
  [Simulator.signatureHeader]: Simulator.signNotification({ body })
})

const path = "/provider_notifications/simulator"

for (const [name, start] of Object.entries(mounts)) {
  describe(`the providers' door through the ${name} (D11)`, () => {
    const base = start()

    it("D11 a signed notification is verified over its exact bytes and answered as the provider expects; one byte changed is 400 signature_invalid", async () => {
      const url = await base
      const body = eventBody()
      const accepted = await fetch(`${url}${path}`, { method: "POST", headers: signedHeaders(body), body })
      assert.strictEqual(accepted.status, 200)
      assert.strictEqual(accepted.headers.get("content-type"), "application/json")
      assert.strictEqual(await accepted.text(), "{\"received\":true}")
      const tampered = await fetch(`${url}${path}`, { method: "POST", headers: signedHeaders(body), body: body.replace("✓", "x") })
      assert.strictEqual(tampered.status, 400)
      const error = (await tampered.json()).error
      assert.strictEqual(error.code, "signature_invalid")
      assert.match(error.request_id, /^req_/)
    })

    it("D11 a notification over 1 MiB, chunked, is 413", async () => {
      const answer = await sendChunked(`${await base}${path}`, { "content-type": "application/json" }, Buffer.alloc(0), 8 * 1024 * 1024)
      assert.strictEqual(answer.status, 413, answer.body)
      assert.strictEqual(JSON.parse(answer.body).error.code, "validation_failed")
    })
  })
}

describe("the providers' door through the fetch handler (D11)", () => {
  it("D11 a signed notification moves the intent once workers run; its repeat answers the same and stores nothing new", async () => {
    const services = Workers.layer({ pollMillis: 20 }).pipe(Layer.provideMerge(layer()))
    const tender = webHandler(services)
    const created = await call(tender.handler, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    const id = created.json.id as string
    const body = eventBody(undefined, { payment_intent: id, provider_payment_id: simulatorPaymentId(id), amount: "150000", currency: "THB" })
    const send = () => tender.handler(new Request(`http://tender.test${path}`, { method: "POST", headers: signedHeaders(body), body }))
    const first = await send()
    assert.strictEqual(first.status, 200)
    let status = ""
    for (let i = 0; i < 200 && status !== "succeeded"; i++) {
      status = (await call(tender.handler, "GET", `/payment_intents/${id}`, { key: keys.demoTest })).json.status
      if (status !== "succeeded") await new Promise((r) => setTimeout(r, 10))
    }
    assert.strictEqual(status, "succeeded")
    const again = await send()
    assert.deepStrictEqual([again.status, await again.text()], [200, "{\"received\":true}"])
    const events = await call(tender.handler, "GET", `/events?limit=100`, { key: keys.demoTest })
    assert.strictEqual(
      events.json.data.filter((e: { type: string; data: { object: { id: string } } }) => e.type === "payment_intent.succeeded" && e.data.object.id === id)
        .length,
      1
    )
  })

  it("D11 a provider code that is not installed, or takes no notifications, is 404 resource_not_found; no API key is asked", async () => {
    const { parseNotification: _, ...silent } = Simulator.make()
    const tender = webHandler(layer({ providers: [Simulator.make(), { ...silent, code: "silent" }] }))
    const body = eventBody()
    for (const code of ["nope", "silent"]) {
      const res = await call(tender.handler, "POST", `/provider_notifications/${code}`, { raw: body, headers: signedHeaders(body) })
      assertError(res, 404, "resource_not_found")
      assert.strictEqual(res.json.error.param, "provider")
    }
  })

  it("D11 a notification without a signature, signed with another secret or with a stale timestamp is 400 signature_invalid", async () => {
    const tender = webHandler()
    const body = eventBody()
    const unsigned = await call(tender.handler, "POST", path, { raw: body, headers: { "content-type": "application/json" } })
    assertError(unsigned, 400, "signature_invalid")
    const other = await call(tender.handler, "POST", path, {
      raw: body,
      headers: { [Simulator.signatureHeader]: Simulator.signNotification({ body, secret: "another secret" }) }
    })
    assertError(other, 400, "signature_invalid")
    const stale = await call(tender.handler, "POST", path, {
      raw: body,
      headers: { [Simulator.signatureHeader]: Simulator.signNotification({ body, timestamp: Math.floor(Date.now() / 1000) - 3600 }) }
    })
    assertError(stale, 400, "signature_invalid")
  })

  it("D11 the providers' door is not in the merchant OpenAPI document", async () => {
    const doc = (await call(webHandler().handler, "GET", "/openapi.json")).json
    assert.isFalse(Object.keys(doc.paths).some((p) => p.startsWith("/provider_notifications")))
  })
})

describe("a host body parser before Tender (D11: the raw bytes are required)", () => {
  it("Express: a parser that consumed the notification's body is named in the error, with the fix", async () => {
    const app = express()
    app.use(express.json())
    app.use(Express.middleware(webHandler()))
    // The host's error handler answers (Express's own would print the stack).
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ message: error.message })
    })
    const url = await listening(createServer(app))
    const body = eventBody()
    const res = await fetch(`${url}${path}`, { method: "POST", headers: signedHeaders(body), body })
    assert.strictEqual(res.status, 500)
    assert.match((await res.json()).message, /before express\.json\(\)/)
  })
})

/** The simulator's payment id of an intent: derived from our id (Simulator.make). */
const simulatorPaymentId = (id: string) => "sim_" + Canonical.sha256(id).slice(0, 24)
