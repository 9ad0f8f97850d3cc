import { assert, describe, it } from "@effect/vitest"
import { StorageError } from "@tender/core"
import { hosted as hostedBody, promptpay as promptpayBody } from "@tender/repo-test-support"
import { Layer, Logger, LogLevel } from "effect"
import { keys, layer } from "../../core/test/fixtures.js"
import { app, assertError, call, failingStorage, formWith, type Key, png } from "./harness.js"
import { listQueryRefusals } from "./routes.js"

const promptpay = promptpayBody
const hosted = hostedBody

describe("POST /payment_intents over HTTP", () => {
  const h = app()

  it("4.1 201 with a payment intent; Request-Id on the response", async () => {
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.strictEqual(res.status, 201)
    assert.strictEqual(res.json.object, "payment_intent")
    assert.strictEqual(res.json.environment, "test")
    assert.match(res.headers.get("request-id") ?? "", /^req_/)
    assert.match(res.json.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  it("D5 same Idempotency-Key replays status and body byte for byte with Idempotent-Replayed: true", async () => {
    const headers = { "idempotency-key": "8a6f0c1e-3b1d-4c8e-9f6a-2d7b5e4c1a90" }
    const first = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    const again = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    assert.strictEqual(first.status, 201)
    assert.strictEqual(again.status, 201)
    assert.strictEqual(again.text, first.text)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    assert.isNull(first.headers.get("idempotent-replayed"))
    assert.strictEqual(again.headers.get("request-id"), first.headers.get("request-id"))
  })

  it("4.9.5 same key, changed body -> 409 idempotency_conflict", async () => {
    const headers = { "idempotency-key": "key-conflict" }
    await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: "2" }, headers })
    assertError(res, 409, "idempotency_conflict", "Idempotency-Key")
  })

  it("4.9 merchant_reference 2-3 same merchant_reference and fields -> 200 original; changed -> 409 idempotency_conflict", async () => {
    const body = { ...promptpay, merchant_reference: "http-ref-1" }
    const first = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    const again = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    assert.strictEqual(first.status, 201)
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.json.id, first.json.id)
    const changed = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...body, amount: "150001" } })
    assertError(changed, 409, "idempotency_conflict", "merchant_reference")
  })

  it("4.9 N concurrent identical requests over HTTP create exactly one intent", async () => {
    const fresh = app()
    const headers = { "idempotency-key": "http-race" }
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(fresh, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers }))
    )
    for (const r of results) assert.include([201, 409], r.status)
    assert.strictEqual(new Set(results.filter((r) => r.status === 201).map((r) => r.json.id)).size, 1)
    const list = await call(fresh, "GET", "/payment_intents", { key: keys.demoTest })
    assert.lengthOf(list.json.data, 1)
  })

  it("D1 schema failures -> 400 validation_failed with param and every problem in details", async () => {
    const res = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: { amount: "0100", currency: "thb", country: "TH", customer: { email: "nope" }, surprise: true }
    })
    const error = assertError(res, 400, "validation_failed")
    const params = (error.details ?? []).map((d) => d.param).sort()
    assert.deepStrictEqual(params, ["amount", "currency", "customer.email", "surprise"])
    for (const d of error.details ?? []) assert.include(d.message, d.param!)
    const one = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: 150000 } })
    assertError(one, 400, "validation_failed", "amount")
    const missing = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { amount: "1", currency: "THB", country: "TH" } })
    assert.strictEqual(assertError(missing, 400, "validation_failed", "customer").message, "customer is required")
  })

  it("D1 malformed JSON, an empty body, a non-object body -> 400 validation_failed, never an empty body", async () => {
    assertError(
      await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: "{\"amount\":", headers: { "content-type": "application/json" } }),
      400,
      "validation_failed",
      "body"
    )
    assertError(
      await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: "", headers: { "content-type": "application/json" } }),
      400,
      "validation_failed"
    )
    assertError(
      await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: "[1,2]", headers: { "content-type": "application/json" } }),
      400,
      "validation_failed"
    )
  })

  it("D1 a wrong Content-Type -> 400 validation_failed param Content-Type", async () => {
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: JSON.stringify(promptpay), headers: { "content-type": "text/plain" } })
    assertError(res, 400, "validation_failed", "Content-Type")
  })

  it("D1 a body over 1 MiB -> 413 validation_failed param body, before it is parsed", async () => {
    const big = JSON.stringify({ ...promptpay, metadata: { blob: "x".repeat(1024 * 1024) } })
    const res = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      raw: big,
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(big)) }
    })
    assertError(res, 413, "validation_failed", "body")
  })

  it("4.9.2 an Idempotency-Key is 1 to 255 printable ASCII characters; anything else -> 400 validation_failed param Idempotency-Key (D5)", async () => {
    for (const key of ["", "x".repeat(256), "caf\u00e9", "tab\there", "del\u007f"]) {
      const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers: { "idempotency-key": key } })
      assertError(res, 400, "validation_failed", "Idempotency-Key")
      const upload = await call(h, "POST", "/assets", { key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": key } })
      assertError(upload, 400, "validation_failed", "Idempotency-Key")
    }
    const ok = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers: { "idempotency-key": "x".repeat(255) } })
    assert.strictEqual(ok.status, 201)
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("").trim()
    const every = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers: { "idempotency-key": printable } })
    assert.strictEqual(every.status, 201, every.text)
  })

  it("4.9.1 POST /assets without Idempotency-Key -> 201; with one, a retry replays (D5 names only two routes that require it)", async () => {
    const bare = await call(h, "POST", "/assets", { key: keys.demoTest, form: formWith(png()) })
    assert.strictEqual(bare.status, 201, bare.text)
    assert.strictEqual(bare.json.object, "asset")
    const first = await call(h, "POST", "/assets", { key: keys.demoTest, form: formWith(png(70)), headers: { "idempotency-key": "asset-optional-1" } })
    const again = await call(h, "POST", "/assets", { key: keys.demoTest, form: formWith(png(70)), headers: { "idempotency-key": "asset-optional-1" } })
    assert.strictEqual(first.status, 201)
    assert.strictEqual(again.text, first.text)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
  })

  it("4.1.5 403 checkout_mode_not_allowed", async () => {
    assertError(await call(h, "POST", "/payment_intents", { key: keys.hostedOnly, body: promptpay }), 403, "checkout_mode_not_allowed", "checkout_mode")
  })

  it("7 422 payment_configuration_unavailable and 422 routing_unavailable", async () => {
    const bt = { ...promptpay, payment_method: "th_bank_transfer" }
    assertError(await call(h, "POST", "/payment_intents", { key: keys.unconfigured, body: bt }), 422, "payment_configuration_unavailable")
    assertError(await call(h, "POST", "/payment_intents", { key: keys.degraded, body: promptpay }), 422, "routing_unavailable")
  })

  it("D3 return_url in merchant mode -> 400 validation_failed param return_url", async () => {
    assertError(
      await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, return_url: "https://x.example/" } }),
      400,
      "validation_failed",
      "return_url"
    )
  })
})

