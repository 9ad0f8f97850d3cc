/**
 * Property-based fuzzing through the real fetch handler (D1): generated bodies, query
 * strings, headers and path ids. Whatever arrives, the answer is never a 5xx, every 4xx is
 * the D1 body with its Request-Id, and a refused create stores nothing. About 13,100
 * generated requests per run (the sum of `numRuns` below).
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { bankTransfer as bankTransferBody, jsonHeaders, promptpayNamed } from "@tender/test-support"
import { keys } from "../../core/test/fixtures.js"
import type { Key, Reply } from "./harness.js"
import { app, assertError, basic, call } from "./harness.js"

type Handler = (r: Request) => Promise<Response>

const promptpay = promptpayNamed
const bankTransfer = { ...bankTransferBody("1234567890"), metadata: { order: "A-1" } }
const hosted = { amount: "990", currency: "THB", country: "TH", customer: { email: "a@example.com" } }
const bases = [promptpay, bankTransfer, hosted] as const
const json = jsonHeaders

/** Never a 5xx; a 4xx is the D1 body; a 2xx is JSON with a Request-Id. */
const check = (res: Reply, label: string) => {
  assert.isBelow(res.status, 500, `${label} -> ${res.status} ${res.text.slice(0, 300)}`)
  if (res.status >= 400) assertError(res, res.status, res.json?.error?.code)
  else {
    assert.strictEqual(res.headers.get("content-type"), "application/json", label)
    assert.match(res.headers.get("request-id") ?? "", /^req_[0-9A-Za-z]{24}$/, label)
  }
}

/** A create that stored an intent: 201 and not a replay. */
const createdNew = (res: Reply) => res.status === 201 && res.headers.get("idempotent-replayed") === null

/** Every intent the key's merchant and environment hold, page by page. */
const countAll = async (h: Handler, key: Key = keys.demoTest) => {
  let n = 0
  let cursor: string | null = null
  do {
    const res: Reply = await call(h, "GET", `/payment_intents?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`, { key })
    assert.strictEqual(res.status, 200, res.text)
    n += res.json.data.length
    cursor = res.json.next_cursor
  } while (cursor !== null)
  return n
}

/** Strings people and attackers send: lone surrogates, NUL, huge, numeric-looking, JSON-looking. */
const weirdString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom("", " ", "\u0000", "\ud800", "\udfff", "a\udc00b", "%00", "0", "-1", "01", "1.5", "1e3", "999999999999999999999", "NaN", "null", "true", "THB", "TH", "th_promptpay", "merchant", "hosted", "KBANK", "สมชาย", "a@b.co", "+66812345678") },
  { weight: 1, arbitrary: fc.constantFrom(257, 501, 70_000).map((n) => "x".repeat(n)) }
)
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: weirdString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) }
)

const fieldPaths = [
  "amount", "currency", "country", "checkout_mode", "merchant_reference", "customer", "customer.name", "customer.email",
  "customer.phone", "customer.reference", "customer.unknown", "payment_method", "payment_method_options",
  "payment_method_options.bank", "payment_method_options.account_name", "payment_method_options.account_number",
  "payment_method_options.name_th", "payment_method_options.unknown", "return_url", "device_fingerprint", "metadata",
  "metadata.k", "metadata.", "external_reference", "unknown_field"
] as const

/** An own, enumerable property, even one named `__proto__`. */
const define = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

/** A copy of `base` with `value` set at `path` (or the field deleted); parents made objects. */
const mutate = (base: unknown, path: string, value: unknown, remove: boolean): Record<string, unknown> => {
  const body = structuredClone(base) as Record<string, unknown>
  const parts = path.split(".")
  let at = body
  for (const part of parts.slice(0, -1)) {
    const next = at[part]
    if (typeof next !== "object" || next === null || Array.isArray(next)) define(at, part, {})
    at = at[part] as Record<string, unknown>
  }
  const last = parts[parts.length - 1]!
  if (remove) delete at[last]
  else define(at, last, value)
  return body
}

