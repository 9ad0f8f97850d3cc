/**
 * Answers given before the body was read reach the client (found by the crash
 * fuzzer, docs/reliability.md "Hostile inputs tried"): a 405, 401 or 431 to a request whose
 * body is still arriving, on a server with `ClientErrors.install`. Without the lingering close
 * (`internal/linger.ts`) Node destroyed the socket with the client's bytes unread, the kernel
 * answered with a reset, and the client lost the answer (22 of 40 405s in the probe; the 405
 * test below fails without it). The 401 and 431 cases hold the same promise on other paths:
 * a 401 after the security middleware, a 431 answered by `ClientErrors` itself.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { keys } from "../../core/test/fixtures.js"
import { startTarget, type Target } from "./fuzz/engine.js"
import { exchange, type Outcome, type Wire } from "./fuzz/wire.js"
import { basic } from "./harness.js"

// The server in a child process (the crash fuzzer's target: `Startup.serve` on a `node:http`
// server with `ClientErrors.install`), so the client's writes race its close as they do over a network.
let target: Target
let port = 0

beforeAll(async () => {
  target = await startTarget()
  port = target.port
}, 60_000)
afterAll(() => target.stop())

/** `head` then `size` bytes of body, `times` times one after another; what each got back. */
const repeat = async (head: string, size: number, times: number) => {
  const outcomes: Array<Outcome> = []
  for (let i = 0; i < times; i++) {
    const wire: Wire = { category: "", label: "", head, pieces: [{ fill: size }], framing: "raw", end: "wait", mayDrop: false }
    outcomes.push(await exchange(port, wire, 30_000))
  }
  return outcomes
}

const d1 = (outcome: Outcome, status: number, code: string) => {
  assert.strictEqual(outcome.kind, "answer", `no answer: ${JSON.stringify(outcome)}`)
  if (outcome.kind !== "answer") return
  assert.strictEqual(outcome.response.status, status)
  const body = JSON.parse(outcome.response.body.toString("utf8"))
  assert.strictEqual(body.error.code, code)
  assert.strictEqual(body.error.request_id, outcome.response.headers["request-id"])
}

const MB2 = 2_000_000

describe("an answer before the body is read reaches the client (D1)", () => {
  it("D1 a 405 to a request with 2 MB of body still arriving is received, every time (no reset)", async () => {
    const head =
      `OPTIONS /topup_intents/x/receipt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${MB2}\r\n\r\n`
    for (const outcome of await repeat(head, MB2, 20)) d1(outcome, 405, "method_not_allowed")
  })

  it("D1 a 401 to an unauthenticated 2 MB create is received, every time, with or without Connection: close", async () => {
    const wrong = basic({ public: keys.demoTest.public, secret: "sk_test_wrong" })
    for (const connection of ["Connection: close\r\n", ""]) {
      const head =
        `POST /payment_intents HTTP/1.1\r\nHost: 127.0.0.1\r\n${connection}Authorization: ${wrong}\r\nContent-Type: application/json\r\nContent-Length: ${MB2}\r\n\r\n`
      for (const outcome of await repeat(head, MB2, 10)) d1(outcome, 401, "invalid_api_key")
    }
  })

  it("D1 a 431 answered by Node while the client still sends its body is received, every time", async () => {
    const head = `POST /payment_intents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"b".repeat(40_000)}\r\nContent-Length: ${MB2}\r\n\r\n`
    for (const outcome of await repeat(head, MB2, 10)) d1(outcome, 431, "validation_failed")
  })
})