describe("Request text that names Object's own members (D1)", () => {
  const h = app()
  const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]
  const topup = { destination_amount: "200000", destination_currency: "THB", source: { type: "test_funding" } }
  /** `body` as JSON text with `"name": {}` added under `at` (JSON.stringify drops a `__proto__` member of a literal). */
  const withKey = (body: object, at: ReadonlyArray<string>, name: string) => {
    const text = JSON.stringify(body)
    if (at.length === 0) return text.replace(/^\{/, `{${JSON.stringify(name)}:{},`)
    const inner = `"${at[0]}":{`
    return text.replace(inner, `${inner}${JSON.stringify(name)}:"x",`)
  }

  it("D1 an unknown body key named after an Object member -> 400 validation_failed, param the exact dotted path", async () => {
    for (const name of names) {
      for (const [path, at] of [["", []], ["customer.", ["customer"]]] as const) {
        const res = await call(h, "POST", "/payment_intents", {
          key: keys.demoTest,
          raw: withKey(promptpay, at, name),
          headers: { "content-type": "application/json" }
        })
        const error = assertError(res, 400, "validation_failed", `${path}${name}`)
        assert.strictEqual(error.message, `${path}${name} is not a known parameter`)
      }
      const res = await call(h, "POST", "/topup_intents", {
        key: keys.demoTest,
        raw: withKey(topup, [], name),
        headers: { "content-type": "application/json", "idempotency-key": `proto-topup-${name}` }
      })
      const error = assertError(res, 400, "validation_failed", name)
      assert.strictEqual(error.message, `${name} is not a known parameter`)
    }
  })

  it("4.9.5 metadata keys named after Object members are data: kept, returned, and fingerprinted like any other key", async () => {
    const metadata = { constructor: "c", toString: "t", valueOf: "v" }
    const created = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: { ...promptpay, metadata },
      headers: { "idempotency-key": "proto-metadata-1" }
    })
    assert.strictEqual(created.status, 201, created.text)
    // Same key, changed metadata value: a conflict, never a replay of the first body.
    const changed = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: { ...promptpay, metadata: { ...metadata, constructor: "other" } },
      headers: { "idempotency-key": "proto-metadata-1" }
    })
    assertError(changed, 409, "idempotency_conflict")
    // A __proto__ metadata key is refused by name, never silently dropped.
    const proto = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      raw: JSON.stringify({ ...promptpay, metadata: {} }).replace("\"metadata\":{", "\"metadata\":{\"__proto__\":\"x\""),
      headers: { "content-type": "application/json" }
    })
    assertError(proto, 400, "validation_failed", "metadata.__proto__")
  })

  it("4.9.5 a canonical fingerprint keeps a __proto__ member as data: two bodies that differ only there differ", async () => {
    const { Canonical } = await import("@tender/core")
    const a = JSON.parse("{\"a\":1,\"__proto__\":{\"x\":1}}")
    const b = JSON.parse("{\"a\":1,\"__proto__\":{\"x\":2}}")
    assert.notStrictEqual(Canonical.fingerprint(a), Canonical.fingerprint(b))
    assert.strictEqual(Canonical.stringify(a), "{\"__proto__\":{\"x\":1},\"a\":1}")
  })
})