const mutations = fc.array(
  fc.record({ path: fc.constantFrom(...fieldPaths), value: weirdValue, remove: fc.boolean() }),
  { minLength: 1, maxLength: 3 }
)

const reserved = fc.constantFrom("__proto__", "constructor", "prototype")

/** A value under a reserved key: plain, or nesting more reserved keys (`{prototype: {polluted: true}}`). */
const reservedValue: fc.Arbitrary<unknown> = fc.oneof(
  weirdValue,
  fc.constant({ polluted: true }),
  fc.constant({ name: "x" }),
  fc.tuple(reserved, fc.constantFrom<unknown>({ polluted: true }, "x", 1, null)).map(([k, v]) => define({}, k, v))
)

/** Anything percent-encoded, or sent raw from a URL-ish alphabet (with broken escapes). */
const queryText = fc.oneof(
  weirdString.map((s) => {
    try {
      return encodeURIComponent(s)
    } catch {
      return "%ED%A0%80" // a lone surrogate cannot be encoded: send its (invalid) UTF-8 bytes
    }
  }),
  fc.string({ unit: fc.constantFrom(..."%0123456789abcdefABCDEFZz,.:+-_ ~!*()'".split("")), maxLength: 30 })
)

const listParams = ["limit", "cursor", "status", "country", "currency", "merchant_reference", "created_after", "created_before", "environment", "page"]
const discoveryParams = ["amount", "country", "currency", "checkout_mode", "provider", "limit", "environment"]

const query = (names: ReadonlyArray<string>, valid: ReadonlyArray<readonly [string, string]>) =>
  fc.tuple(
    fc.subarray([...valid]),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), queryText), queryText), { maxLength: 4 }),
    fc.boolean()
  ).map(([keep, extra, shuffle]) => {
    const pairs = [...keep, ...extra].map(([k, v]) => `${k}=${v}`)
    if (shuffle) pairs.reverse()
    return pairs.length === 0 ? "" : "?" + pairs.join("&")
  })

/** Header values a fetch client can send: bytes 1-255 without CR and LF. */
const headerText = (maxLength: number) =>
  fc.string({
    unit: fc.integer({ min: 1, max: 255 }).filter((c) => c !== 10 && c !== 13).map((c) => String.fromCharCode(c)),
    maxLength
  })

const idempotencyKey = fc.option(
  fc.oneof(headerText(300), fc.uuid(), fc.constantFrom("k", "a".repeat(255), "a".repeat(256), "é", "key with spaces", "\u007f")),
  { nil: undefined }
)

const contentType = fc.option(
  fc.tuple(
    fc.constantFrom("application/json", "APPLICATION/JSON", "Application/Json", "application/json5", "application/jsonx",
      "text/plain", "text/json", "application/x-www-form-urlencoded", "multipart/form-data", "", "*/*", "application/problem+json"),
    fc.array(fc.oneof(
      fc.constantFrom("; charset=utf-8", "; charset=UTF-8", ";charset=\"utf-8\"", "; charset=latin1", "; charset=utf8",
        "; charset=", "; charset", "; boundary=x", "; q=1", ";;", " ", "; charset=utf-8; charset=latin1"),
      headerText(20).map((s) => "; " + s)
    ), { maxLength: 2 })
  ).map(([type, params]) => type + params.join("")),
  { nil: undefined }
)

const authorization = fc.oneof(
  { weight: 4, arbitrary: fc.constant(basic(keys.demoTest)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => "Basic " + Buffer.from(s).toString("base64")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => "Basic " + Buffer.from(`${keys.demoTest.public}:${s}`).toString("base64")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => "Basic " + Buffer.from(`${s}:${keys.demoTest.secret}`).toString("base64")) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("Basic", "basic", "Bearer", "Digest", "", "Basic  "), headerText(60)).map(([s, v]) => `${s} ${v}`) },
  { weight: 1, arbitrary: headerText(80) }
)

