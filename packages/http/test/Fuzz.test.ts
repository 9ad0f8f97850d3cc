/**
 * Property-based fuzzing through the real fetch handler (D1): generated bodies, query
 * strings, headers and path ids. Whatever arrives, the answer is never a 5xx, every 4xx is
 * the D1 body with its Request-Id, and a refused create stores nothing. About 13,100
 * generated requests per run (the sum of `numRuns` below).
 */
import { assert, describe, it } from "@effect/vitest"
import { jsonHeaders } from "@tender/repo-test-support"
import fc from "fast-check"
import { keys } from "../../core/test/fixtures.js"
import {
  authorization,
  base62,
  bases,
  contentType,
  define,
  discoveryParams,
  fieldPaths,
  idempotencyKey,
  listParams,
  mutate,
  mutationsOf,
  pathId,
  promptpay,
  query,
  topupBases,
  topupPaths,
  weirdValue
} from "./fuzz/generators.js"
import type { Key, Reply } from "./harness.js"
import { app, assertError, call } from "./harness.js"

type Handler = (r: Request) => Promise<Response>

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

/** Every resource at `path` (a list route) the key's merchant and environment hold, page by page. */
const countListed = async (h: Handler, path: string, key: Key = keys.demoTest) => {
  let n = 0
  let cursor: string | null = null
  do {
    const res: Reply = await call(h, "GET", `${path}?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`, { key })
    assert.strictEqual(res.status, 200, res.text)
    n += res.json.data.length
    cursor = res.json.next_cursor
  } while (cursor !== null)
  return n
}

/**
 * D1 a refused create stores nothing: each run `post`s what it makes to the create route `path`
 * (undefined when the client sent nothing); every answer is never a 5xx and every 4xx is in the
 * D1 shape, and the resources listed grow by the creates answered 201 alone. Answers how many
 * were refused.
 */
const countedCreates = async <T>(
  h: Handler,
  path: string,
  arbitrary: fc.Arbitrary<T>,
  post: (value: T) => Promise<readonly [res: Reply, label: string] | undefined>,
  numRuns: number
) => {
  const before = await countListed(h, path)
  let created = 0
  let refused = 0
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      const sent = await post(value)
      if (sent === undefined) return
      const [res, label] = sent
      check(res, label)
      if (createdNew(res)) created++
      else refused++
    }),
    { numRuns }
  )
  assert.strictEqual(await countListed(h, path), before + created)
  return refused
}

/**
 * Create bodies: one of `bases` with `mutations` applied, posted to the create route `path` with
 * `headers()`: the rules of countedCreates, and at least one refused.
 */
const mutatedCreates = async <B>(
  h: Handler,
  path: string,
  bases: ReadonlyArray<B>,
  mutations: ReturnType<typeof mutationsOf>,
  headers: () => Record<string, string>,
  numRuns: number
) => {
  const refused = await countedCreates(h, path, fc.tuple(fc.constantFrom(...bases), mutations), async ([base, changes]) => {
    const body = changes.reduce<unknown>((b, c) => mutate(b, c.path, c.value, c.remove), base)
    const res = await call(h, "POST", path, { key: keys.demoTest, raw: JSON.stringify(body), headers: headers() })
    return [res, `POST ${path} ${JSON.stringify(changes).slice(0, 200)}`]
  }, numRuns)
  assert.isAbove(refused, 0)
}

/**
 * 4.2: another merchant's resource `theirs` answers exactly as an id no merchant has (an id of
 * `prefix` and Z's): `res` was the answer to `path`, `send` asks again.
 */
const answersAsUnknown = async (res: Reply, path: string, theirs: string, prefix: string, send: (path: string) => Promise<Reply>) => {
  const unknownId = prefix + "Z".repeat(24)
  const unknown = await send(path.replace(theirs, unknownId))
  assert.strictEqual(res.status, unknown.status, res.text)
  const same = JSON.parse(unknown.text.replaceAll(unknownId, theirs))
  assert.deepStrictEqual({ ...res.json.error, request_id: "" }, { ...same.error, request_id: "" })
}

/** The other merchant's resource at `path` is as it was created (`theirs`): same status, never updated. */
const untouched = async (h: Handler, path: string, theirs: { readonly status: string; readonly updated_at: string }) => {
  const after = await call(h, "GET", path, { key: keys.otherTest })
  assert.strictEqual(after.json.status, theirs.status)
  assert.strictEqual(after.json.updated_at, theirs.updated_at)
}

const mutations = mutationsOf(fieldPaths)

const reserved = fc.constantFrom("__proto__", "constructor", "prototype")