describe("Authentication over HTTP (5, D2)", () => {
  const h = app()

  it("D2 missing, non-Basic or undecodable credentials -> 401 authentication_required with WWW-Authenticate", async () => {
    for (const authorization of [undefined, "Bearer sk_test_x", "Basic %%%"]) {
      const res = await call(h, "GET", "/payment_intents", authorization ? { headers: { authorization } } : {})
      assertError(res, 401, "authentication_required")
      assert.strictEqual(res.headers.get("www-authenticate"), "Basic realm=\"payments\"")
    }
  })

  it("D2 wrong secret, unknown key, revoked key, mixed environments -> 401 invalid_api_key, same message", async () => {
    const cases: Array<Key> = [
      { public: keys.demoTest.public, secret: "sk_test_wrongwrongwrong" },
      { public: "pk_test_nobody000000", secret: keys.demoTest.secret },
      keys.revoked,
      { public: keys.demoTest.public, secret: keys.demoLive.secret }
    ]
    const messages = new Set<string>()
    for (const key of cases) {
      const error = assertError(await call(h, "GET", "/payment_intents", { key }), 401, "invalid_api_key")
      messages.add(error.message)
    }
    assert.strictEqual(messages.size, 1)
  })

  it("5 authentication comes before body validation: no credentials and a bad body -> 401", async () => {
    assertError(await call(h, "POST", "/payment_intents", { raw: "{", headers: { "content-type": "application/json" } }), 401, "authentication_required")
  })

  it("5 authentication comes before the body checks: no credentials and a wrong Content-Type, an oversized or a too deep body -> 401", async () => {
    const big = JSON.stringify({ ...promptpay, metadata: { blob: "x".repeat(1024 * 1024) } })
    for (
      const [raw, headers] of [
        [JSON.stringify(promptpay), { "content-type": "text/plain" }],
        [big, { "content-type": "application/json", "content-length": String(Buffer.byteLength(big)) }],
        ["[".repeat(100) + "]".repeat(100), { "content-type": "application/json" }]
      ] as const
    ) {
      assertError(await call(h, "POST", "/payment_intents", { raw, headers }), 401, "authentication_required")
    }
  })

  it("5 a path id with a bad percent escape is authenticated first: no credentials -> 401; with them -> 400 param id", async () => {
    assertError(await call(h, "GET", "/payment_intents/dord_%E0%A4%A"), 401, "authentication_required")
    assertError(
      await call(h, "GET", "/payment_intents/dord_%E0%A4%A", { key: { public: keys.demoTest.public, secret: "sk_test_wrongwrongwrong" } }),
      401,
      "invalid_api_key"
    )
    assertError(await call(h, "GET", "/payment_intents/dord_%E0%A4%A", { key: keys.demoTest }), 400, "validation_failed", "id")
    assertError(await call(h, "DELETE", "/payment_intents/dord_%E0%A4%A"), 405, "method_not_allowed")
  })

  it("5.3 the key's environment is stamped on what it creates; no body field overrides it", async () => {
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoLive, body: { ...hosted, environment: "test" } })
    assertError(res, 400, "validation_failed", "environment")
    const live = await call(h, "POST", "/payment_intents", { key: keys.demoLive, body: hosted })
    assert.strictEqual(live.json.environment, "live")
  })
})

