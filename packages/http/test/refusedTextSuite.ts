/**
 * Text PostgreSQL cannot hold (U+0000) in every part of a request, written once and run on every
 * store: the in-memory one (RefusedText.test.ts) and PostgreSQL
 * (packages/postgres/test/RefusedText.test.ts), where such a string reaching a statement was a
 * 500 (SQLSTATE 22021). Every store answers alike: a key that cannot exist is 401, an id that
 * cannot exist 404, a filter no record can match an empty page, a body string holding it 400.
 * Not a test file itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { ProviderNotification, Simulator, Storage, Task } from "@tender/core"
import { promptpayNamed } from "@tender/repo-test-support"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { keys } from "../../core/test/fixtures.js"
import { bases, fieldPaths, listParams, mutate, topupBases, topupPaths, weirdString } from "./fuzz/generators.js"
import { assertError, call } from "./harness.js"
import { type StoreLayer, storeTenders } from "./storeTenders.js"

const nul = "\u0000"

/** Every UTF-8 byte of `text` percent-escaped (`encodeURIComponent` throws on a lone surrogate). */
const escaped = (text: string) => [...Buffer.from(text, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")

/** Basic credentials of any text (the harness's `basic` takes a key pair of the fixtures). */
const basicOf = (pair: string) => `Basic ${Buffer.from(pair, "utf8").toString("base64")}`

/** Where the notice of simulator event `eventId` stands, and the status of its apply tasks. */
const noticeState = (eventId: string) =>
  Effect.gen(function*() {
    const storage = yield* Storage.Storage
    const id = ProviderNotification.recordId(Simulator.code, eventId)
    const stored = Option.getOrThrow(yield* storage.find(ProviderNotification.table, id)).status
    const tasks = yield* storage.list(Task.table, { merchantId: ProviderNotification.noMerchant, environment: "test", where: { resourceId: id }, limit: 10 })
    return { stored, tasks: tasks.map((t) => t.status) }
  })

export const refusedTextSuite = (name: string, storage: () => StoreLayer) => {
  const tender = storeTenders(storage)

  describe(`text no store can hold (U+0000): ${name}`, () => {
    it("D2 a NUL in the Basic public key or secret -> 401 invalid_api_key, never a 500", async () => {
      const { handler } = await tender()
      for (
        const pair of [
          `pk_test_demo${nul}AAAA1111:${keys.demoTest.secret}`,
          `${nul}:x`,
          `${keys.demoTest.public}${nul}:${keys.demoTest.secret}`,
          `${keys.demoTest.public}:${keys.demoTest.secret}${nul}`
        ]
      ) {
        const res = await call(handler, "GET", "/payment_intents", { headers: { authorization: basicOf(pair) } })
        assertError(res, 401, "invalid_api_key")
      }
    })

    it("D1 a NUL in a path id -> 400 validation_failed at id, on every id route", async () => {
      const { handler, send } = await tender()
      for (
        const path of [
          "/payment_intents/dord_%00",
          "/payment_intents/%00",
          "/refunds/rfnd_%00x",
          "/topup_intents/tpi_%00",
          "/payout_intents/%00",
          "/events/evt_%00",
          "/webhook_endpoints/we_%00"
        ]
      ) {
        assertError(await send("GET", path), 400, "validation_failed", "id")
      }
      // The hosted pages and the simulator's payer pages: a clear 4xx too.
      for (const path of ["/checkout/%00", "/checkout/dord_%00/status", "/simulator/online_banking/%00/%00", "/provider_notifications/%00"]) {
        const res = await handler(new Request(`http://localhost${path}`, { method: path.startsWith("/provider") ? "POST" : "GET" }))
        const text = await res.text()
        assert.isAtLeast(res.status, 400, `${path}: ${text}`)
        assert.isBelow(res.status, 500, `${path}: ${text}`)
      }
    })

    it("D1 a NUL in a list filter -> 400 validation_failed at the filter", async () => {
      const { send } = await tender()
      for (
        const [path, param] of [
          ["/payment_intents?merchant_reference=%00", "merchant_reference"],
          ["/payment_intents?merchant_reference=a%00b", "merchant_reference"],
          ["/topup_intents?merchant_reference=%00", "merchant_reference"],
          ["/events?type=%00", "type"],
          ["/refunds?payment_intent=dord_%00", "payment_intent"]
        ] as const
      ) {
        assertError(await send("GET", path), 400, "validation_failed", param)
      }
    })

    it("D6 a cursor whose id holds a NUL -> 400 validation_failed at cursor", async () => {
      const { send } = await tender()
      const cursor = Buffer.from(JSON.stringify([Date.now(), `dord_${nul}`])).toString("base64url")
      assertError(await send("GET", `/payment_intents?cursor=${cursor}`), 400, "validation_failed", "cursor")
    })

    it("D1 a NUL in any string of a JSON body -> 400 validation_failed, nothing stored", async () => {
      const { send, ok } = await tender()
      const before = (await ok("GET", "/payment_intents?limit=100")).data.length
      const base = promptpayNamed
      for (
        const body of [
          { ...base, merchant_reference: `ref${nul}` },
          { ...base, metadata: { [`k${nul}`]: "v" } },
          { ...base, metadata: { k: `v${nul}` } },
          { ...base, customer: { ...base.customer, name: `A${nul}` } }
        ]
      ) {
        const res = await send("POST", "/payment_intents", body)
        assertError(res, 400, "validation_failed")
      }
      assert.strictEqual((await ok("GET", "/payment_intents?limit=100")).data.length, before)
      // An escaped backslash followed by the letters u0000 is six characters of text, not a NUL.
      const text = await send("POST", "/payment_intents", { ...base, metadata: { k: "\\u0000" } })
      assert.strictEqual(text.status, 201, text.text)
    })

    it(
      "D1 property: a NUL spliced into any string of a request (Basic key pair, path id, query value, JSON body string) -> never a 5xx, every 4xx in the D1 shape",
      async () => {
        const { handler, send } = await tender()
        const withNul = fc.tuple(weirdString, fc.nat()).map(([text, at]) => {
          const i = at % (text.length + 1)
          return `${text.slice(0, i)}${nul}${text.slice(i)}`
        })
        const body = (creates: string, templates: ReadonlyArray<unknown>, paths: ReadonlyArray<string>) =>
          fc.tuple(fc.constantFrom(...templates), fc.constantFrom(...paths), withNul).map(([template, path, value]) => ({
            method: "POST",
            path: creates,
            body: mutate(template, path, value, false)
          }))
        const requests = fc.oneof(
          body("/payment_intents", bases, fieldPaths),
          body("/topup_intents", topupBases, topupPaths),
          body("/webhook_endpoints", [{ url: "https://example.com/hook", enabled_events: ["payment_intent.succeeded"], description: "d" }], [
            "url",
            "description",
            "enabled_events"
          ]),
          fc.tuple(
            fc.constantFrom("/payment_intents", "/topup_intents", "/payout_intents", "/refunds", "/events"),
            fc.constantFrom(...listParams, "type", "payment_intent"),
            withNul
          )
            .map(([path, name, value]) => ({ method: "GET", path: `${path}?${name}=${escaped(value)}` })),
          fc.tuple(fc.constantFrom("/payment_intents/", "/refunds/", "/topup_intents/", "/payout_intents/", "/events/", "/webhook_endpoints/"), withNul)
            .map(([path, id]) => ({ method: "GET", path: path + escaped(id) })),
          fc.tuple(withNul, fc.boolean()).map(([text, inSecret]) => ({
            method: "GET",
            path: "/payment_intents",
            authorization: basicOf(inSecret ? `${keys.demoTest.public}:${text}` : `${text}:${keys.demoTest.secret}`)
          }))
        )
        await fc.assert(
          fc.asyncProperty(requests, async (r: { method: string; path: string; body?: unknown; authorization?: string }) => {
            const res = r.authorization === undefined
              ? await send(r.method, r.path, r.body)
              : await call(handler, r.method, r.path, { headers: { authorization: r.authorization } })
            const label = `${r.method} ${r.path} ${JSON.stringify(r.body ?? "").slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`
            assert.isBelow(res.status, 500, label)
            if (res.status >= 400) assertError(res, res.status, res.json?.error?.code)
          }),
          { numRuns: 200 }
        )
      },
      120_000
    )

    it("D11 a signed simulator event whose id holds a NUL -> 4xx, nothing stored; one naming an intent with a NUL -> 200, then recorded unmatched, its task done", async () => {
      const { handler, work, runtime } = await tender()
      const post = (event: unknown) => {
        const raw = JSON.stringify(event)
        return call(handler, "POST", "/provider_notifications/simulator", {
          raw,
          headers: { [Simulator.signatureHeader]: Simulator.signNotification({ body: raw }), "content-type": "application/json" }
        })
      }
      const badId = await post({ id: `evt${nul}1`, type: "payment.succeeded", data: { payment_intent: "dord_x", provider_payment_id: "sim_x" } })
      assert.isAtLeast(badId.status, 400, badId.text)
      assert.isBelow(badId.status, 500, badId.text)
      const badRef = await post({ id: "evt_nul_ref", type: "payment.succeeded", data: { payment_intent: `dord_${nul}`, provider_payment_id: `sim_${nul}` } })
      assert.strictEqual(badRef.status, 200, badRef.text)
      await work()
      const { stored, tasks } = await runtime.runPromise(noticeState("evt_nul_ref"))
      assert.strictEqual(stored, "unmatched")
      assert.deepStrictEqual(tasks, ["done"])
    })
  })
}
