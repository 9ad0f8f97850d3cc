import { assert, describe, it } from "@effect/vitest"
import { Simulator, Tender } from "@tender/core"
import { checkoutOptions, keys } from "../../core/test/fixtures.js"
import { pixKey, pixSeed, pixy } from "../../core/test/pixy.js"
import { contentSecurityPolicy, formatAmount } from "../src/hostedCheckout/Html.js"
import { negotiate } from "../src/hostedCheckout/Messages.js"
import { app, assertError, call } from "./harness.js"

/** The path and query of a hosted link (the harness serves http://localhost). */
const local = (url: string) => {
  const u = new URL(url)
  return u.pathname + u.search
}

const createHosted = async (handler: ReturnType<typeof app>, body: Record<string, unknown> = {}, key: { public: string; secret: string } = keys.demoTest) => {
  const res = await call(handler, "POST", "/payment_intents", {
    key,
    body: { amount: "150000", currency: "THB", country: "TH", customer: {}, ...body }
  })
  assert.strictEqual(res.status, 201, res.text)
  return res.json
}

const get = (handler: ReturnType<typeof app>, path: string, headers: Record<string, string> = {}) =>
  handler(new Request(`http://localhost${path}`, { headers, redirect: "manual" }))

const post = (handler: ReturnType<typeof app>, path: string, body: string, headers: Record<string, string> = {}) =>
  handler(
    new Request(`http://localhost${path}`, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      redirect: "manual"
    })
  )

/** The page, its nonce cookie and the URL its method form posts to. */
const openPage = async (handler: ReturnType<typeof app>, url: string, query = "") => {
  const res = await get(handler, local(url) + query)
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!
  const html = await res.text()
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&")
  return { res, cookie, html, action }
}

