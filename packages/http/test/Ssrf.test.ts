/**
 * SSRF in live mode: `POST /webhook_endpoints` with a live key refuses hosts that
 * are non-public as written, and deliveries to a live endpoint whose name resolves to a
 * non-public address make no connection and are recorded as failed with the reason;
 * `webhooks.allowPrivateUrls` is the way out of both. The resolver is injected so that
 * `evil.example` resolves to 127.0.0.1, where a real HTTPS receiver (a self-signed
 * certificate for evil.example, in `tls/`) counts every connection made to it. No traffic
 * leaves 127.0.0.0/8.
 */
import { FetchHttpClient } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { DeliveryClient, Event, PublicAddress, Storage, WebhookDelivery, Workers } from "@tender/core"
import { closeServers } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:https"
import { afterAll } from "vitest"
import { keys, layer, type Services } from "../../core/test/fixtures.js"
import { TenderHttp, WebhookClient } from "../src/index.js"
import { app, assertError, call } from "./harness.js"

const cert = readFileSync(new URL("tls/evil.example.cert.pem", import.meta.url))
const key = readFileSync(new URL("tls/evil.example.key.pem", import.meta.url))

const servers: Array<Server> = []
afterAll(() => closeServers(servers))

/** An HTTPS receiver for evil.example on 127.0.0.1, counting connections and requests. */
const receiver = async () => {
  const seen = { connections: 0, requests: 0 }
  const server = createServer({ key, cert }, (req, res) => {
    seen.requests++
    req.resume()
    req.on("end", () => res.end("ok"))
  })
  server.on("connection", () => seen.connections++)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  servers.push(server)
  const address = server.address()
  return { port: typeof address === "object" && address !== null ? address.port : 0, seen }
}

/** `evil.example` resolves to loopback; every other name does not resolve. */
const resolve: PublicAddress.Resolver = async (name) => {
  if (name === "evil.example") return [{ address: "127.0.0.1", family: 4 }]
  throw Object.assign(new Error(`no ${name}`), { code: "ENOTFOUND" })
}

const live = { merchantId: "mch_demo", environment: "live" } as const

/** Register `url` with the live key, emit one live event, run the workers: the endpoint's attempts. */
const deliverOnce = async (services: Layer.Layer<Services>, url: string) => {
  const runtime = ManagedRuntime.make(services)
  const context = await runtime.runPromise(Effect.context<TenderHttp.Services>())
  const { dispose, handler } = TenderHttp.toWebHandler(Layer.succeedContext(context))
  try {
    const registered = await call(handler, "POST", "/webhook_endpoints", { key: keys.demoLive, body: { url } })
    assert.strictEqual(registered.status, 201, registered.text)
    await runtime.runPromise(Effect.gen(function*() {
      const now = Date.now()
      const writes = yield* Event.writes(
        { ...live, id: "dord_ssrf", version: 1, updatedAt: now },
        "payment_intent",
        { object: "payment_intent", id: "dord_ssrf" },
        ["payment_intent.created"]
      )
      yield* (yield* Storage.Storage).commit(writes)
      yield* Workers.drain({ owner: "test" })
    }))
    return await runtime.runPromise(WebhookDelivery.attempts(live, { endpointId: registered.json.id as string }))
  } finally {
    await dispose()
    await runtime.dispose()
  }
}

describe("SSRF: POST /webhook_endpoints with a live key", () => {
  const refused = [
    "https://[::ffff:127.0.0.1]/x",
    "https://[::ffff:7f00:1]/x",
    "https://localhost./x",
    "https://api.localhost./x",
    "https://198.18.0.1/x",
    "https://100.64.0.1/x",
    "https://0.0.0.0/x",
    "https://224.0.0.1/x",
    "https://255.255.255.255/x",
    "https://127.0.0.1./x",
    "https://0x7f.1/x",
    "https://172.16.0.1/x",
    "https://192.168.0.1/x",
    "https://[fe80::1]/x",
    "https://[fc00::1]/x",
    "https://[::]/x"
  ]

  it("a host that is non-public as written is refused: 400 validation_failed, param url, nothing stored", async () => {
    const handler = app()
    for (const url of refused) {
      const res = await call(handler, "POST", "/webhook_endpoints", { key: keys.demoLive, body: { url } })
      const error = assertError(res, 400, "validation_failed", "url")
      assert.include(error.message, "non-public address", url)
    }
    const list = await call(handler, "GET", "/webhook_endpoints", { key: keys.demoLive })
    assert.deepStrictEqual(list.json.data, [])
  })

  it("public hosts and names are accepted at creation (names are checked at connect time)", async () => {
    const handler = app()
    for (const url of ["https://93.184.216.34/x", "https://[2606:4700::1111]/x", "https://hooks.example.com/x", "https://169.254.169.254.nip.io/x"]) {
      const res = await call(handler, "POST", "/webhook_endpoints", { key: keys.demoLive, body: { url } })
      assert.strictEqual(res.status, 201, `${url}: ${res.text}`)
    }
  })

  it("webhooks.allowPrivateUrls lets a live key register them; a test key may, as before", async () => {
    const open = app(layer({ webhooks: { allowPrivateUrls: true } }))
    const strict = app()
    for (const url of refused) {
      const res = await call(open, "POST", "/webhook_endpoints", { key: keys.demoLive, body: { url } })
      assert.strictEqual(res.status, 201, `${url}: ${res.text}`)
      const test = await call(strict, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url } })
      assert.strictEqual(test.status, 201, `${url}: ${test.text}`)
    }
  })
})

describe("SSRF: live deliveries connect only to public addresses", () => {
  it("a live endpoint whose name resolves to loopback gets no connection; the attempt is failed with the reason", async () => {
    const server = await receiver()
    const attempts = await deliverOnce(
      layer({ transport: DeliveryClient.layer({ resolve, ca: cert }) }),
      `https://evil.example:${server.port}/hook`
    )
    assert.strictEqual(server.seen.connections, 0)
    assert.strictEqual(server.seen.requests, 0)
    assert.strictEqual(attempts.length, 1)
    assert.strictEqual(attempts[0]?.statusCode, null)
    assert.strictEqual(attempts[0]?.error, "refused: evil.example resolves to a non-public address 127.0.0.1 (loopback)")
  }, 30_000)

  it("with webhooks.allowPrivateUrls the same delivery reaches the receiver and succeeds", async () => {
    const server = await receiver()
    const attempts = await deliverOnce(
      layer({ transport: DeliveryClient.layer({ resolve, ca: cert }), webhooks: { allowPrivateUrls: true } }),
      `https://evil.example:${server.port}/hook`
    )
    assert.strictEqual(server.seen.requests, 1)
    assert.strictEqual(attempts.length, 1)
    assert.strictEqual(attempts[0]?.statusCode, 200)
    assert.strictEqual(attempts[0]?.error, null)
  }, 30_000)

  it("WebhookClient.layer on a host's HttpClient refuses the live delivery before the client has it", async () => {
    const server = await receiver()
    const transport = WebhookClient.layerWith({ resolve }).pipe(Layer.provide(FetchHttpClient.layer))
    const attempts = await deliverOnce(layer({ transport }), `https://evil.example:${server.port}/hook`)
    assert.strictEqual(server.seen.connections, 0)
    assert.strictEqual(attempts[0]?.error, "refused: evil.example resolves to a non-public address 127.0.0.1 (loopback)")
  }, 30_000)
})
