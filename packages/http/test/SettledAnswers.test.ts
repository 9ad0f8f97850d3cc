/**
 * An answer to a client that is already gone still settles (found by the crash
 * fuzzer's leak check; `internal/settle.ts`): `@effect/platform-node` ends a response with
 * `end(body, callback)` and waits for the callback, which Node calls only on `finish`. Without
 * `ClientErrors.install` a reset client left that wait, its fiber, socket, request and response
 * in memory for ever (about 5 KB per aborted request).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { ClientErrors } from "../src/index.js"

const servers: Array<Server> = []
afterAll(() => Promise.all(servers.map((s) => new Promise((ok) => s.close(ok)))))

describe("answers to a client already gone settle", () => {
  it("end(body, callback) after the client reset calls back, so the request is freed", { timeout: 20_000 }, async () => {
    let settled!: (how: string) => void
    const done = new Promise<string>((ok) => (settled = ok))
    // The handler answers only once the client has gone, as a slow handler meets a reset client.
    const server = ClientErrors.install(createServer((_req, res) => {
      res.once("close", () => res.end("late", () => settled("called back")))
    }))
    servers.push(server)
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1", () => {
      socket.write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
      setImmediate(() => socket.resetAndDestroy())
    })
    socket.on("error", () => {})
    // Without the fix the callback never comes and this test times out.
    assert.strictEqual(await done, "called back")
  })
})