describe("GET routes over HTTP", () => {
  const h = app()

  it("4.2 get: own intent 200; unknown, other merchant's, other environment's -> 404 resource_not_found", async () => {
    const created = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    const got = await call(h, "GET", `/payment_intents/${created.json.id}`, { key: keys.demoTest })
    assert.strictEqual(got.status, 200)
    assert.strictEqual(got.json.id, created.json.id)
    assert.strictEqual(got.json.processing_reason, null)
    assert.strictEqual(got.json.receipt, null)
    const bodies = new Set<string>()
    for (const [key, id] of [[keys.otherTest, created.json.id], [keys.demoLive, created.json.id], [keys.demoTest, "dord_" + "Z".repeat(24)]] as const) {
      const error = assertError(await call(h, "GET", `/payment_intents/${id}`, { key }), 404, "resource_not_found")
      bodies.add(error.message.replace(id, "ID"))
    }
    assert.strictEqual(bodies.size, 1)
  })

  it("D1 a bad path id format -> 400 validation_failed param id", async () => {
    assertError(await call(h, "GET", "/payment_intents/abc", { key: keys.demoTest }), 400, "validation_failed", "id")
  })

  it("4.3 list: envelope, filters and cursor; bad limit, status, cursor or unknown parameter -> 400", async () => {
    await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, merchant_reference: "list-a" } })
    await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, merchant_reference: "list-b" } })
    const page = await call(h, "GET", "/payment_intents?limit=1&status=requires_action,failed&country=TH", { key: keys.demoTest })
    assert.strictEqual(page.status, 200)
    assert.deepStrictEqual(Object.keys(page.json), ["data", "has_more", "next_cursor"])
    assert.lengthOf(page.json.data, 1)
    assert.isTrue(page.json.has_more)
    const next = await call(h, "GET", `/payment_intents?limit=1&status=requires_action,failed&country=TH&cursor=${page.json.next_cursor}`, {
      key: keys.demoTest
    })
    assert.notStrictEqual(next.json.data[0].id, page.json.data[0].id)
    const repeated = await call(h, "GET", "/payment_intents?status=failed&status=requires_action&merchant_reference=list-a", { key: keys.demoTest })
    assert.lengthOf(repeated.json.data, 1)
    const own = [
      ["?limit=abc", "limit"],
      ["?status=done", "status"],
      ["?cursor=", "cursor"],
      ["?created_after=yesterday", "created_after"],
      ["?merchant_reference=" + "x".repeat(257), "merchant_reference"],
      ["?country=th", "country"]
    ] as const
    for (const [query, param] of [...listQueryRefusals, ...own]) {
      assertError(await call(h, "GET", `/payment_intents${query}`, { key: keys.demoTest }), 400, "validation_failed", param)
    }
  })

  it("4.6 discovery: 200 with methods; missing amount -> 400", async () => {
    const res = await call(h, "GET", "/payment_methods/options?amount=150000&country=TH&currency=THB&checkout_mode=merchant", { key: keys.demoTest })
    assert.strictEqual(res.status, 200)
    assert.deepStrictEqual(res.json.methods.map((m: { code: string }) => m.code), ["th_promptpay", "th_bank_transfer", "th_online_banking"])
    assertError(await call(h, "GET", "/payment_methods/options?country=TH&currency=THB", { key: keys.demoTest }), 400, "validation_failed", "amount")
    assertError(
      await call(h, "GET", "/payment_methods/options?amount=1&country=TH&currency=THB&checkout_mode=popup", { key: keys.demoTest }),
      400,
      "validation_failed",
      "checkout_mode"
    )
  })

  it("4.11 D10 the webhook event type catalogue needs no authentication and lists the closed union of D7 with D10's events and the webhook tools'", async () => {
    const res = await call(h, "GET", "/webhook_event_types")
    assert.strictEqual(res.status, 200)
    const types = res.json.data.map((d: { type: string }) => d.type)
    assert.lengthOf(types, 21)
    assert.include(types, "webhook_endpoint.disabled")
    assert.include(types, "payment_intent.succeeded")
    assert.include(types, "payout_intent.canceled")
    assert.includeMembers(types, ["payment_intent.canceled", "refund.created", "refund.succeeded", "refund.failed"])
    for (const entry of res.json.data) {
      assert.strictEqual(entry.example.object, "event")
      assert.strictEqual(entry.example.type, entry.type)
      assert.match(entry.example.id, /^evt_/)
      assert.strictEqual(entry.example.data.object.object, entry.type.split(".")[0])
    }
  })

  it("D1 unknown route -> 404 resource_not_found; wrong method -> 405 method_not_allowed with Allow", async () => {
    assertError(await call(h, "GET", "/nope", { key: keys.demoTest }), 404, "resource_not_found")
    const res = await call(h, "DELETE", "/payment_intents", { key: keys.demoTest })
    assertError(res, 405, "method_not_allowed")
    assert.strictEqual(res.headers.get("allow"), "GET, POST")
  })

  it("OpenAPI 3.1 at /openapi.json documents the real error body and Basic security", async () => {
    const res = await call(h, "GET", "/openapi.json")
    assert.strictEqual(res.status, 200)
    const doc = res.json
    assert.strictEqual(doc.openapi, "3.1.0")
    assert.property(doc.components.schemas, "Error")
    assert.notProperty(doc.components.schemas, "HttpApiDecodeError")
    assert.notInclude(res.text, "HttpApiDecodeError")
    assert.deepStrictEqual(doc.components.securitySchemes.basicAuth.scheme, "basic")
    assert.deepStrictEqual(doc.paths["/payment_intents"].get.security, [{ basicAuth: [] }])
    const create = doc.paths["/payment_intents"].post
    for (const status of ["201", "200", "400", "401", "403", "409", "422"]) assert.property(create.responses, status)
    assert.deepStrictEqual(create.responses["422"].content["application/json"].schema, {
      anyOf: [{ $ref: "#/components/schemas/PaymentConfigurationUnavailable" }, { $ref: "#/components/schemas/RoutingUnavailable" }]
    })
    assert.deepStrictEqual(doc.components.schemas.RoutingUnavailable.properties.error.properties.code, { type: "string", enum: ["routing_unavailable"] })
    assert.deepStrictEqual(doc.paths["/webhook_event_types"].get.security, [])
    assert.deepStrictEqual(
      doc.paths["/payment_intents"].get.parameters.map((p: { name: string }) => p.name),
      ["country", "currency", "created_after", "created_before", "merchant_reference", "status", "limit", "cursor"]
    )
    assert.deepStrictEqual(create.parameters.map((p: { name: string; in: string }) => [p.name, p.in]), [["Idempotency-Key", "header"]])
    assert.deepStrictEqual(
      doc.paths["/payment_methods/options"].get.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]),
      [["amount", true], ["country", true], ["currency", true], ["checkout_mode", false], ["provider", false]]
    )
    assert.property(doc.paths, "/payment_intents/{id}")
    assert.property(doc.paths, "/payment_methods/options")
    // 4.9.6: the in-flight conflict's Retry-After is declared wherever idempotency_conflict can be answered, never elsewhere.
    assert.deepInclude(create.responses["409"].headers["Retry-After"], { required: false })
    assert.notProperty(create.responses["400"].headers, "Retry-After")
    assert.notProperty(doc.paths["/payout_intents/{id}/approve"]?.post?.responses?.["409"]?.headers ?? {}, "Retry-After")
  })
})

