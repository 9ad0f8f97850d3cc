/**
 * The demo server with the three STRIPE_* variables pointed at the Stripe stand-in of
 * @tender/testing: a PromptPay payment and a card payment end to end, through Stripe's signed
 * notifications to the merchant's webhooks, and a PromptPay payment on the hosted page
 * (docs/providers/stripe.md).
 */
import { formatRefusals } from "@tender/testing/StandIn"
import * as StripeStandIn from "@tender/testing/StripeStandIn"
import { closeReceivers, eventually, merchantApi, receiver, seedFile, startDemo, stopProcess } from "@tender/test-support"
import type { ChildProcess } from "node:child_process"
import * as QRCode from "qrcode"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

const key = { public: "pk_test_stripeE2e1234", secret: "sk_test_stripeE2eSecret5678" }
const WEBHOOK_SECRET = "whsec_demo_stripe_e2e"
const children: Array<ChildProcess> = []
let standIn: StripeStandIn.StripeStandIn
let server: Awaited<ReturnType<typeof startDemo>>
let hooks: Awaited<ReturnType<typeof receiver>>

beforeAll(async () => {
  standIn = await StripeStandIn.start()
  const seed = seedFile({
    merchants: [{
      id: "mch_stripe_e2e",
      name: "Stripe Shop",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [{ id: "key_stripe_e2e", public_key: key.public, secret_key: key.secret }],
      routes: [
        { id: "rt_stripe_pp", method: "th_promptpay", provider: "stripe", environments: ["test"] },
        { id: "rt_stripe_card", method: "card", provider: "stripe", environments: ["test"] }
      ]
    }]
  }, "tender-stripe-")
  server = await startDemo({
    TENDER_SEED: seed,
    STRIPE_SECRET_KEY: "sk_test_demoStripeE2e",
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: standIn.url
  }, { children })
  standIn.addEndpoint({ url: `${server.url}/provider_notifications/stripe`, secret: WEBHOOK_SECRET })
  hooks = await receiver()
  const endpoint = await api("POST", "/webhook_endpoints", { url: hooks.url("/hooks") })
  expect(endpoint.status).toBe(201)
}, 90_000)
afterEach(() => {
  const refusals = standIn.refusals.splice(0)
  expect(refusals, formatRefusals(refusals)).toEqual([])
})
afterAll(async () => {
  await Promise.all(children.map((child) => stopProcess(child)))
  closeReceivers()
  await standIn?.close()
})

const api = merchantApi(() => server.url, key, "stripe-e2e")

const webhook = (type: string, id: string) =>
  eventually(() => hooks.received.map((r) => JSON.parse(r.body)).find((e) => e.type === type && e.data.object.id === id))

const stripeIntentOf = (id: string) =>
  [...standIn.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === id)!

describe("examples/server with STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE (the Stripe stand-in)", () => {
  it("takes a PromptPay payment end to end: QR, Stripe's notification, succeeded, merchant webhook, partial refund, refund.succeeded", async () => {
    const created = await api("POST", "/payment_intents", {
      amount: "150000", currency: "THB", country: "TH", checkout_mode: "merchant", payment_method: "th_promptpay",
      customer: { name: "Somchai Jaidee", email: "somchai@example.com" }
    })
    expect(created.status).toBe(201)
    const intent = created.body
    const pi = stripeIntentOf(intent.id)
    expect(intent).toMatchObject({ status: "requires_action", next_action: { type: "display_qr_code", qr_data: (pi["next_action"] as any).promptpay_display_qr_code.data } })

    const [delivery] = await standIn.pay(pi["id"] as string)
    expect({ status: delivery!.status, body: delivery!.body }).toEqual({ status: 200, body: "{\"received\":true}" })
    await eventually(async () => (await api("GET", `/payment_intents/${intent.id}`)).body.status === "succeeded" || undefined)
    await webhook("payment_intent.succeeded", intent.id)

    const refund = await api("POST", "/refunds", { payment_intent: intent.id, amount: "50000" })
    expect(refund.body).toMatchObject({ status: "pending", amount: "50000" })
    const stripeRefund = await eventually(() => [...standIn.refunds.values()].find((r) => (r["metadata"] as Record<string, string>)["tender_refund"] === refund.body.id))
    expect(stripeRefund).toMatchObject({ amount: 50000, payment_intent: pi["id"] })
    await standIn.settleRefund(stripeRefund["id"] as string)
    await webhook("refund.succeeded", refund.body.id)
    expect((await api("GET", `/payment_intents/${intent.id}`)).body.amount_refunded).toBe("50000")
  }, 60_000)

  it("takes a card payment through Stripe Checkout's redirect", async () => {
    const created = await api("POST", "/payment_intents", {
      amount: "250000", currency: "THB", country: "TH", checkout_mode: "merchant", payment_method: "card",
      customer: { name: "Somchai Jaidee" }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const session = [...standIn.checkoutSessions.values()].find((s) => (s["metadata"] as Record<string, string>)["tender_payment_intent"] === created.body.id)!
    expect(created.body.next_action).toMatchObject({ type: "redirect_to_url", url: session["url"] })
    // Merchant mode takes no return_url: Checkout sends the payer back to the host's public URL.
    expect(session).toMatchObject({ success_url: `${server.url}/`, amount_total: 250000, currency: "thb" })
    await standIn.completeCheckout(session["id"] as string)
    await webhook("payment_intent.succeeded", created.body.id)
  }, 60_000)

  it("hosted mode: the hosted page shows Stripe's PromptPay QR code, and Stripe's notification makes the intent succeeded", async () => {
    const created = await api("POST", "/payment_intents", {
      amount: "120000", currency: "THB", country: "TH", checkout_mode: "hosted", payment_method: "th_promptpay",
      customer: { name: "Somchai Jaidee", email: "somchai@example.com" }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.next_action).toMatchObject({ type: "redirect_to_url" })
    // The page opens on the method given at create; paying posts its form with the page's cookie.
    const page = await fetch(created.body.next_action.url, { redirect: "manual" })
    expect(page.status).toBe(200)
    const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0]!
    const action = /<form method="post" action="([^"]+)"/.exec(await page.text())?.[1]?.replaceAll("&amp;", "&")
    expect(action).toBeDefined()
    const paid = await fetch(new URL(action!, server.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: "method=th_promptpay",
      redirect: "manual"
    })
    expect(paid.status).toBe(303)
    const pi = stripeIntentOf(created.body.id)
    const qrData = (pi["next_action"] as any).promptpay_display_qr_code.data as string
    // The QR image Tender draws is the one of Stripe's payload (the same drawing as the hosted page's).
    const stripeQr = await QRCode.toDataURL(qrData, { errorCorrectionLevel: "M", margin: 2, width: 260 })
    const shown = await (await fetch(created.body.next_action.url, { headers: { cookie } })).text()
    expect(/<img class="qr" id="qr" src="([^"]+)"/.exec(shown)?.[1]).toBe(stripeQr)
    // The merchant keeps seeing the hosted link; Stripe's notification settles it.
    expect((await api("GET", `/payment_intents/${created.body.id}`)).body.next_action).toMatchObject({ type: "redirect_to_url", url: created.body.next_action.url })
    const [delivery] = await standIn.pay(pi["id"] as string)
    expect(delivery!.status).toBe(200)
    await webhook("payment_intent.succeeded", created.body.id)
  }, 60_000)
})
