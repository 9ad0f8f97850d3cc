/**
 * Mounting Tender in a host (docs/embedding.md): alone or beside the host's own routes, under a
 * prefix set once, as an Effect layer, a fetch handler and through the node:http adapter; a
 * streamed body over its limit refused having read little of it.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Simulator, Workers } from "@tender/core"
import type { Provider } from "@tender/core"
import { promptpay, sendChunked as sendChunkedTo } from "@tender/repo-test-support"
import { Effect, Layer, Logger, Schema } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { keys, layer } from "../../core/test/fixtures.js"
import { Api, Mount, TenderHttp } from "../src/index.js"
import * as NodeHttp from "../src/NodeHttp.js"
import { assertError, basic, call, formWith, png } from "./harness.js"

const disposers: Array<() => Promise<void>> = []
const servers: Array<Server> = []
afterAll(async () => {
  for (const s of servers) await new Promise((ok) => s.close(ok))
  for (const d of disposers) await d()
})

const webHandler = (options: Mount.MountOptions = {}) => {
  const tender = TenderHttp.toWebHandler(layer(), options)
  disposers.push(tender.dispose)
  return tender
}

describe("a prefix set once (docs/embedding.md)", () => {
  const tender = webHandler(Mount.fromPublicUrl("https://shop.example.test/payments/"))

  it("routes live under the prefix; the unprefixed path is not Tender's", async () => {
    assert.strictEqual(tender.prefix, "/payments")
    const created = await call(tender.handler, "POST", "/payments/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual(created.status, 201)
    const got = await call(tender.handler, "GET", `/payments/payment_intents/${created.json.id}`, { key: keys.demoTest })
    assert.strictEqual(got.json.id, created.json.id)
    assert.isTrue(tender.owns("/payments/payment_intents/pi_x?expand=1"))
    assert.isFalse(tender.owns("/payment_intents"))
    assert.isFalse(tender.owns("/payments"))
    assert.isFalse(tender.owns("/paymentsx/payment_intents"))
  })

  it("4.4 an upload under the prefix takes the upload route's multipart body", async () => {
    const res = await call(tender.handler, "POST", "/payments/assets", {
      key: keys.demoTest,
      form: formWith(png()),
      headers: { "idempotency-key": "prefixed-upload-1" }
    })
    assert.strictEqual(res.status, 201, res.text)
    assert.strictEqual(res.json.object, "asset")
  })

  it("D1 messages name the path as sent: 404 and 405 under the prefix", async () => {
    const unknown = await call(tender.handler, "GET", "/payment_intents", { key: keys.demoTest })
    assertError(unknown, 404, "resource_not_found")
    assert.include(unknown.json.error.message, "GET /payment_intents")
    const wrongMethod = await call(tender.handler, "PUT", "/payments/payment_intents", { key: keys.demoTest })
    assertError(wrongMethod, 405, "method_not_allowed")
    assert.include(wrongMethod.json.error.message, "/payments/payment_intents")
    assert.strictEqual(wrongMethod.headers.get("allow"), "GET, POST")
  })

  it("/openapi.json under the prefix: paths as defined, its server resolving to the prefix", async () => {
    const doc = await call(tender.handler, "GET", "/payments/openapi.json")
    assert.strictEqual(doc.status, 200)
    assert.strictEqual(new URL(doc.json.servers[0].url, "https://shop.example.test/payments/openapi.json").pathname, "/payments/")
    assert.property(doc.json.paths, "/payment_intents")
  })

  it("the prefix is refused at start unless it is plain path segments", () => {
    assert.throws(() => Mount.fromPublicUrl("https://shop.example.test/pay%20ments"), /path segments/)
    assert.throws(() => TenderHttp.toWebHandler(layer(), { prefix: "/a b" }), /path segments/)
    assert.strictEqual(Mount.fromPublicUrl("https://shop.example.test").prefix, "")
  })
})

describe("standalone (the demo server)", () => {
  const tender = webHandler()

  it("D1 an unknown path still gets the 404 resource_not_found body", async () => {
    const res = await call(tender.handler, "GET", "/admin/ping")
    assertError(res, 404, "resource_not_found")
    assert.strictEqual(res.json.error.message, "Unknown route GET /admin/ping.")
  })
})

// A host's own API, with Tender's added under /payments: one server, one document.
class AdminGroup extends HttpApiGroup.make("admin")
  .add(HttpApiEndpoint.get("ping", "/admin/ping").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
{}
class HostApi extends HttpApi.make("host").add(AdminGroup).addHttpApi(Api.TenderApi.prefix("/payments")) {}
const AdminLive = HttpApiBuilder.group(HostApi, "admin", (handlers) => handlers.handle("ping", () => Effect.succeed({ ok: true })))

describe("an Effect host: Tender's layer beside the host's own HttpApi group", () => {
  const host = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(HttpApiBuilder.middlewareOpenApi(), HttpServer.layerContext).pipe(
      Layer.provideMerge(
        HttpApiBuilder.api(HostApi).pipe(
          Layer.provide(AdminLive),
          Layer.provide(TenderHttp.layerMounted({ api: HostApi })),
          Layer.provide(layer())
        )
      )
    )
  )
  disposers.push(host.dispose)

  it("the host's route answers; Tender's under the prefix the host's api gave it", async () => {
    const ping = await call(host.handler, "GET", "/admin/ping")
    assert.strictEqual(ping.status, 200)
    assert.deepStrictEqual(ping.json, { ok: true })
    assert.isNull(ping.headers.get("request-id"))
    const created = await call(host.handler, "POST", "/payments/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual(created.status, 201)
    assert.match(created.headers.get("request-id") ?? "", /^req_/)
    assertError(await call(host.handler, "GET", "/payments/payment_intents/dord_AAAAAAAAAAAAAAAAAAAAAAAA", { key: keys.demoTest }), 404, "resource_not_found")
  })

  it("health: beside the host's routes, Tender's health routes answer under the prefix (docs/observability.md)", async () => {
    const live = await call(host.handler, "GET", "/payments/healthz")
    assert.strictEqual(live.status, 200)
    assert.deepStrictEqual(live.json, { status: "ok", checks: {} })
    assert.strictEqual((await call(host.handler, "GET", "/payments/readyz")).json.checks.storage, "ok")
  })

  it("an unknown path falls through to the host (its own 404), never Tender's D1 body", async () => {
    const res = await call(host.handler, "GET", "/nowhere")
    assert.strictEqual(res.status, 404)
    assert.notInclude(res.text, "resource_not_found")
    // Tender's path with a wrong method is still Tender's (405, D1).
    assertError(await call(host.handler, "DELETE", "/payments/payment_intents", { key: keys.demoTest }), 405, "method_not_allowed")
  })

  it("one OpenAPI document holds the host's operations and Tender's, prefixed", async () => {
    const doc = await call(host.handler, "GET", "/openapi.json")
    assert.strictEqual(doc.status, 200)
    assert.property(doc.json.paths, "/admin/ping")
    assert.property(doc.json.paths, "/payments/payment_intents")
    assert.property(doc.json.paths, "/payments/payment_methods/options")
    assert.includeMembers(doc.json.tags.map((t: { name: string }) => t.name), ["admin", "paymentIntents"])
  })

  it("the layer refuses an api without TenderApi, and a second, different prefix", () => {
    class Bare extends HttpApi.make("bare").add(AdminGroup) {}
    assert.throws(() => TenderHttp.layerMounted({ api: Bare }), /does not hold TenderApi/)
    assert.throws(() => TenderHttp.layerMounted({ api: HostApi, prefix: "/pay" }), /set it once/)
  })
})

/** A node:http server on a free port. */
const listen = async (handler: (req: IncomingMessage, res: import("node:http").ServerResponse) => void) => {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe("node:http adapter", () => {
  const tender = webHandler({ prefix: "/payments" })
  const bytesRead: Array<number> = []
  const origin = listen((req, res) => {
    const socket = req.socket
    res.on("finish", () => bytesRead.push(socket.bytesRead))
    NodeHttp.listener(tender, (_req, hostRes) => {
      hostRes.writeHead(200, { "content-type": "text/plain" })
      hostRes.end("host")
    })(req, res)
  })

  it("serves Tender's paths with their bodies and passes every other path to the host", async () => {
    const url = await origin
    const created = await fetch(`${url}/payments/payment_intents`, {
      method: "POST",
      headers: { authorization: basic(keys.demoTest), "content-type": "application/json", "idempotency-key": "node-adapter-1" },
      body: JSON.stringify(promptpay)
    })
    assert.strictEqual(created.status, 201)
    assert.strictEqual((await created.json()).amount, "150000")
    const other = await fetch(`${url}/orders`, { method: "POST", body: "x" })
    assert.strictEqual(await other.text(), "host")
  })

  /** POST `head` then `total` bytes of filler, chunked (no Content-Length), until the server answers. */
  const sendChunked = (path: string, headers: Record<string, string>, head: Buffer, total: number) =>
    origin.then((base) => sendChunkedTo(`${base}${path}`, headers, head, total))

  it("D1 a chunked body over 1 MiB is refused with 413 having read a small part of 64 MiB sent", async () => {
    const { body, status } = await sendChunked(
      "/payments/payment_intents",
      { authorization: basic(keys.demoTest), "content-type": "application/json" },
      Buffer.alloc(0),
      64 * 1024 * 1024
    )
    assert.strictEqual(status, 413)
    assert.strictEqual(JSON.parse(body).error.code, "validation_failed", body)
    assert.strictEqual(JSON.parse(body).error.message, "The request body is larger than 1048576 bytes.")
    const read = bytesRead.at(-1) ?? Infinity
    // What the server read from the socket: the 1 MiB limit and the buffers in between (about
    // 1.1 MB measured), not the 64 MiB; a body read whole before the check would be all of it.
    assert.isBelow(read, 4 * 1024 * 1024, `the server read ${read} bytes`)
  })
})

describe("shutdown (docs/embedding.md)", () => {
  it("dispose interrupts a worker in the middle of a provider call and releases the services", async () => {
    let started = false
    let interrupted = false
    // The simulator, except that confirming waits for ever: the worker running the confirm task is busy when the host stops.
    const hanging: Provider.PaymentProvider = {
      ...Simulator.make(),
      confirmPayment: () =>
        Effect.sync(() => (started = true)).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))
        )
    }
    let released = false
    const errors: Array<unknown> = []
    const services = Workers.layer({ pollMillis: 10 }).pipe(
      Layer.provideMerge(layer({ providers: [hanging] })),
      Layer.provideMerge(Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => (released = true))))),
      Layer.provide(Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Error") errors.push(message)
        })
      ))
    )
    const tender = TenderHttp.toWebHandler(services)
    await tender.ready()
    const created = await call(tender.handler, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual((await call(tender.handler, "POST", `/payment_intents/${created.json.id}/confirm`, { key: keys.demoTest })).status, 200)
    for (let i = 0; i < 500 && !started; i++) await new Promise((r) => setTimeout(r, 10))
    assert.isTrue(started, "the worker never called the provider")
    await tender.dispose()
    assert.isTrue(interrupted, "the worker's provider call outlived dispose")
    assert.isTrue(released)
    // A shutdown is not a task failure: nothing is logged as an error (Workers.runTask gives the claim back).
    assert.deepStrictEqual(errors, [])
  })

  it("ready rejects with the cause when the services cannot start, and a later call tries again", async () => {
    let attempts = 0
    const failing = Layer.effectDiscard(Effect.suspend(() => {
      attempts++
      return Effect.fail(new Error("database unreachable"))
    }))
    const tender = TenderHttp.toWebHandler(Layer.provideMerge(layer(), failing))
    disposers.push(tender.dispose)
    const first = await tender.ready().then(() => "ready", (e: unknown) => String(e))
    assert.include(first, "database unreachable")
    await tender.ready().catch(() => undefined)
    assert.strictEqual(attempts, 2)
  })
})
