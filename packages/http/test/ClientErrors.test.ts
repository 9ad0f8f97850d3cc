/**
 * Node's own errors for hosts: `ClientErrors.install` on a host's own `node:http` server
 * (here with Tender's fetch handler behind a small adapter) answers the errors Node answers
 * itself in the D1 shape, over raw sockets.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { rawExchange } from "@tender/repo-test-support"
import { createServer, type Server } from "node:http"
import { keys } from "../../core/test/fixtures.js"
import { ClientErrors } from "../src/index.js"
import { app, basic } from "./harness.js"

let server: Server
let port: number

beforeAll(async () => {
  const handler = app()
  server = ClientErrors.install(
    createServer({ maxHeaderSize: 2048, requestTimeout: 500, headersTimeout: 500, connectionsCheckingInterval: 100 }, async (req, res) => {
      const chunks: Array<Buffer> = []
      try {
        for await (const chunk of req) chunks.push(chunk as Buffer)
      } catch {
        // The client is gone (here: cut off by the 408): nothing to answer.
        return
      }
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks)
      const response = await handler(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method!,
          headers: req.headers as Record<string, string>,
          ...(body === undefined ? {} : { body })
        })
      )
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(Buffer.from(await response.arrayBuffer()))
    })
  )
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  port = (server.address() as { port: number }).port
})
afterAll(() => new Promise<void>((ok) => server.close(() => ok())))

/** `raw` on a fresh socket to the host's server, read until it closes. */
const exchange = (raw: string, keepOpen = false) => rawExchange(port, raw, { keepOpen })

const assertD1 = (res: Awaited<ReturnType<typeof exchange>>, status: number, code: string, param?: string) => {
  assert.strictEqual(res.status, status)
  assert.strictEqual(res.headers["content-type"], "application/json")
  assert.strictEqual(res.headers["connection"], "close")
  assert.deepStrictEqual(Object.keys(res.body), ["error"])
  assert.strictEqual(res.body.error.code, code)
  assert.strictEqual(res.body.error.param, param)
  assert.strictEqual(res.body.error.request_id, res.headers["request-id"])
  assert.match(res.headers["request-id"] ?? "", /^req_[0-9A-Za-z]{24}$/)
}

describe("ClientErrors on a host's node:http server (D1)", () => {
  it("D1 headers over maxHeaderSize -> 431 validation_failed", async () => {
    assertD1(await exchange(`GET /webhook_event_types HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(4000)}\r\n\r\n`), 431, "validation_failed")
  })

  it("D1 a request slower than requestTimeout -> 408 request_timeout", async () => {
    const raw = `POST /payment_intents HTTP/1.1\r\nHost: x\r\nAuthorization: ${
      basic(keys.demoTest)
    }\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`
    assertD1(await exchange(raw, true), 408, "request_timeout")
  })

  it("D1 no Host -> 400 param Host; Content-Length with Transfer-Encoding -> 400; the server still serves", async () => {
    assertD1(await exchange("GET /webhook_event_types HTTP/1.1\r\n\r\n"), 400, "validation_failed", "Host")
    assertD1(
      await exchange("POST /payment_intents HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
      400,
      "validation_failed"
    )
    const ok = await exchange("GET /webhook_event_types HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert.strictEqual(ok.status, 200)
  })

  it("D1 an Expect other than 100-continue -> 417 param Expect, where Node answered an empty 417", async () => {
    assertD1(await exchange("GET /webhook_event_types HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n"), 417, "validation_failed", "Expect")
  })

  it("D1 CONNECT -> 405 method_not_allowed, where Node closed the socket without a word", async () => {
    assertD1(await exchange("CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n"), 405, "method_not_allowed")
    assertD1(await exchange("CONNECT /payment_intents HTTP/1.1\r\nHost: x\r\n\r\n"), 405, "method_not_allowed")
  })

  it("classify: Node's parser and timer codes map to 431, 408 and 400", () => {
    assert.strictEqual(ClientErrors.classify({ code: "HPE_HEADER_OVERFLOW" }).status, 431)
    assert.strictEqual(ClientErrors.classify({ code: "ERR_HTTP_REQUEST_TIMEOUT" }).status, 408)
    assert.strictEqual(ClientErrors.classify({ code: "HPE_UNEXPECTED_CONTENT_LENGTH" }).status, 400)
    assert.strictEqual(ClientErrors.classify({ code: "HPE_INVALID_METHOD" }).status, 400)
  })
})