describe("Faults over HTTP", () => {
  it("D1 a storage fault -> 500 internal_error with a generic message; details go to the log only", async () => {
    const broken = failingStorage(() => new StorageError.StorageFailure({ message: "connection refused to 10.0.0.5:5432" }))
    const logged: Array<unknown> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logged.push(message)))
    const h = app(Layer.mergeAll(layer({ storage: broken }), capture, Logger.minimumLogLevel(LogLevel.Error)))
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    const error = assertError(res, 500, "internal_error")
    assert.notInclude(res.text, "10.0.0.5")
    assert.notInclude(error.message, "connection")
    assertError(await call(h, "GET", "/payment_intents", { key: keys.demoTest }), 500, "internal_error")
    assert.isAbove(logged.length, 0)
  })
})

describe("Text a store cannot keep exactly (D1)", () => {
  const base = "\"amount\":\"150000\",\"currency\":\"THB\",\"country\":\"TH\",\"checkout_mode\":\"merchant\",\"payment_method\":\"th_promptpay\""
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["merchant_reference", `{${base},"customer":{"name":"A"},"merchant_reference":"order-\\ud800"}`],
    ["merchant_reference", `{${base},"customer":{"name":"A"},"merchant_reference":"order-\\u0000"}`],
    ["customer.name", `{${base},"customer":{"name":"Som\\udc00chai"}}`],
    ["customer.email", `{${base},"customer":{"email":"a\\u0000@example.com"}}`],
    ["metadata", `{${base},"customer":{"name":"A"},"metadata":{"note":"\\ud83d"}}`],
    ["metadata", `{${base},"customer":{"name":"A"},"metadata":{"k\\u0000":"v"}}`],
    ["device_fingerprint", `{${base},"customer":{"name":"A"},"device_fingerprint":"fp\\u0000"}`]
  ]
  for (const [param, raw] of cases) {
    it(`D1 ${param} with a lone surrogate or NUL -> 400 validation_failed, never stored: ${raw.slice(base.length + 3, base.length + 60)}`, async () => {
      const h = app()
      const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw, headers: { "content-type": "application/json" } })
      const error = assertError(res, 400, "validation_failed")
      assert.isTrue(error.param === param || (error.param ?? "").startsWith(`${param}.`), res.text)
      const list = await call(h, "GET", "/payment_intents", { key: keys.demoTest })
      assert.lengthOf(list.json.data, 0)
    })
  }

  it("D1 a merchant_reference list filter holding NUL -> 400 validation_failed", async () => {
    const res = await call(app(), "GET", "/payment_intents?merchant_reference=order-%00", { key: keys.demoTest })
    assertError(res, 400, "validation_failed", "merchant_reference")
  })

  it("D1 well-formed text outside the BMP is accepted as it is", async () => {
    const res = await call(app(), "POST", "/payment_intents", {
      key: keys.demoTest,
      body: { ...promptpay, merchant_reference: "order-🧾-ใบเสร็จ" }
    })
    assert.strictEqual(res.status, 201, res.text)
    assert.strictEqual(res.json.merchant_reference, "order-🧾-ใบเสร็จ")
  })
})