describe("hosted checkout over HTTP (2.3, 4.1)", () => {
  it("the page answers a strict Content-Security-Policy with a fresh nonce, no referrer, no caching, no framing", async () => {
    const handler = app()
    const intent = await createHosted(handler)
    const { html, res } = await openPage(handler, intent.next_action.url)
    assert.strictEqual(res.status, 200)
    assert.strictEqual(res.headers.get("content-type"), "text/html; charset=utf-8")
    const csp = res.headers.get("content-security-policy")!
    assert.match(csp, /^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'; style-src 'nonce-/)
    assert.notInclude(csp, "unsafe")
    assert.include(csp, "frame-ancestors 'none'")
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!
    assert.include(html, `<style nonce="${nonce}">`)
    // Every inline script and style carries it; nothing is loaded from elsewhere.
    assert.notMatch(html, /<script(?![^>]*nonce=)/)
    assert.notMatch(html, /(src|href)="https?:\/\/(?!pay\.example\.test)/)
    assert.strictEqual(res.headers.get("referrer-policy"), "no-referrer")
    assert.strictEqual(res.headers.get("cache-control"), "no-store")
    assert.strictEqual(res.headers.get("x-frame-options"), "DENY")
    assert.match(res.headers.get("set-cookie")!, /HttpOnly; SameSite=Strict/)
    const again = await get(handler, local(intent.next_action.url))
    assert.notStrictEqual(again.headers.get("content-security-policy"), csp)
  })

  it("CSRF: a form posted without the page's token, or from a browser without its nonce cookie, is refused and changes nothing", async () => {
    const handler = app()
    const intent = await createHosted(handler)
    const { action, cookie } = await openPage(handler, intent.next_action.url, "&method=th_promptpay")
    assert.isDefined(action)
    const path = local(action!)
    const withoutToken = path.replace(/&token=[^&]+/, "")
    let res = await post(handler, withoutToken, "method=th_promptpay", { cookie })
    assert.strictEqual(res.status, 403)
    res = await post(handler, path, "method=th_promptpay")
    assert.strictEqual(res.status, 403)
    res = await post(handler, path, "method=th_promptpay", { cookie: "tender_checkout=" + "x".repeat(32) })
    assert.strictEqual(res.status, 403)
    const unchanged = await call(handler, "GET", `/payment_intents/${intent.id}`, { key: keys.demoTest })
    assert.isNull(unchanged.json.payment_method)
    // With both, the payment goes through: 303 back to the page (post/redirect/get).
    res = await post(handler, path, "method=th_promptpay", { cookie })
    assert.strictEqual(res.status, 303)
    assert.match(res.headers.get("location")!, new RegExp(`^https://pay\\.example\\.test/checkout/${intent.id}\\?expires=`))
    const frozen = await call(handler, "GET", `/payment_intents/${intent.id}`, { key: keys.demoTest })
    assert.strictEqual(frozen.json.payment_method, "th_promptpay")
  })

  it("the status endpoint answers status and where to go; a bad link gets a D1 404 with nothing of the intent", async () => {
    const handler = app()
    const intent = await createHosted(handler, { return_url: "https://shop.example/r?a=1" })
    const statusUrl = local(intent.next_action.url).replace(`/checkout/${intent.id}?`, `/checkout/${intent.id}/status?`)
    const res = await call(handler, "GET", statusUrl)
    assert.strictEqual(res.status, 200)
    assert.deepStrictEqual(res.json, { status: "requires_action", version: 1, redirect_url: null })
    const bad = await call(handler, "GET", statusUrl.replace("signature=", "signature=x"))
    const error = assertError(bad, 404, "resource_not_found")
    assert.notInclude(bad.text, intent.id)
    assert.notInclude(error.message, "requires_action")
  })

  it("D10 a canceled intent's page shows it as terminal, like a failed or expired one: no method to choose, nothing to pay; its status says where to go", async () => {
    const handler = app()
    const intent = await createHosted(handler)
    const canceled = await call(handler, "POST", `/payment_intents/${intent.id}/cancel`, { key: keys.demoTest })
    assert.strictEqual(canceled.status, 200, canceled.text)
    const { html, res } = await openPage(handler, intent.next_action.url)
    assert.strictEqual(res.status, 200)
    assert.include(html, "<h1 id=\"outcome\">Payment canceled</h1>")
    assert.notInclude(html, "name=\"method\"")
    const thai = await (await get(handler, local(intent.next_action.url) + "&lang=th")).text()
    assert.include(thai, "การชำระเงินถูกยกเลิก")
    const withReturn = await createHosted(handler, { return_url: "https://shop.example/r?a=1" })
    await call(handler, "POST", `/payment_intents/${withReturn.id}/cancel`, { key: keys.demoTest })
    const statusUrl = local(withReturn.next_action.url).replace(`/checkout/${withReturn.id}?`, `/checkout/${withReturn.id}/status?`)
    const status = await call(handler, "GET", statusUrl)
    assert.strictEqual(status.json.status, "canceled")
    assert.strictEqual(status.json.redirect_url, "https://shop.example/r?a=1")
  })

  it("4.1.1 a method the page does not offer is refused with the API's message, back on the method list; nothing is frozen", async () => {
    const handler = app()
    const intent = await createHosted(handler)
    const { action, cookie } = await openPage(handler, intent.next_action.url, "&method=th_promptpay")
    const res = await post(handler, local(action!), "method=th_cards", { cookie })
    assert.strictEqual(res.status, 400)
    const html = await res.text()
    assert.include(html, "Unknown payment method &quot;th_cards&quot;; choose one of the methods shown.")
    assert.include(html, "name=\"method\" id=\"method-th_promptpay\"")
    const unchanged = await call(handler, "GET", `/payment_intents/${intent.id}`, { key: keys.demoTest })
    assert.deepStrictEqual([unchanged.json.payment_method, unchanged.json.updated_at], [null, intent.updated_at])
  })

  it("2.2 the page collects the fields of the chosen method's payer family, whichever an adapter declares: a Pix tax id shown, refused in its format, then paid with", async () => {
    const pixShop = pixy()
    const handler = app(Tender.layerMemory({ seed: pixSeed, hostedCheckout: checkoutOptions, providers: [Simulator.make(), pixShop.provider] }))
    const intent = await createHosted(handler, { amount: "5000", currency: "BRL", country: "BR" }, pixKey)
    const { action, cookie, html } = await openPage(handler, intent.next_action.url, "&method=br_pix")
    assert.include(html, "<input id=\"field-tax_id\" name=\"tax_id\"")
    assert.include(html, "<input id=\"field-customer_name\" name=\"customer_name\"")
    // A Thai field the method does not ask for is not on the page.
    assert.notInclude(html, "name=\"account_number\"")
    const refused = await post(handler, local(action!), "method=br_pix&customer_name=Jo%C3%A3o+Silva&tax_id=12ab", { cookie })
    assert.strictEqual(refused.status, 400)
    const again = await refused.text()
    assert.include(again, "payment_method_options.tax_id must be a CPF of 11 digits")
    assert.include(again, "id=\"field-tax_id-error\"")
    assert.lengthOf(pixShop.calls, 0, "a refused form reached the provider")
    const paid = await post(handler, local(action!), "method=br_pix&customer_name=Jo%C3%A3o+Silva&tax_id=12345678901", { cookie })
    assert.strictEqual(paid.status, 303, await paid.text())
    assert.deepStrictEqual(pixShop.calls[0]?.payer, { family: "br_pix_payer", fields: { customer_name: "João Silva", tax_id: "12345678901" } })
    const read = await call(handler, "GET", `/payment_intents/${intent.id}`, { key: pixKey })
    assert.deepStrictEqual([read.json.payment_method, read.json.status], ["br_pix", "processing"])
  })

  it("4.1.4 a return_url a header cannot carry as written (a Thai path) is followed by the browser, never answered with a 500", async () => {
    const handler = app()
    const returnUrl = "https://shop.example/คำสั่งซื้อ/42?note=ขอบคุณ"
    const intent = await createHosted(handler, { amount: "40001", return_url: returnUrl })
    const { action, cookie } = await openPage(handler, intent.next_action.url, "&method=th_promptpay")
    const paid = await post(handler, local(action!), "method=th_promptpay", { cookie })
    assert.strictEqual(paid.status, 303)
    const res = await get(handler, local(paid.headers.get("location")!))
    assert.strictEqual(res.status, 200)
    const html = await res.text()
    assert.include(html, `<a id="return-url" class="button" href="${returnUrl}">`)
    assert.include(res.headers.get("content-security-policy")!, "script-src 'nonce-")
  })

  it("D9 the simulated payer is not reachable for a live intent", async () => {
    const handler = app()
    const intent = await createHosted(handler, {}, keys.demoLive)
    const { cookie, html } = await openPage(handler, intent.next_action.url)
    assert.notInclude(html, "Simulate")
    const path = local(intent.next_action.url).replace(`/checkout/${intent.id}?`, `/checkout/${intent.id}/simulate?`)
    const res = await post(handler, path, "action=scan_done", { cookie })
    assert.strictEqual(res.status, 404)
  })

  it("D1 the hosted routes join the route table: an unknown method is 405 with Allow, an unknown sub-path 404, and none is in /openapi.json", async () => {
    const handler = app()
    const intent = await createHosted(handler)
    const put = await call(handler, "PUT", `/checkout/${intent.id}`)
    assertError(put, 405, "method_not_allowed")
    assert.strictEqual(put.headers.get("allow"), "GET")
    assertError(await call(handler, "GET", `/checkout/${intent.id}/nope`), 404, "resource_not_found")
    const doc = await call(handler, "GET", "/openapi.json")
    assert.notInclude(Object.keys(doc.json.paths).join(" "), "checkout")
    assert.notInclude(Object.keys(doc.json.paths).join(" "), "simulator")
  })

  it("a malformed id or expiry is refused like a forged link: no stack, no intent data", async () => {
    const handler = app()
    const intent = await createHosted(handler)
    for (
      const path of [
        `/checkout/not_an_id?expires=1&signature=x`,
        local(intent.next_action.url).replace(/expires=\d+/, "expires=1e13"),
        local(intent.next_action.url).replace(/expires=\d+/, "expires=")
      ]
    ) {
      const res = await get(handler, path)
      assert.include([403, 404], res.status, path)
      const text = await res.text()
      assert.notInclude(text, "1,500.00")
      assert.notInclude(text, "    at ")
    }
  })
})

describe("hosted page formats", () => {
  it("amounts in their currency's decimals: THB with 2, JPY with none; an unknown token in minor units", () => {
    assert.strictEqual(formatAmount("150000", "THB", "en"), "THB 1,500.00")
    assert.strictEqual(formatAmount("5", "THB", "th"), "THB 0.05")
    assert.strictEqual(formatAmount("999999999999999999", "THB", "en"), "THB 9,999,999,999,999,999.99")
    assert.strictEqual(formatAmount("1500", "JPY", "en"), "JPY 1,500")
    assert.strictEqual(formatAmount("12", "USDT", "en"), "12 USDT")
  })

  it("language: ?lang= first, then Accept-Language by q-value, then English", () => {
    assert.strictEqual(negotiate(undefined, "th-TH,th;q=0.9,en;q=0.8"), "th")
    assert.strictEqual(negotiate(undefined, "fr, en;q=0.5, th;q=0.7"), "th")
    assert.strictEqual(negotiate(undefined, "fr"), "en")
    assert.strictEqual(negotiate(undefined, undefined), "en")
    assert.strictEqual(negotiate("en", "th"), "en")
    assert.strictEqual(negotiate("xx", "th"), "th")
  })

  it("the policy lets forms reach only us and the merchant's return origin", () => {
    assert.include(contentSecurityPolicy("n", ["https://shop.example"]), "form-action 'self' https://shop.example")
  })
})
