/**
 * Every status and error code each route can return through the real fetch handler, checked
 * against /openapi.json both ways; bad input of every kind; body limits. The route groups of the
 * matrix are in routesMatrixPayments.ts and routesMatrixTopupsWebhooks.ts.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { promptpayNamed as promptpay } from "@tender/repo-test-support"
import { Layer } from "effect"
import { keys, layer, quiet } from "../../core/test/fixtures.js"
import type { Key, Reply } from "./harness.js"
import { app, assertError, basic, brokenDirectory, brokenStorage, call } from "./harness.js"
import { bigBody, documented, documentedCodes, json, listQueryRefusals, type Matrix, type Op, unavailableDirectory, unavailableStorage } from "./routes.js"
import { paymentRoutes } from "./routesMatrixPayments.js"
import { otherRoutes } from "./routesMatrixTopupsWebhooks.js"

const runtimes: Array<{ readonly dispose: () => Promise<void> }> = []
afterAll(() => Promise.all(runtimes.map((r) => r.dispose())))

describe("error codes x routes over HTTP", () => {
  it(
    "D1 every status and error code of every route, in the D1 body with Request-Id, and each one documented in /openapi.json (and each documented one produced)",
    async () => {
      const h = app()
      const h500 = app(Layer.mergeAll(layer({ storage: brokenStorage }), quiet))
      const hStoreDown = app(Layer.mergeAll(layer({ storage: unavailableStorage }), quiet))
      const hDirectoryDown = app(Layer.merge(layer(), brokenDirectory).pipe(Layer.merge(quiet)))
      const h503 = app(Layer.merge(layer(), unavailableDirectory).pipe(Layer.merge(quiet)))
      const observed: Array<{ op: Op; status: number; code?: string }> = []
      const ok = async (op: Op, res: Promise<Reply>, status: number) => {
        const r = await res
        assert.strictEqual(r.status, status, `${op}: ${r.text}`)
        assert.match(r.headers.get("request-id") ?? "", /^req_[0-9A-Za-z]{24}$/, op)
        assert.strictEqual(r.headers.get("content-type"), "application/json")
        observed.push({ op, status })
        return r
      }
      const err = async (op: Op, res: Promise<Reply>, status: number, code: string, param?: string) => {
        const e = assertError(await res, status, code, param)
        observed.push({ op, status, code })
        return e
      }
      const wrongSecret: Key = { public: keys.demoTest.public, secret: "sk_test_wrongwrongwrong" }

      const guardedRead: Matrix["guardedRead"] = async (op, read) => {
        await err(op, read({}), 401, "authentication_required")
        await err(op, read({ key: wrongSecret }), 401, "invalid_api_key")
        await err(op, read({ key: keys.demoTest }, h500), 500, "internal_error")
        await err(op, read({ key: keys.demoTest }, h503), 503, "service_unavailable")
      }
      const refusesQueries: Matrix["refusesQueries"] = async (op, list, own) => {
        for (const [query, param] of [...listQueryRefusals, ...own]) {
          await err(op, list(query), 400, "validation_failed", param)
        }
      }
      const oversized = { key: keys.demoTest, raw: bigBody, headers: { ...json, "content-length": String(Buffer.byteLength(bigBody)) } }
      const refusesOversized: Matrix["refusesOversized"] = async (op, write) => {
        await err(op, write(oversized), 413, "validation_failed", "body")
      }
      const matrix = { h, h500, hStoreDown, hDirectoryDown, h503, ok, err, guardedRead, refusesQueries, refusesOversized, wrongSecret, runtimes }
      const { asset } = await paymentRoutes(matrix)
      await otherRoutes(matrix, asset)

      // /openapi.json and an unknown route
      const doc = (await ok("openapi", call(h, "GET", "/openapi.json"), 200)).json
      assertError(await call(h, "POST", "/openapi.json"), 405, "method_not_allowed")
      assertError(await call(h, "GET", "/payment_intent", { key: keys.demoTest }), 404, "resource_not_found")

      // Every observed status and code is documented for its operation, with the D1 body schema.
      for (const o of observed) {
        if (o.op === "openapi") continue
        const [path, method] = documented[o.op]
        const response = doc.paths[path][method].responses[String(o.status)]
        assert.isDefined(response, `${o.op} answered ${o.status}, which /openapi.json does not document`)
        if (o.status >= 400) {
          assert.include(documentedCodes(doc, response), o.code, `${o.op} ${o.status}`)
          assert.include(response.description.replace(/^Error: /, "").split(" or "), o.code, `${o.op} ${o.status}`)
        }
      }
      // And every documented status and code was produced above.
      for (const [op, [path, method]] of Object.entries(documented)) {
        for (const [status, response] of Object.entries(doc.paths[path][method].responses as Record<string, { description: string }>)) {
          // The catalogue is a static body: nothing in it can fail, its 500 is only the generic fault.
          if (op === "webhookEventTypes.catalogue" && status === "500") continue
          const codes = Number(status) >= 400 ? documentedCodes(doc, response) : [undefined]
          for (const code of codes) {
            assert.isTrue(
              observed.some((o) => o.op === op && String(o.status) === status && (code === undefined || o.code === code)),
              `${op} documents ${status} ${code ?? ""} but no test produced it`
            )
          }
        }
      }
    },
    60_000
  ) // a few hundred requests: 3 s alone, far more when the machine is shared

  it("D1 bad input of every kind gets a 4xx in the D1 body, never a 500", async () => {
    const h = app()
    const cases: Array<[string, string, { raw?: string; headers?: Record<string, string>; auth?: string | null }]> = [
      ["POST", "/payment_intents", { raw: "null" }],
      ["POST", "/payment_intents", { raw: "\"text\"" }],
      ["POST", "/payment_intents", { raw: "[]" }],
      ["POST", "/payment_intents", { raw: "1e999" }],
      ["POST", "/payment_intents", { raw: "{\"amount\":1e999,\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{}}" }],
      ["POST", "/payment_intents", { raw: "{\"__proto__\":{\"amount\":\"1\"},\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{}}" }],
      ["POST", "/payment_intents", { raw: "{\"amount\":\"1\",\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{\"constructor\":{}}}" }],
      ["POST", "/payment_intents", { raw: "{\"amount\":\"1\",\"currency\":\"THB\",\"country\":\"TH\",\"customer\":[]}" }],
      ["POST", "/payment_intents", { raw: "{\"amount\":\"1\",\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{},\"metadata\":[]}" }],
      ["POST", "/payment_intents", { raw: "{\"amount\":\"1\",\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{},\"metadata\":{\"a\":{\"b\":1}}}" }],
      ["POST", "/payment_intents", {
        raw:
          "{\"amount\":\"1\",\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{},\"payment_method\":\"th_promptpay\",\"payment_method_options\":\"KBANK\"}"
      }],
      ["POST", "/payment_intents", {
        raw: "{\"amount\":\"1\",\"currency\":\"THB\",\"country\":\"TH\",\"customer\":{},\"return_url\":\"javascript:alert(1)\"}"
      }],
      ["POST", "/payment_intents", { raw: "[".repeat(100_000) + "]".repeat(100_000) }],
      ["POST", "/payment_intents", { raw: "\u0000" }],
      ["POST", "/payment_intents", { raw: "{}", headers: { "content-type": "application/json; charset=latin1; x" } }],
      ["POST", "/payment_intents", { raw: "amount=1", headers: { "content-type": "application/x-www-form-urlencoded" } }],
      ["GET", "/payment_intents/%E0%A4%A", {}],
      ["GET", "/payment_intents/" + "d".repeat(5000), {}],
      ["GET", "/payment_intents?limit=1&limit=2", {}],
      ["GET", "/payment_intents?cursor=a&cursor=b", {}],
      ["GET", "/payment_intents?cursor=" + Buffer.from("[1e400,\"dord_x\"]").toString("base64url"), {}],
      ["GET", "/payment_intents?created_after=%ZZ", {}],
      ["GET", "/payment_intents?created_after=99999-01-01T00:00:00Z", {}],
      ["GET", "/payment_intents?status=requires_action,", {}],
      ["GET", "/payment_intents?merchant_reference=", {}],
      ["GET", "/payment_methods/options?amount=1e3&country=TH&currency=THB", {}],
      ["GET", "/payment_methods/options?amount=1&country=TH&currency=THB&provider=Bad%20Code", {}],
      ["GET", "/payment_methods/options?amount=1&amount=2&country=TH&currency=THB", {}],
      ["GET", "/payment_intents", { auth: "Basic " + Buffer.from("\u00ff\u00fe:\u00ff").toString("base64") }],
      ["GET", "/payment_intents", { auth: "Basic " + Buffer.from("pk_test_x").toString("base64") }],
      ["GET", "/payment_intents", { auth: "Basic " + Buffer.from(":sk_test_x").toString("base64") }],
      ["GET", "/payment_intents", { auth: "Basic ====" }],
      ["GET", "/payment_intents", { auth: "Digest username=x" }]
    ]
    const authorization = basic(keys.demoTest)
    for (const [method, path, c] of cases) {
      const headers: Record<string, string> = {
        ...(c.auth === undefined ? { authorization } : c.auth === null ? {} : { authorization: c.auth }),
        ...(method === "POST" ? json : {}),
        ...c.headers
      }
      const res = await call(h, method, path, { headers, ...(c.raw !== undefined ? { raw: c.raw } : {}) })
      const label = `${method} ${path.slice(0, 80)} ${(c.raw ?? "").slice(0, 60)}`
      assert.isTrue(res.status >= 400 && res.status < 500, `${label} -> ${res.status} ${res.text}`)
      assertError(res, res.status, res.json.error.code)
      assert.include(["validation_failed", "authentication_required", "invalid_api_key", "resource_not_found"], res.json.error.code, label)
    }
  })
})

describe("body limits through the fetch-style handler (D1)", () => {
  it("D1 a streamed body over 1 MiB without Content-Length -> 413 validation_failed param body, not parsed", async () => {
    const h = app()
    const big = JSON.stringify({ ...promptpay, metadata: { blob: "x".repeat(2 * 1024 * 1024) } })
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      }
    })
    const request = new Request("http://localhost/payment_intents", {
      method: "POST",
      body: stream,
      duplex: "half",
      headers: { ...json, authorization: basic(keys.demoTest) }
    } as RequestInit)
    assert.isNull(request.headers.get("content-length"))
    const res = await h(request)
    const text = await res.text()
    assertError({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, 413, "validation_failed", "body")
    assert.strictEqual(res.headers.get("connection"), "close")
  })

  it("D1 a body just under 1 MiB is read and decoded normally", async () => {
    const h = app()
    const body = { ...promptpay, device_fingerprint: "f".repeat(512) }
    const filler = JSON.stringify({ ...body, metadata: { k: "" } })
    // Pad with whitespace to 1 MiB exactly: still accepted, then decoded (valid request -> 201).
    const raw = filler + " ".repeat(1024 * 1024 - Buffer.byteLength(filler))
    assert.strictEqual(Buffer.byteLength(raw), 1024 * 1024)
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw, headers: json })
    assert.strictEqual(res.status, 201, res.text)
  })
})
