/**
 * A receiver that answers its status at once and then sends its body slowly: the status is the
 * answer (docs/webhooks.md, "What counts as delivered"), on the delivery client Tender ships
 * (`DeliveryClient`) and on a host's `HttpClient` (`WebhookClient.layer`). Real sockets on
 * loopback; the delivery timeout is made short so the trickle outlasts it.
 */
import { FetchHttpClient } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { DeliveryClient, Event, Storage, Task, WebhookDelivery, type WebhookTransport, Workers } from "@tender/core"
import { closeServers } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer, type Server } from "node:http"
import { afterAll } from "vitest"
import { keys, layer } from "../../core/test/fixtures.js"
import { TenderHttp, WebhookClient } from "../src/index.js"
import { call } from "./harness.js"

const servers: Array<Server> = []
afterAll(() => closeServers(servers))

/** Answers 200 with its headers at once, then a byte of body every 20 ms until the caller hangs up. */
const trickling = async () => {
  const seen = { requests: 0, closed: 0 }
  const server = createServer((req, res) => {
    seen.requests++
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" })
      res.flushHeaders()
      const timer = setInterval(() => res.write("."), 20)
      res.on("close", () => {
        clearInterval(timer)
        seen.closed++
      })
    })
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  servers.push(server)
  const address = server.address()
  return { url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/slow`, seen }
}

const scope = { merchantId: "mch_demo", environment: "test" } as const

/** Register the receiver, emit one event, run the workers: the attempts, and when a task is next due. */
const deliver = async (transport: Layer.Layer<WebhookTransport.WebhookTransport>, url: string) => {
  const runtime = ManagedRuntime.make(layer({ transport, webhooks: { timeoutMillis: 300 } }))
  const context = await runtime.runPromise(Effect.context<TenderHttp.Services>())
  const { dispose, handler } = TenderHttp.toWebHandler(Layer.succeedContext(context))
  try {
    const registered = await call(handler, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url } })
    assert.strictEqual(registered.status, 201, registered.text)
    return await runtime.runPromise(Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const now = Date.now()
      yield* storage.commit(
        yield* Event.writes(
          { ...scope, id: "dord_slow", version: 1, updatedAt: now },
          "payment_intent",
          { object: "payment_intent", id: "dord_slow" },
          ["payment_intent.created"]
        )
      )
      yield* Workers.drain({ owner: "test" })
      // Had the attempt counted as failed, its retry (5 s on) would be pending still.
      const nextDue = yield* (yield* Task.Tasks).nextDue
      const attempts = yield* WebhookDelivery.attempts(scope, { endpointId: registered.json.id as string })
      return { attempts, nextDue }
    }))
  } finally {
    await dispose()
    await runtime.dispose()
  }
}

describe("a receiver that answers 200 at once and sends its body slowly", () => {
  const cases = [
    ["DeliveryClient (Tender's own)", () => DeliveryClient.layer()],
    ["WebhookClient.layer on a host's HttpClient", () => WebhookClient.layer.pipe(Layer.provide(FetchHttpClient.layer))]
  ] as const
  for (const [name, transport] of cases) {
    it(`a receiver that answers 200 at once and trickles its body is delivered once and counted as delivered: ${name}`, async () => {
      const receiver = await trickling()
      const { attempts, nextDue } = await deliver(transport(), receiver.url)
      assert.strictEqual(receiver.seen.requests, 1)
      assert.deepStrictEqual(attempts.map((a) => [a.statusCode, a.error]), [[200, null]])
      assert.isUndefined(nextDue, "no retry is pending")
      // The body was never awaited past the deadline: the connection was closed.
      await new Promise((ok) => setTimeout(ok, 50))
      assert.strictEqual(receiver.seen.closed, 1)
    }, 30_000)
  }
})
