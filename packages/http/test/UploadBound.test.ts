/**
 * The bound on uploads worked on at once (`maxConcurrentUploads`, docs/reliability.md "Uploads"):
 * with the bound's uploads in flight, one more multipart upload is refused at once with 503
 * `service_unavailable` in the D1 shape and `Retry-After`, its body unread, while other requests
 * are served; once one finishes, the next is taken. Deterministic: an upload in flight is one
 * whose body Tender has started to read and that the test has not finished sending.
 */
import { assert, describe, it } from "@effect/vitest"
import { png } from "@tender/repo-test-support"
import { atFileEnd } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { layer } from "../../core/test/fixtures.js"
import { Mount, TenderHttp } from "../src/index.js"
import { assertError, basic, call } from "./harness.js"

const boundary = "bound-test"
const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.png"\r\nContent-Type: image/png\r\n\r\n`)
const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`)

/**
 * An upload of a small PNG to POST /assets whose body is held after its first chunk: `reading`
 * resolves once Tender has pulled that chunk (so it holds a place), `finish()` sends the rest.
 */
const heldUpload = (handler: (r: Request) => Promise<Response>, key: string) => {
  let pulled!: () => void
  const reading = new Promise<void>((ok) => (pulled = ok))
  let release!: () => void
  const released = new Promise<void>((ok) => (release = ok))
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === 0) {
        sent++
        controller.enqueue(head)
        pulled()
        return
      }
      await released
      controller.enqueue(png(256))
      controller.enqueue(tail)
      controller.close()
    }
  }, { highWaterMark: 0 })
  const response = handler(
    new Request("http://localhost/assets", {
      method: "POST",
      headers: { authorization: basic(keys.demoTest), "idempotency-key": key, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half"
    } as RequestInit)
  )
  return { reading, finish: () => release(), response }
}

const whole = (handler: (r: Request) => Promise<Response>, key: string) => {
  const body = new Uint8Array([...head, ...png(256), ...tail])
  return handler(
    new Request("http://localhost/assets", {
      method: "POST",
      headers: { authorization: basic(keys.demoTest), "idempotency-key": key, "content-type": `multipart/form-data; boundary=${boundary}` },
      body
    })
  )
}

describe("uploads worked on at once are bounded (docs/reliability.md, Uploads)", () => {
  it("D1 with maxConcurrentUploads uploads in flight, one more -> 503 service_unavailable with Retry-After, at once; a GET is served; after one finishes the next is taken", async () => {
    const web = TenderHttp.toWebHandler(layer(), { maxConcurrentUploads: 2 })
    atFileEnd(web.dispose)
    const h = web.handler
    const first = heldUpload(h, "held-1")
    const second = heldUpload(h, "held-2")
    await Promise.all([first.reading, second.reading])

    const refused = await whole(h, "third")
    const text = await refused.text()
    assertError({ status: refused.status, headers: refused.headers, text, json: JSON.parse(text) }, 503, "service_unavailable")
    assert.strictEqual(refused.headers.get("retry-after"), "1")
    // Other requests are served while the uploads hold every place.
    assert.strictEqual((await call(h, "GET", "/payment_intents?limit=1", { key: keys.demoTest })).status, 200)
    assert.strictEqual(
      (await call(h, "POST", "/payment_intents", {
        key: keys.demoTest,
        body: { amount: "1000", currency: "THB", country: "TH", payment_method: "th_promptpay", checkout_mode: "merchant", customer: { name: "A" } }
      })).status,
      201
    )

    first.finish()
    assert.strictEqual((await first.response).status, 201)
    const taken = await whole(h, "fourth")
    assert.strictEqual(taken.status, 201, await taken.text())
    second.finish()
    assert.strictEqual((await second.response).status, 201)
  })

  it("the bound is refused at start unless it is a whole number from 1; the default is 4", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => Mount.make({ standalone: true, maxConcurrentUploads: bad }), /maxConcurrentUploads/)
    }
    assert.strictEqual(Mount.make({ standalone: true }).maxConcurrentUploads, 4)
  })
})
