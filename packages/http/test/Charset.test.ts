/**
 * Request text is UTF-8 or refused: a JSON body that is not valid UTF-8,
 * or a `charset` other than UTF-8, is a D1 400 answered before the `Idempotency-Key` is looked
 * at, so nothing is stored and a corrected retry under the same key runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpayNamed } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import type { Reply } from "./harness.js"
import { app, assertError, basic, call, withNodeServer } from "./harness.js"

const promptpay = promptpayNamed

/** The body of a create with `name` as the customer's name, as UTF-8 bytes but for `raw` spliced in. */
const bodyWithName = (raw: Uint8Array) => {
  const [before, after] = JSON.stringify({ ...promptpay, customer: { name: "@@" } }).split("@@") as [string, string]
  return Buffer.concat([Buffer.from(before, "utf8"), raw, Buffer.from(after, "utf8")])
}

/** POST raw bytes to /payment_intents through the real fetch handler. */
const send = async (
  h: (r: Request) => Promise<Response>,
  bytes: Uint8Array,
  headers: Record<string, string> = {}
): Promise<Reply> => {
  const res = await h(
    new Request("http://localhost/payment_intents", {
      method: "POST",
      headers: { authorization: basic(keys.demoTest), "content-type": "application/json", ...headers },
      body: new Uint8Array(bytes)
    })
  )
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, json: text === "" ? undefined : JSON.parse(text) }
}

const stored = async (h: (r: Request) => Promise<Response>) =>
  (await call(h, "GET", "/payment_intents", { key: keys.demoTest })).json.data as Array<{ id: string }>

describe("request text is UTF-8", () => {
  it("D1 a JSON body with invalid UTF-8 bytes -> 400 validation_failed param body, and nothing is stored", async () => {
    const h = app()
    // "Som\xffchai": 0xff never occurs in UTF-8.
    const invalid = bodyWithName(Buffer.from([0x53, 0x6f, 0x6d, 0xff, 0x63, 0x68, 0x61, 0x69]))
    assertError(await send(h, invalid), 400, "validation_failed", "body")
    // Truncated multi-byte sequence, an overlong encoding and an encoded surrogate: all refused.
    for (const bad of [[0xe0, 0xb8], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      assertError(await send(h, bodyWithName(Buffer.from(bad))), 400, "validation_failed", "body")
    }
    assert.deepStrictEqual(await stored(h), [])
  })

  it("D1 a Content-Type charset other than utf-8 -> 400 validation_failed param Content-Type, and nothing is stored", async () => {
    const h = app()
    // Latin-1 "Jörg": 0xf6 alone.
    const latin1 = bodyWithName(Buffer.from("J\u00f6rg", "latin1"))
    assertError(await send(h, latin1, { "content-type": "application/json; charset=ISO-8859-1" }), 400, "validation_failed", "Content-Type")
    // Even when the bytes happen to be valid UTF-8, the declared charset is not ours.
    const utf8 = bodyWithName(Buffer.from("J\u00f6rg", "utf8"))
    for (
      const type of ["application/json; charset=latin1", "application/json;charset=\"utf-16\"", "application/json; charset=utf8", "application/json; charset="]
    ) {
      assertError(await send(h, utf8, { "content-type": type }), 400, "validation_failed", "Content-Type")
    }
    assert.deepStrictEqual(await stored(h), [])
  })

  it("D1 application/json; charset=UTF-8 (any case, quoted or not) and no charset are accepted: 201 through the real handler", async () => {
    const h = app()
    const name = "J\u00f6rg \u0e2a\u0e21\u0e0a\u0e32\u0e22 \ud83d\ude00"
    for (const type of ["application/json; charset=UTF-8", "application/json;charset=utf-8", "application/json; charset=\"Utf-8\"", "application/json"]) {
      const res = await send(h, bodyWithName(Buffer.from(name, "utf8")), { "content-type": type })
      assert.strictEqual(res.status, 201, `${type}: ${res.text}`)
    }
    // The same through the harness's JSON helper (fetch's own encoding of a string body).
    const created = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, customer: { name } } })
    assert.strictEqual(created.status, 201, created.text)
    assert.lengthOf(await stored(h), 5)
  })

  it("D5 two different invalid bodies under one Idempotency-Key are both 400 (not a replay); a valid body under the key then runs", async () => {
    const h = app()
    const headers = { "idempotency-key": "charset-key" }
    const first = assertError(await send(h, bodyWithName(Buffer.from([0xff])), headers), 400, "validation_failed", "body")
    const second = await send(h, bodyWithName(Buffer.from([0xfe, 0x41])), headers)
    assertError(second, 400, "validation_failed", "body")
    assert.isNull(second.headers.get("idempotent-replayed"))
    assert.notStrictEqual(second.json.error.request_id, first.request_id)
    const latin = await send(h, bodyWithName(Buffer.from("\u00f6", "latin1")), { ...headers, "content-type": "application/json; charset=latin1" })
    assertError(latin, 400, "validation_failed", "Content-Type")
    assert.deepStrictEqual(await stored(h), [])
    const ok = await send(h, bodyWithName(Buffer.from("Somchai")), headers)
    assert.strictEqual(ok.status, 201, ok.text)
    assert.isNull(ok.headers.get("idempotent-replayed"))
  })

  it("D1 the other JSON bodies are checked too: confirm and receipt by asset id with invalid UTF-8 -> 400 param body", async () => {
    const h = app()
    const created = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual(created.status, 201, created.text)
    for (const suffix of ["confirm", "receipt"]) {
      const res = await h(
        new Request(`http://localhost/payment_intents/${created.json.id}/${suffix}`, {
          method: "POST",
          headers: { authorization: basic(keys.demoTest), "content-type": "application/json" },
          body: new Uint8Array(Buffer.concat([Buffer.from("{\"asset_id\":\""), Buffer.from([0xff]), Buffer.from("\"}")]))
        })
      )
      const text = await res.text()
      assertError({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, 400, "validation_failed", "body")
    }
    const got = await call(h, "GET", `/payment_intents/${created.json.id}`, { key: keys.demoTest })
    assert.strictEqual(got.json.status, created.json.status)
    assert.strictEqual(got.json.updated_at, created.json.updated_at)
  })

  it("D1 the same on the Node server (HttpApiBuilder.serve with NodeHttpServer): invalid UTF-8 and a latin1 charset are 400, a valid create is 201", async () => {
    await withNodeServer(async (port) => {
      const node = (request: Request) => {
        const url = new URL(request.url)
        return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, request)
      }
      assertError(await send(node, bodyWithName(Buffer.from([0xff]))), 400, "validation_failed", "body")
      assertError(
        await send(node, bodyWithName(Buffer.from("\u00f6", "latin1")), { "content-type": "application/json; charset=latin1" }),
        400,
        "validation_failed",
        "Content-Type"
      )
      assert.deepStrictEqual(await stored(node), [])
      const ok = await send(node, bodyWithName(Buffer.from("J\u00f6rg", "utf8")), { "content-type": "application/json; charset=utf-8" })
      assert.strictEqual(ok.status, 201, ok.text)
      const listed = await stored(node)
      assert.deepStrictEqual(listed.map((d) => d.id), [ok.json.id])
    })
  })
})
