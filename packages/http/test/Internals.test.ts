/**
 * What Tender reads of `@effect/platform`'s requests beyond their declared types, through
 * packages/http/src/internal/platformInternals.ts (docs/upstream.md), checked on the pinned
 * platform: an upgrade that changes a request's `source`, or how `json` and the payload decode
 * read a body, fails here.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Fiber, Layer, Schema } from "effect"
import { createServer, get } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "vitest"
import * as Platform from "../src/internal/platformInternals.js"

/** Serve `app` on a random port of a real `node:http` server for the length of `use`. */
/** What `NodeHttpServer.layer` provides: the server, its platform and Node's context. */
type NodeServices = Layer.Layer.Success<ReturnType<typeof NodeHttpServer.layer>>

const onNode = async <R>(app: Layer.Layer<never, never, NodeServices>, use: (port: number) => Promise<R>): Promise<R> => {
  const server = createServer()
  const listening = new Promise<void>((ok) => server.once("listening", () => ok()))
  const fiber = Effect.runFork(Layer.launch(app.pipe(Layer.provide(NodeHttpServer.layer(() => server, { port: 0 })))))
  await listening
  try {
    return await use((server.address() as AddressInfo).port)
  } finally {
    await Effect.runPromise(Fiber.interrupt(fiber))
  }
}

describe("the platform shim reads what a pinned @effect/platform request keeps", () => {
  it("upstream shim on Node the source is an IncomingMessage: a Node body, its own object, with each line of a header apart", async () => {
    const seen = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return HttpServerResponse.unsafeJson({
        node: Platform.nodeBodyOf(request) !== undefined,
        source: Platform.sourceOf(request) === request.source,
        lines: Platform.headerLines(request, "x-twice"),
        once: Platform.headerLines(request, "x-once")
      })
    })
    const body = await onNode(HttpServer.serve(seen), async (port) => {
      // node:http sends each value of an array as a line of its own (fetch joins them).
      const text = await new Promise<string>((ok, ko) =>
        get({ port, host: "127.0.0.1", path: "/", headers: { "x-twice": ["a", "b"], "x-once": "c" } }, (res) => {
          let all = ""
          res.setEncoding("utf8").on("data", (c: string) => (all += c)).on("end", () => ok(all))
        }).on("error", ko)
      )
      return JSON.parse(text)
    })
    assert.deepStrictEqual(body, { node: true, source: true, lines: 2, once: 1 })
  })

  it("upstream shim from a web Request the source has a web body and no Node body", () => {
    const request = HttpServerRequest.fromWeb(new Request("http://localhost/", { method: "POST", body: "{}" }))
    assert.isUndefined(Platform.nodeBodyOf(request))
    assert.instanceOf(Platform.webBodyOf(request), ReadableStream)
  })

  it("upstream shim a request withText answers json from the text given, and leaves the platform's request as it was", async () => {
    const request = HttpServerRequest.fromWeb(new Request("http://localhost/", { method: "POST", body: "{\"a\":2}" }))
    const given = Platform.withText(request, "{\"a\":1}")
    assert.deepStrictEqual(await Effect.runPromise(given.json), { a: 1 })
    assert.strictEqual(given.method, "POST")
    assert.deepStrictEqual(await Effect.runPromise(request.json), { a: 2 })
  })

  it("upstream shim the payload decode reads the request a middleware provides (HttpApiBuilder reads it from the handler's context)", async () => {
    class Body extends HttpApiMiddleware.Tag<Body>()("Body", { provides: HttpServerRequest.HttpServerRequest }) {}
    const api = HttpApi.make("api").add(
      HttpApiGroup.make("g").add(
        HttpApiEndpoint.post("echo", "/").setPayload(Schema.Struct({ a: Schema.Number })).addSuccess(Schema.Struct({ a: Schema.Number })).middleware(Body)
      )
    )
    const handlers = HttpApiBuilder.group(api, "g", (h) => h.handle("echo", ({ payload }) => Effect.succeed(payload)))
    const body = Layer.succeed(Body, Effect.map(HttpServerRequest.HttpServerRequest, (r) => Platform.withText(r, "{\"a\":1}")))
    const served = HttpApiBuilder.serve().pipe(Layer.provide(HttpApiBuilder.api(api).pipe(Layer.provide(handlers), Layer.provide(body))))
    const answer = await onNode(served, async (port) => {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"a\":2}" })
      return res.json()
    })
    assert.deepStrictEqual(answer, { a: 1 })
  })
})