const base62 = fc.string({ unit: fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".split("")), minLength: 24, maxLength: 24 })

const pathId = (others: ReadonlyArray<string>) =>
  fc.oneof(
    queryText,
    base62.map((s) => "dord_" + s),
    fc.string({ maxLength: 30 }).map((s) => "dord_" + encodeURIComponent(s)),
    fc.constantFrom(...others),
    fc.constantFrom("%", "%zz", "%E0%A4%A", "..", ".", "%2F", "%00", "dord_", "dord_%F0%9F%98%80", "d".repeat(5000))
  )

/** Whether `url` parses: a path the client itself refuses is not a request. */
const parses = (path: string) => {
  try {
    new URL(`http://localhost${path}`)
    return true
  } catch {
    return false
  }
}

const slow = { timeout: 120_000 }

describe("fuzzing through the real fetch handler (D1)", () => {
  it("D1 arbitrary JSON values as a create body: never a 5xx, every 4xx in the D1 shape, a refused create stores nothing", slow, async () => {
    const h = app()
    const before = await countAll(h)
    let created = 0
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), async (value) => {
        const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: JSON.stringify(value) ?? "", headers: json })
        check(res, `POST ${JSON.stringify(value).slice(0, 100)}`)
        if (createdNew(res)) created++
      }),
      { numRuns: 1500 }
    )
    assert.strictEqual(await countAll(h), before + created)
  })

  it("D1 create bodies with fields mutated (wrong types, huge and non-well-formed strings, unknown fields, removals): never a 5xx, a refused create stores nothing", slow, async () => {
    const h = app()
    const before = await countAll(h)
    let created = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...bases), mutations, async (base, changes) => {
        const body = changes.reduce<unknown>((b, c) => mutate(b, c.path, c.value, c.remove), base)
        const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: JSON.stringify(body), headers: json })
        check(res, `POST ${JSON.stringify(changes).slice(0, 200)}`)
        if (createdNew(res)) created++
        else refused++
      }),
      { numRuns: 2500 }
    )
    assert.isAbove(refused, 0)
    assert.strictEqual(await countAll(h), before + created)
  })

  it("D1 __proto__, constructor and prototype keys at every level of customer, payment_method_options and metadata: never a 5xx, no prototype polluted", slow, async () => {
    const h = app()
    const before = await countAll(h)
    let created = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bases),
        fc.array(fc.tuple(fc.constantFrom("", "customer", "payment_method_options", "metadata", "customer.name", "metadata.k"), reserved, reservedValue), { minLength: 1, maxLength: 3 }),
        async (base, inserts) => {
          const body = inserts.reduce<unknown>((b, [container, key, value]) => mutate(b, container === "" ? key : `${container}.${key}`, value, false), base)
          const raw = JSON.stringify(body)
          const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw, headers: json })
          check(res, `POST ${raw.slice(0, 200)}`)
          if (createdNew(res)) created++
          assert.isUndefined(({} as Record<string, unknown>)["polluted"])
          assert.isFalse(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"))
        }
      ),
      { numRuns: 1000 }
    )
    assert.strictEqual(await countAll(h), before + created)
  })

  it("D1 query strings of GET /payment_intents: never a 5xx, every 4xx in the D1 shape", slow, async () => {
    const h = app()
    for (let i = 0; i < 3; i++) await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    await fc.assert(
      fc.asyncProperty(query(listParams, [["limit", "2"], ["status", "requires_action,failed"], ["country", "TH"], ["created_after", "2020-01-01T00%3A00%3A00Z"]]), async (q) => {
        fc.pre(parses(`/payment_intents${q}`))
        check(await call(h, "GET", `/payment_intents${q}`, { key: keys.demoTest }), `GET /payment_intents${q.slice(0, 200)}`)
      }),
      { numRuns: 1500 }
    )
  })

  it("D1 query strings of GET /payment_methods/options: never a 5xx, every 4xx in the D1 shape", slow, async () => {
    const h = app()
    await fc.assert(
      fc.asyncProperty(query(discoveryParams, [["amount", "150000"], ["country", "TH"], ["currency", "THB"], ["checkout_mode", "merchant"]]), async (q) => {
        fc.pre(parses(`/payment_methods/options${q}`))
        check(await call(h, "GET", `/payment_methods/options${q}`, { key: keys.demoTest }), `GET /payment_methods/options${q.slice(0, 200)}`)
      }),
      { numRuns: 1000 }
    )
  })

  it("D1 D2 D5 headers on create (Idempotency-Key, Content-Type, Authorization of any bytes): never a 5xx, every 4xx in the D1 shape, a refused create stores nothing", slow, async () => {
    const h = app()
    const before = await countAll(h)
    let created = 0
    await fc.assert(
      fc.asyncProperty(idempotencyKey, contentType, authorization, fc.constantFrom(...bases), async (key, type, auth, body) => {
        const headers: Record<string, string> = {}
        if (key !== undefined) headers["idempotency-key"] = key
        if (type !== undefined) headers["content-type"] = type
        if (auth !== undefined) headers["authorization"] = auth
        let res: Reply
        try {
          res = await call(h, "POST", "/payment_intents", { raw: JSON.stringify(body), headers })
        } catch (e) {
          // The client refused to build the request (a header value fetch does not allow): nothing sent.
          if (e instanceof TypeError && !String(e.message).includes("JSON")) return
          throw e
        }
        check(res, `POST headers ${JSON.stringify(headers).slice(0, 300)}`)
        if (createdNew(res)) created++
      }),
      { numRuns: 1500 }
    )
    assert.strictEqual(await countAll(h), before + created)
  })

  it("D1 path ids of GET /payment_intents/{id} and POST /payment_intents/{id}/confirm: never a 5xx, every 4xx in the D1 shape, another's intent untouched", slow, async () => {
    const h = app()
    const theirs = (await call(h, "POST", "/payment_intents", { key: keys.otherTest, body: promptpay })).json
    const mine = (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: "40001" } })).json
    await fc.assert(
      fc.asyncProperty(pathId([theirs.id, mine.id]), fc.boolean(), fc.option(weirdValue, { nil: undefined }), async (id, confirm, body) => {
        const path = confirm ? `/payment_intents/${id}/confirm` : `/payment_intents/${id}`
        fc.pre(parses(path))
        const send = (p: string) =>
          call(h, confirm ? "POST" : "GET", p, {
            key: keys.demoTest,
            ...(confirm && body !== undefined ? { raw: JSON.stringify(body), headers: json } : {})
          })
        const res = await send(path)
        check(res, `${confirm ? "POST" : "GET"} ${path.slice(0, 200)}`)
        if (id === theirs.id) {
          // Another merchant's intent answers exactly as an id no merchant has (4.2).
          const unknownId = "dord_" + "Z".repeat(24)
          const unknown = await send(path.replace(theirs.id, unknownId))
          assert.strictEqual(res.status, unknown.status, res.text)
          const same = JSON.parse(unknown.text.replaceAll(unknownId, theirs.id))
          assert.deepStrictEqual({ ...res.json.error, request_id: "" }, { ...same.error, request_id: "" })
        }
      }),
      { numRuns: 1500 }
    )
    const after = await call(h, "GET", `/payment_intents/${theirs.id}`, { key: keys.otherTest })
    assert.strictEqual(after.json.status, theirs.status)
    assert.strictEqual(after.json.updated_at, theirs.updated_at)
  })
})

