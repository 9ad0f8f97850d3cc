/**
 * Bodies a hostile client sends, over real sockets, through every way to mount Tender
 * (docs/reliability.md): the Effect server of the demo (`NodeHttpServer`), the `node:http`
 * listener, Express, Fastify, and the fetch handler itself. A body over its limit, chunked or
 * not, gets its D1 413 and a closed connection; a client that goes away mid-body costs
 * nothing; and the host's process, and its server, go on answering.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Answer, promptpay, sendChunked } from "@tender/repo-test-support"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { keys } from "../../core/test/fixtures.js"
import { basic, formWith, png } from "./harness.js"
import { hostMounts } from "./mounts.js"

const { mounts, webHandler } = hostMounts()

const auth = { authorization: basic(keys.demoTest) }

/** The head of a multipart body whose `file` part is then the filler. */
const multipartHead = (boundary: string) =>
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n`)

/** A chunked multipart upload of a `file` part `size` bytes long to `url`, under `idempotencyKey`. */
const uploadChunked = (url: string, idempotencyKey: string, size: number) =>
  sendChunked(
    url,
    { ...auth, "content-type": "multipart/form-data; boundary=b", "idempotency-key": idempotencyKey },
    multipartHead("b"),
    size,
    Buffer.from("\r\n--b--\r\n")
  )

/** Open a socket, send a chunked body's start, and drop the connection mid-body. */
const abortMidBody = (url: string, path: string) =>
  new Promise<void>((ok) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${auth.authorization}\r\n` +
          `Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n`
      )
      const head = multipartHead("b")
      socket.write(`${head.length.toString(16)}\r\n`)
      socket.write(head)
      socket.write("\r\n")
      socket.write(`10000\r\n${"x".repeat(0x8000)}`)
      setTimeout(() => {
        socket.destroy()
        ok()
      }, 50)
    })
    socket.on("error", () => ok())
  })

const assertTooLarge = (answer: Answer, param: string) => {
  assert.strictEqual(answer.status, 413, answer.body)
  const { error } = JSON.parse(answer.body)
  assert.strictEqual(error.code, "validation_failed")
  assert.strictEqual(error.param, param)
  assert.match(error.request_id, /^req_/)
  assert.strictEqual(answer.headers["connection"], "close")
}

/** The server still serves: the catalogue answers. */
const assertAlive = async (base: string) => {
  const res = await fetch(`${base}/webhook_event_types`)
  assert.strictEqual(res.status, 200)
}

for (const [name, start] of Object.entries(mounts)) {
  describe(`hostile bodies through the ${name} (D1)`, () => {
    const base = start()

    it("D1 a chunked JSON body of 50 MiB -> 413 validation_failed param body, connection closed; the server goes on", async () => {
      const url = await base
      const answer = await sendChunked(`${url}/payment_intents`, { ...auth, "content-type": "application/json" }, Buffer.alloc(0), 50 * 1024 * 1024)
      assertTooLarge(answer, "body")
      await assertAlive(url)
    })

    it("D1 4.4 a chunked multipart upload of 20 MB to POST /assets -> 413 param file; the process does not end", async () => {
      const url = await base
      const answer = await uploadChunked(`${url}/assets`, `chunked-assets-${name}`, 20_000_000)
      assertTooLarge(answer, "file")
      await assertAlive(url)
    })

    it("D1 4.4 a chunked multipart receipt of 6 MB -> 413 param file", async () => {
      const url = await base
      const created = await fetch(`${url}/payment_intents`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ ...promptpay, payment_method: "th_bank_transfer" })
      })
      const intent = await created.json()
      const answer = await uploadChunked(`${url}/payment_intents/${intent.id ?? "dord_unknown"}/receipt`, `chunked-receipt-${name}`, 6_000_000)
      assertTooLarge(answer, "file")
      await assertAlive(url)
    })

    it("D1 a declared Content-Length over the upload limit -> 413 before reading", async () => {
      const url = await base
      const answer = await new Promise<Answer>((ok, fail) => {
        const req = httpRequest(new URL(`${url}/assets`), {
          method: "POST",
          headers: { ...auth, "content-type": "multipart/form-data; boundary=b", "content-length": String(20_000_000) }
        })
        req.on("response", (res) => {
          let text = ""
          res.on("data", (d) => (text += d))
          res.on("end", () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
        })
        req.on("error", fail)
        req.write(multipartHead("b"))
      })
      assertTooLarge(answer, "file")
    })

    it("a client that drops the connection mid-upload costs nothing: the next upload is served", async () => {
      const url = await base
      for (let i = 0; i < 5; i++) await abortMidBody(url, "/assets")
      const form = formWith(png())
      const res = await fetch(`${url}/assets`, { method: "POST", headers: auth, body: form })
      assert.strictEqual(res.status, 201, await res.clone().text())
      assert.strictEqual((await res.json()).object, "asset")
    })
  })
}

describe("hostile bodies through the fetch handler itself (D1)", () => {
  /** An endless body that counts what was pulled from it. */
  const endless = () => {
    let pulled = 0
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20))
      },
      cancel() {
        cancelled = true
      }
    })
    return { body, pulled: () => pulled, cancelled: () => cancelled }
  }

  /** POST `body` (bytes, or a stream sent as it is read) to a fresh fetch handler at `path`, as the demo merchant. */
  const post = (path: string, contentType: string, body: BodyInit) =>
    webHandler().handler(
      new Request(`http://localhost${path}`, { method: "POST", headers: { ...auth, "content-type": contentType }, body, duplex: "half" } as RequestInit)
    )

  it("D1 an endless JSON body -> 413 having pulled about the limit, and the body is cancelled", async () => {
    const source = endless()
    const res = await post("/payment_intents", "application/json", source.body)
    assert.strictEqual(res.status, 413)
    assert.strictEqual((await res.json()).error.param, "body")
    assert.isBelow(source.pulled(), 4 * 1024 * 1024)
    assert.isTrue(source.cancelled())
  })

  it("D1 an endless multipart upload -> 413 param file, and the body is cancelled", async () => {
    const head = multipartHead("b")
    let pulled = 0
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(pulled === 0 ? new Uint8Array(head) : new Uint8Array(64 * 1024).fill(0x20))
        pulled += pulled === 0 ? head.length : 64 * 1024
      },
      cancel() {
        cancelled = true
      }
    })
    const res = await post("/assets", "multipart/form-data; boundary=b", body)
    assert.strictEqual(res.status, 413)
    assert.strictEqual((await res.json()).error.param, "file")
    assert.isBelow(pulled, 8 * 1024 * 1024)
    assert.isTrue(cancelled)
  })

  it("D1 4.4 a multipart body that ends before its closing boundary -> 400 param body, at once (never a spinning read)", async () => {
    const truncated = Buffer.concat([multipartHead("b"), Buffer.alloc(1000, 0x20)])
    const res = await post("/assets", "multipart/form-data; boundary=b", truncated)
    assert.strictEqual(res.status, 400)
    assert.strictEqual((await res.json()).error.param, "body")
  })

  it("a body that fails mid-read -> 400 validation_failed param body, never a 500", async () => {
    let n = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (n++ > 2) controller.error(new Error("connection reset"))
        else controller.enqueue(new TextEncoder().encode("{\"amount\":"))
      }
    })
    const res = await post("/payment_intents", "application/json", body)
    assert.strictEqual(res.status, 400)
    assert.strictEqual((await res.json()).error.param, "body")
  })
})
