/**
 * Test harness: a real fetch-style handler over the core fixtures, a request helper and the
 * D1 error-body check. Shared by the HTTP tests; not a test file itself.
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert } from "@effect/vitest"
import { Merchants, Storage, StorageError } from "@tender/core"
import { atFileEnd } from "@tender/repo-test-support"
import { basic, eventLoopTurn, type Key } from "@tender/repo-test-support"
import { Context, Effect, Layer } from "effect"
import { createServer, request as httpRequest } from "node:http"
import { layer } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"

export { basic, formWith, type Key, png } from "@tender/repo-test-support"

/** A real fetch-style handler over a fresh in-memory store. */
export const app = (services: Layer.Layer<TenderHttp.Services> = layer()) => {
  const h = TenderHttp.toWebHandler(services)
  atFileEnd(h.dispose)
  return h.handler
}

/**
 * Tender alone on a real Node server (`HttpApiBuilder.serve` with `NodeHttpServer`) on a free
 * port, over a fresh in-memory store, for `use`; closed when it settles.
 */
export const withNodeServer = (use: (port: number) => Promise<void>): Promise<void> => {
  const server = HttpApiBuilder.serve().pipe(
    Layer.provide(TenderHttp.layer),
    Layer.provide(layer()),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(server)
    const { port } = Context.get(context, HttpServer.HttpServer).address as HttpServer.TcpAddress
    yield* Effect.promise(() => use(port))
  })))
}

export interface CallOptions {
  readonly key?: Key
  readonly body?: unknown
  readonly raw?: string
  /** A multipart body; the request sets its own Content-Type with the boundary. */
  readonly form?: FormData
  readonly headers?: Record<string, string>
}

export type Reply = { status: number; headers: Headers; text: string; json: any }

/**
 * A request sent with `node:http` as written: its path is not normalised (a fetch `Request` resolves
 * `/a/../b`) and a header given as an array is sent as one line per value.
 */
export const sendRaw = (port: number, method: string, path: string, headers: Record<string, string | Array<string>>, body?: string) =>
  new Promise<{ status: number; json: any }>((ok, fail) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => ok({ status: res.statusCode ?? 0, json: text === "" ? undefined : JSON.parse(text) }))
    })
    req.on("error", fail)
    req.end(body)
  })

export const call = async (
  handler: (r: Request) => Promise<Response>,
  method: string,
  path: string,
  options: CallOptions = {}
): Promise<Reply> => {
  const headers: Record<string, string> = { ...(options.key ? { authorization: basic(options.key) } : {}), ...options.headers }
  let body: string | FormData | undefined
  if (options.form !== undefined) body = options.form
  else if (options.raw !== undefined) body = options.raw
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers["content-type"] ??= "application/json"
  }
  const res = await handler(new Request(`http://localhost${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }))
  const text = await res.text()
  // The in-memory handler settles in promise jobs alone: let the worker's event loop turn (eventLoopTurn).
  await eventLoopTurn()
  return { status: res.status, headers: res.headers, text, json: text === "" ? undefined : JSON.parse(text) }
}

export interface ErrorBody {
  readonly code: string
  readonly message: string
  readonly param?: string
  readonly details?: Array<{ param?: string; message: string }>
  readonly request_id: string
}

/** D1: JSON with code, message, request_id equal to Request-Id, nothing else but param and details. */
export const assertError = (res: Reply, status: number, code: string, param?: string): ErrorBody => {
  assert.strictEqual(res.status, status, res.text)
  assert.strictEqual(res.headers.get("content-type"), "application/json")
  assert.deepStrictEqual(Object.keys(res.json), ["error"], res.text)
  const error = res.json.error as ErrorBody
  assert.strictEqual(error.code, code, res.text)
  assert.isString(error.message)
  assert.isAbove(error.message.length, 0)
  assert.match(res.headers.get("request-id") ?? "", /^req_[0-9A-Za-z]{24}$/)
  assert.strictEqual(error.request_id, res.headers.get("request-id"))
  for (const k of Object.keys(error)) assert.include(["code", "message", "param", "details", "request_id"], k, res.text)
  if (param !== undefined) assert.strictEqual(error.param, param, res.text)
  assert.notInclude(res.text, "    at ")
  if (status === 401) assert.strictEqual(res.headers.get("www-authenticate"), "Basic realm=\"payments\"")
  return error
}

/** `tag`'s service with each of `methods` failing with `error()`. */
const failingAll = <I, S>(tag: Context.Tag<I, S>, methods: ReadonlyArray<keyof S>, error: () => StorageError.StorageError) =>
  Layer.succeed(tag, Object.fromEntries(methods.map((m) => [m, () => Effect.fail(error())])) as S)

/** A store every operation of which fails with `error()`: a fault (StorageFailure, 500) or an outage (StorageUnavailable, 503). */
export const failingStorage = (error: () => StorageError.StorageError) =>
  failingAll(Storage.Storage, ["begin", "commit", "get", "find", "list", "purgeExpired", "balances"], error)

/** A key directory every lookup and write of which fails with `error()`. */
export const failingDirectory = (error: () => StorageError.StorageError) =>
  failingAll(
    Merchants.Merchants,
    ["findMerchant", "findKeyByPublicKey", "findCredentials", "putMerchant", "putApiKey", "revokeApiKey", "revokeSeededKeysExcept"],
    error
  )

/** A store broken for good: every operation a StorageFailure (500, its cause only in the log). */
export const brokenStorage = failingStorage(() => new StorageError.StorageFailure({ message: "connection refused" }))

/** A key directory broken for good: every lookup a StorageFailure. */
export const brokenDirectory = failingDirectory(() => new StorageError.StorageFailure({ message: "directory down" }))