const topupBases = [
  { destination_amount: "100000000", destination_currency: "USDT", source: { type: "test_funding" } },
  { destination_amount: "200000", destination_currency: "THB", source: { type: "manual_receipt" }, merchant_reference: "fz", country: "TH" },
  { destination_amount: "362500", destination_currency: "THB", source: { type: "provider_gateway", provider: "simulator", currency: "ETH" } }
] as const
const topupPaths = [
  "destination_amount", "destination_currency", "source", "source.type", "source.provider", "source.currency", "source.unknown",
  "merchant_reference", "country", "unknown_field"
] as const
const topupMutations = fc.array(
  fc.record({ path: fc.constantFrom(...topupPaths), value: weirdValue, remove: fc.boolean() }),
  { minLength: 1, maxLength: 3 }
)

/** Every top-up the key's merchant and environment hold, page by page. */
const countTopups = async (h: Handler, key: Key = keys.demoTest) => {
  let n = 0
  let cursor: string | null = null
  do {
    const res: Reply = await call(h, "GET", `/topup_intents?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`, { key })
    assert.strictEqual(res.status, 200, res.text)
    n += res.json.data.length
    cursor = res.json.next_cursor
  } while (cursor !== null)
  return n
}

describe("fuzzing the top-up routes through the real fetch handler (D1)", () => {
  it("D1 top-up create bodies with fields mutated: never a 5xx, every 4xx in the D1 shape, a refused create stores nothing", slow, async () => {
    const h = app()
    const before = await countTopups(h)
    let created = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...topupBases), topupMutations, async (base, changes) => {
        const body = changes.reduce<unknown>((b, c) => mutate(b, c.path, c.value, c.remove), base)
        const res = await call(h, "POST", "/topup_intents", {
          key: keys.demoTest,
          raw: JSON.stringify(body),
          headers: { ...json, "idempotency-key": crypto.randomUUID() }
        })
        check(res, `POST /topup_intents ${JSON.stringify(changes).slice(0, 200)}`)
        if (createdNew(res)) created++
        else refused++
      }),
      { numRuns: 1000 }
    )
    assert.isAbove(refused, 0)
    assert.strictEqual(await countTopups(h), before + created)
  })

  it("D1 query strings of GET /topup_intents (source_type included): never a 5xx, every 4xx in the D1 shape", slow, async () => {
    const h = app()
    await call(h, "POST", "/topup_intents", { key: keys.demoTest, body: topupBases[0], headers: { "idempotency-key": crypto.randomUUID() } })
    await fc.assert(
      fc.asyncProperty(
        query([...listParams, "source_type"], [["limit", "2"], ["source_type", "manual_receipt,test_funding"], ["status", "requires_payment"], ["currency", "USDT"]]),
        async (q) => {
          fc.pre(parses(`/topup_intents${q}`))
          check(await call(h, "GET", `/topup_intents${q}`, { key: keys.demoTest }), `GET /topup_intents${q.slice(0, 200)}`)
        }
      ),
      { numRuns: 800 }
    )
  })

  it("D1 path ids of GET /topup_intents/{id} and POST /topup_intents/{id}/receipt: never a 5xx, another's top-up answers as an unknown id and is untouched", slow, async () => {
    const h = app()
    const theirs = (await call(h, "POST", "/topup_intents", { key: keys.otherTest, body: topupBases[1], headers: { "idempotency-key": "fz-theirs" } })).json
    const ids = fc.oneof(pathId([theirs.id]), base62.map((s) => "tuin_" + s))
    await fc.assert(
      fc.asyncProperty(ids, fc.boolean(), fc.option(weirdValue, { nil: undefined }), async (id, receipt, assetId) => {
        const path = receipt ? `/topup_intents/${id}/receipt` : `/topup_intents/${id}`
        fc.pre(parses(path))
        const send = (p: string) =>
          call(h, receipt ? "POST" : "GET", p, { key: keys.demoTest, ...(receipt ? { body: { asset_id: assetId ?? "asst_" + "Z".repeat(24) } } : {}) })
        const res = await send(path)
        check(res, `${receipt ? "POST" : "GET"} ${path.slice(0, 200)}`)
        if (id === theirs.id) {
          const unknownId = "tuin_" + "Z".repeat(24)
          const unknown = await send(path.replace(theirs.id, unknownId))
          assert.strictEqual(res.status, unknown.status, res.text)
          const same = JSON.parse(unknown.text.replaceAll(unknownId, theirs.id))
          assert.deepStrictEqual({ ...res.json.error, request_id: "" }, { ...same.error, request_id: "" })
        }
      }),
      { numRuns: 800 }
    )
    const after = await call(h, "GET", `/topup_intents/${theirs.id}`, { key: keys.otherTest })
    assert.strictEqual(after.json.status, theirs.status)
    assert.strictEqual(after.json.updated_at, theirs.updated_at)
  })
})
