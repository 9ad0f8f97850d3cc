/**
 * Request text that names a member of `Object.prototype` (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`, `valueOf`) in a value position (a query
 * filter, a code, a currency, a path segment, a form field, a language) is plain text: a
 * clean D1 4xx naming the right param, or the documented answer, never a 500.
 */
import { assert, describe, it } from "@effect/vitest"
import { payout as payoutFor, promptpay, topup } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import { app, assertError, call } from "./harness.js"

const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"] as const

const payout = payoutFor("payout-ref")

describe("Request values named after Object members (D1)", () => {
  const h = app()

  it("D1 a list filter value named after an Object member -> 400 validation_failed naming the filter", async () => {
    for (const name of names) {
      const q = encodeURIComponent(name)
      for (const path of ["/payment_intents", "/topup_intents", "/payout_intents"]) {
        assertError(await call(h, "GET", `${path}?status=${q}`, { key: keys.demoTest }), 400, "validation_failed", "status")
        assertError(await call(h, "GET", `${path}?currency=${q}`, { key: keys.demoTest }), 400, "validation_failed", "currency")
        assertError(await call(h, "GET", `${path}?starting_after=${q}`, { key: keys.demoTest }), 400, "validation_failed", "starting_after")
      }
      assertError(await call(h, "GET", `/refunds?status=${q}`, { key: keys.demoTest }), 400, "validation_failed", "status")
      assertError(await call(h, "GET", `/refunds?payment_intent=${q}`, { key: keys.demoTest }), 400, "validation_failed", "payment_intent")
      assertError(await call(h, "GET", `/topup_intents?source_type=${q}`, { key: keys.demoTest }), 400, "validation_failed", "source_type")
      assertError(await call(h, "GET", `/payment_intents?country=${q}`, { key: keys.demoTest }), 400, "validation_failed", "country")
    }
  })

  it("D1 a query parameter named after an Object member -> 400 validation_failed naming it, on every endpoint with a query", async () => {
    const discovery = "/payment_methods/options?amount=100&country=TH&currency=THB&"
    for (const name of names) {
      for (const path of ["/payment_intents?", "/topup_intents?", "/payout_intents?", "/webhook_endpoints?", "/refunds?", discovery]) {
        const res = await call(h, "GET", `${path}${encodeURIComponent(name)}=x`, { key: keys.demoTest })
        const error = assertError(res, 400, "validation_failed", name)
        assert.strictEqual(error.message, `${name} is not a known parameter`)
      }
    }
    // Authentication still comes first (5).
    assertError(await call(h, "GET", "/payment_intents?__proto__=x"), 401, "authentication_required")
  })

  it("D1 a payment_method, currency, country or bank named after an Object member on create -> 400 naming the field", async () => {
    for (const name of names) {
      const created = (body: object, idem: string) =>
        call(h, "POST", "/payment_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `${idem}-${name}` } })
      assertError(await created({ ...promptpay, payment_method: name }, "pm"), 400, "validation_failed", "payment_method")
      assertError(await created({ ...promptpay, currency: name }, "cur"), 400, "validation_failed", "currency")
      assertError(await created({ ...promptpay, country: name }, "cty"), 400, "validation_failed", "country")
      assertError(
        await created({ ...promptpay, payment_method: "th_online_banking", payment_method_options: { bank: name } }, "bank"),
        400,
        "validation_failed",
        "payment_method_options.bank"
      )
    }
  })

  it("D1 a top-up currency or source type named after an Object member -> 400 naming the field", async () => {
    for (const name of names) {
      const created = (body: object, idem: string) =>
        call(h, "POST", "/topup_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `${idem}-${name}` } })
      assertError(await created({ ...topup, destination_currency: name }, "dc"), 400, "validation_failed", "destination_currency")
      assertError(await created({ ...topup, source: { type: name } }, "st"), 400, "validation_failed", "source.type")
    }
  })

  it("D1 a payout bank or currency named after an Object member -> 400 naming the field", async () => {
    for (const name of names) {
      const created = (body: object, idem: string) =>
        call(h, "POST", "/payout_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `${idem}-${name}` } })
      assertError(await created({ ...payout, merchant_reference: `pr-${name}`, currency: name }, "pc"), 400, "validation_failed", "currency")
      const bank = await created({ ...payout, merchant_reference: `pb-${name}`, destination: { ...payout.destination, bank: name } }, "pb")
      assert.isBelow(bank.status, 500, bank.text)
      assertError(bank, bank.status, bank.json.error.code, "destination.bank")
    }
  })

  it("D1 a discovery query with an Object member as country, currency or provider -> 400 naming it", async () => {
    for (const name of names) {
      const q = encodeURIComponent(name)
      const base = "/payment_methods/options?amount=100&country=TH&currency=THB"
      assertError(
        await call(h, "GET", `/payment_methods/options?amount=100&country=${q}&currency=THB`, { key: keys.demoTest }),
        400,
        "validation_failed",
        "country"
      )
      assertError(
        await call(h, "GET", `/payment_methods/options?amount=100&country=TH&currency=${q}`, { key: keys.demoTest }),
        400,
        "validation_failed",
        "currency"
      )
      // A provider code of the right form that no route has offers nothing, like any unknown provider.
      const unknown = await call(h, "GET", `${base}&provider=nosuch`, { key: keys.demoTest })
      const provider = await call(h, "GET", `${base}&provider=${q}`, { key: keys.demoTest })
      if (provider.status === 200) assert.deepStrictEqual(provider.json, unknown.json)
      else assertError(provider, 400, "validation_failed", "provider")
    }
  })

  it("D1 an id path segment named after an Object member -> 400 validation_failed param id (not an id of that kind)", async () => {
    for (const name of names) {
      const id = encodeURIComponent(name)
      for (const path of ["/payment_intents", "/topup_intents", "/payout_intents", "/webhook_endpoints", "/refunds"]) {
        assertError(await call(h, "GET", `${path}/${id}`, { key: keys.demoTest }), 400, "validation_failed", "id")
      }
      assertError(await call(h, "POST", `/payment_intents/${id}/confirm`, { key: keys.demoTest, body: {} }), 400, "validation_failed", "id")
      assertError(await call(h, "POST", `/payment_intents/${id}/cancel`, { key: keys.demoTest, body: {} }), 400, "validation_failed", "id")
      assertError(await call(h, "DELETE", `/webhook_endpoints/${id}`, { key: keys.demoTest }), 400, "validation_failed", "id")
    }
  })

  it("D7 a webhook endpoint subscribing to an event type named after an Object member -> 400 naming enabled_events", async () => {
    for (const name of names) {
      const res = await call(h, "POST", "/webhook_endpoints", {
        key: keys.demoTest,
        body: { url: "https://hooks.example.com/tender", enabled_events: [name] },
        headers: { "idempotency-key": `we-${name}` }
      })
      assert.isBelow(res.status, 500, res.text)
      assertError(res, 400, "validation_failed")
      assert.match(res.json.error.param, /^enabled_events/)
    }
  })
})

describe("Hosted checkout values named after Object members", () => {
  const local = (url: string) => {
    const u = new URL(url)
    return u.pathname + u.search
  }
  const get = (handler: ReturnType<typeof app>, path: string) => handler(new Request(`http://localhost${path}`, { redirect: "manual" }))
  const post = (handler: ReturnType<typeof app>, path: string, body: string, cookie: string) =>
    handler(
      new Request(`http://localhost${path}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        redirect: "manual"
      })
    )
  const hostedIntent = async (handler: ReturnType<typeof app>) => {
    const res = await call(handler, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: { amount: "150000", currency: "THB", country: "TH", customer: {} }
    })
    assert.strictEqual(res.status, 201, res.text)
    return res.json
  }

  it("4.1 a lang or method named after an Object member: the page in English with the method list, never a 500", async () => {
    const handler = app()
    const intent = await hostedIntent(handler)
    for (const name of names) {
      const res = await get(handler, local(intent.next_action.url) + `&lang=${encodeURIComponent(name)}&method=${encodeURIComponent(name)}`)
      assert.strictEqual(res.status, 200)
      const html = await res.text()
      assert.match(html, /<html lang="en"/)
      assert.include(html, "name=\"method\" id=\"method-th_promptpay\"")
    }
  })

  it("4.1.1 a method or form field named after an Object member on pay -> 400 page with the API's message; nothing frozen", async () => {
    const handler = app()
    const intent = await hostedIntent(handler)
    const page = await get(handler, local(intent.next_action.url) + "&method=th_promptpay")
    const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0]!
    const action = /<form method="post" action="([^"]+)"/.exec(await page.text())![1]!.replaceAll("&amp;", "&")
    for (const name of names) {
      const q = encodeURIComponent(name)
      const res = await post(handler, local(action), `method=${q}&${q}=x&customer_name=${q}`, cookie)
      assert.strictEqual(res.status, 400)
      assert.include(await res.text(), `Unknown payment method &quot;${name}&quot;; choose one of the methods shown.`)
    }
    const unchanged = await call(handler, "GET", `/payment_intents/${intent.id}`, { key: keys.demoTest })
    assert.isNull(unchanged.json.payment_method)
  })
})
