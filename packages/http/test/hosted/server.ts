/**
 * A real HTTP server for the hosted checkout tests: @tender/http on the in-memory store with
 * the test fixtures' merchants, the workers running (receipts, confirmations and expiry move
 * intents as in production), and the hosted checkout's base URL set to the server's own address.
 * Not a test file.
 */
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { HostedCheckout, Tender, Workers } from "@tender/core"
import { basic, freePort, hosted } from "@tender/repo-test-support"
import { Effect, Exit, Layer, Scope } from "effect"
import { createServer } from "node:http"
import { keys, seed } from "../../../core/test/fixtures.js"
import { TenderHttp } from "../../src/index.js"

export { keys }

export interface TestServer {
  readonly url: string
  readonly options: HostedCheckout.HostedCheckoutOptions
  readonly close: () => Promise<void>
}

/** Start a server; `hosted` adds to the hosted checkout options (previous secrets, appearance). */
export const start = async (hosted: Partial<HostedCheckout.HostedCheckoutOptions> = {}): Promise<TestServer> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const options: HostedCheckout.HostedCheckoutOptions = { baseUrl: url, secret: "hosted-test-secret", ...hosted }
  const store = Tender.layerMemory({ seed, hostedCheckout: options })
  const services = Workers.layer({ pollMillis: 200 }).pipe(Layer.provideMerge(store))
  const server = HttpApiBuilder.serve().pipe(
    Layer.provide(TenderHttp.layer),
    Layer.provide(services),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(server, scope))
  return { url, options, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** POST /payment_intents with the demo test key (or `key`); the created intent. */
export const createIntent = async (server: TestServer, body: Record<string, unknown>, key: { public: string; secret: string } = keys.demoTest) => {
  const res = await fetch(`${server.url}/payment_intents`, {
    method: "POST",
    headers: { authorization: basic(key), "content-type": "application/json" },
    body: JSON.stringify({ ...hosted, ...body })
  })
  const json = await res.json() as any
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** GET /payment_intents/{id}. */
export const getIntent = async (server: TestServer, id: string, key: { public: string; secret: string } = keys.demoTest) => {
  const res = await fetch(`${server.url}/payment_intents/${id}`, { headers: { authorization: basic(key) } })
  return await res.json() as any
}

/** Wait until `check` holds for the intent (workers run asynchronously). */
export const waitForIntent = async (server: TestServer, id: string, check: (intent: any) => boolean, key = keys.demoTest) => {
  for (let i = 0; i < 100; i++) {
    const intent = await getIntent(server, id, key)
    if (check(intent)) return intent
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`intent ${id} never reached the expected state`)
}

/** The merchant's own site, where return_url points: a plain page on another port (another origin). */
export const startShop = async () => {
  const port = await freePort()
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end("<!doctype html><html lang=\"en\"><title>Shop</title><main><h1>Back at the shop</h1></main></html>")
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/**
 * The API behind a host that serves it under `prefix` (as a host mounts it in its own app): a
 * plain Node server strips the prefix and hands the request to `TenderHttp.toWebHandler`; any
 * other path is the host's own 404. `url` is the mounted base URL, which is `baseUrl`.
 */
export const startMounted = async (prefix: string, hosted: Partial<HostedCheckout.HostedCheckoutOptions> = {}): Promise<TestServer> => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const options: HostedCheckout.HostedCheckoutOptions = { baseUrl: origin + prefix, secret: "hosted-test-secret", ...hosted }
  const services = Workers.layer({ pollMillis: 200 }).pipe(Layer.provideMerge(Tender.layerMemory({ seed, hostedCheckout: options })))
  const web = TenderHttp.toWebHandler(services)
  const server = createServer(async (req, res) => {
    const path = req.url ?? "/"
    if (!path.startsWith(prefix + "/")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("the host's own 404")
      return
    }
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v)
    const body = chunks.length === 0 ? null : Buffer.concat(chunks)
    const response = await web.handler(new Request(origin + path.slice(prefix.length), { method: req.method!, headers, body }))
    const out: Record<string, string | Array<string>> = {}
    response.headers.forEach((value, key) => {
      if (key !== "set-cookie") out[key] = value
    })
    const cookies = response.headers.getSetCookie()
    if (cookies.length > 0) out["set-cookie"] = cookies
    res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()))
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    url: origin + prefix,
    options,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await web.dispose()
    }
  }
}