/** A value under a reserved key: plain, or nesting more reserved keys (`{prototype: {polluted: true}}`). */
const reservedValue: fc.Arbitrary<unknown> = fc.oneof(
  weirdValue,
  fc.constant({ polluted: true }),
  fc.constant({ name: "x" }),
  fc.tuple(reserved, fc.constantFrom<unknown>({ polluted: true }, "x", 1, null)).map(([k, v]) => define({}, k, v))
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
    await countedCreates(h, "/payment_intents", fc.jsonValue({ maxDepth: 5 }), async (value) => {
      const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw: JSON.stringify(value) ?? "", headers: json })
      return [res, `POST ${JSON.stringify(value).slice(0, 100)}`]
    }, 1500)
  })

  it(
    "D1 create bodies with fields mutated (wrong types, huge and non-well-formed strings, unknown fields, removals): never a 5xx, a refused create stores nothing",
    slow,
    () => mutatedCreates(app(), "/payment_intents", bases, mutations, () => json, 2500)
  )

  it(
    "D1 __proto__, constructor and prototype keys at every level of customer, payment_method_options and metadata: never a 5xx, no prototype polluted",
    slow,
    async () => {
      const h = app()
      const containers = fc.constantFrom("", "customer", "payment_method_options", "metadata", "customer.name", "metadata.k")
      const insertions = fc.array(fc.tuple(containers, reserved, reservedValue), { minLength: 1, maxLength: 3 })
      await countedCreates(h, "/payment_intents", fc.tuple(fc.constantFrom(...bases), insertions), async ([base, inserts]) => {
        const body = inserts.reduce<unknown>((b, [container, key, value]) => mutate(b, container === "" ? key : `${container}.${key}`, value, false), base)
        const raw = JSON.stringify(body)
        const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw, headers: json })
        assert.isUndefined(({} as Record<string, unknown>)["polluted"])
        assert.isFalse(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"))
        return [res, `POST ${raw.slice(0, 200)}`]
      }, 1000)
    }
  )

  it("D1 query strings of GET /payment_intents: never a 5xx, every 4xx in the D1 shape", slow, async () => {
    const h = app()
    for (let i = 0; i < 3; i++) await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    await fc.assert(
      fc.asyncProperty(
        query(listParams, [["limit", "2"], ["status", "requires_action,failed"], ["country", "TH"], ["created_after", "2020-01-01T00%3A00%3A00Z"]]),
        async (q) => {
          fc.pre(parses(`/payment_intents${q}`))
          check(await call(h, "GET", `/payment_intents${q}`, { key: keys.demoTest }), `GET /payment_intents${q.slice(0, 200)}`)
        }
      ),
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

  it(
    "D1 D2 D5 headers on create (Idempotency-Key, Content-Type, Authorization of any bytes): never a 5xx, every 4xx in the D1 shape, a refused create stores nothing",
    slow,
    async () => {
      const h = app()
      const requests = fc.tuple(idempotencyKey, contentType, authorization, fc.constantFrom(...bases))
      await countedCreates(h, "/payment_intents", requests, async ([key, type, auth, body]) => {
        const headers: Record<string, string> = {}
        if (key !== undefined) headers["idempotency-key"] = key
        if (type !== undefined) headers["content-type"] = type
        if (auth !== undefined) headers["authorization"] = auth
        try {
          const res = await call(h, "POST", "/payment_intents", { raw: JSON.stringify(body), headers })
          return [res, `POST headers ${JSON.stringify(headers).slice(0, 300)}`]
        } catch (e) {
          // The client refused to build the request (a header value fetch does not allow): nothing sent.
          if (e instanceof TypeError && !String(e.message).includes("JSON")) return undefined
          throw e
        }
      }, 1500)
    }
  )

  it(
    "D1 path ids of GET /payment_intents/{id} and POST /payment_intents/{id}/confirm: never a 5xx, every 4xx in the D1 shape, another's intent untouched",
    slow,
    async () => {
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
          if (id === theirs.id) await answersAsUnknown(res, path, theirs.id, "dord_", send)
        }),
        { numRuns: 1500 }
      )
      await untouched(h, `/payment_intents/${theirs.id}`, theirs)
    }
  )
})

describe("fuzzing the top-up routes through the real fetch handler (D1)", () => {
  it(
    "D1 top-up create bodies with fields mutated: never a 5xx, every 4xx in the D1 shape, a refused create stores nothing",
    slow,
    () => mutatedCreates(app(), "/topup_intents", topupBases, mutationsOf(topupPaths), () => ({ ...json, "idempotency-key": crypto.randomUUID() }), 1000)
  )

  it("D1 query strings of GET /topup_intents (source_type included): never a 5xx, every 4xx in the D1 shape", slow, async () => {
    const h = app()
    await call(h, "POST", "/topup_intents", { key: keys.demoTest, body: topupBases[0], headers: { "idempotency-key": crypto.randomUUID() } })
    await fc.assert(
      fc.asyncProperty(
        query([...listParams, "source_type"], [["limit", "2"], ["source_type", "manual_receipt,test_funding"], ["status", "requires_payment"], [
          "currency",
          "USDT"
        ]]),
        async (q) => {
          fc.pre(parses(`/topup_intents${q}`))
          check(await call(h, "GET", `/topup_intents${q}`, { key: keys.demoTest }), `GET /topup_intents${q.slice(0, 200)}`)
        }
      ),
      { numRuns: 800 }
    )
  })

  it(
    "D1 path ids of GET /topup_intents/{id} and POST /topup_intents/{id}/receipt: never a 5xx, another's top-up answers as an unknown id and is untouched",
    slow,
    async () => {
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
          if (id === theirs.id) await answersAsUnknown(res, path, theirs.id, "tuin_", send)
        }),
        { numRuns: 800 }
      )
      await untouched(h, `/topup_intents/${theirs.id}`, theirs)
    }
  )
})
