/**
 * The Express example with Stripe installed from the environment (src/stripe.js) and pointed at
 * the Stripe stand-in of @tender/testing: a PromptPay payment and a card payment end to end,
 * through Stripe's signed notifications to {host}/payments/provider_notifications/stripe, past
 * the app's own `express.json()` (docs/providers/stripe.md, docs/embedding.md).
 */
import { formatRefusals } from "@tender/testing/StandIn"
import * as StripeStandIn from "@tender/testing/StripeStandIn"
import { closeReceivers, eventually, freePort, receiver } from "@tender/test-support"
import { prefixedPool } from "@tender/test-support/embedding"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeApp } from "../src/app.js"
import { stripeFromEnv } from "../src/stripe.js"

const key = { public: "pk_test_expressStripe12", secret: "sk_test_expressStripeSecret34" }
const auth = `Basic ${Buffer.from(`${key.public}:${key.secret}`).toString("base64")}`
const WEBHOOK_SECRET = "whsec_express_stripe_e2e"
const { pool, fresh } = prefixedPool(5)
let standIn: StripeStandIn.StripeStandIn
let made: Awaited<ReturnType<typeof makeApp>>
let server: Server
let base = ""
let hooks: Awaited<ReturnType<typeof receiver>>

beforeAll(async () => {
  standIn = await StripeStandIn.start()
  const seed = join(mkdtempSync(join(tmpdir(), "tender-express-stripe-")), "seed.json")
  writeFileSync(seed, JSON.stringify({
    merchants: [{
      id: "mch_express_stripe",
      name: "Express Stripe Shop",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [{ id: "key_express_stripe", public_key: key.public, secret_key: key.secret }],
      routes: [
        { id: "rt_express_stripe_pp", method: "th_promptpay", provider: "stripe", environments: ["test"] },
        { id: "rt_express_stripe_card", method: "card", provider: "stripe", environments: ["test"] }
      ]
    }]
  }))
  const port = await freePort()
  const host = `http://127.0.0.1:${port}`
  base = `${host}/payments`
  // The environment a team deploys with, the API base pointed at the stand-in.
  const env = { STRIPE_SECRET_KEY: "sk_test_expressStripe", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: standIn.url }
  made = await makeApp({
    storage: { postgres: pool, tablePrefix: fresh() },
    publicUrl: base,
    checkoutSecret: "test-secret",
    merchants: seed,
    providers: stripeFromEnv(env, { returnUrl: `${host}/` }),
    logger: { info() {}, warn() {}, error() {} }
  })
  server = createServer(made.app)
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok))
  standIn.addEndpoint({ url: `${base}/provider_notifications/stripe`, secret: WEBHOOK_SECRET })
  hooks = await receiver()
  const endpoint = await api("POST", "/webhook_endpoints", { url: hooks.url("/hooks") })
  expect(endpoint.status).toBe(201)
}, 60_000)
afterEach(() => {
  const refusals = standIn.refusals.splice(0)
  expect(refusals, formatRefusals(refusals)).toEqual([])
})
afterAll(async () => {
  await new Promise<void>((ok) => server ? server.close(() => ok()) : ok())
  await made?.tender.close()
  closeReceivers()
  await standIn?.close()
})

let n = 0
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: auth, "content-type": "application/json", ...(method === "POST" ? { "idempotency-key": `express-stripe-${++n}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: await res.json() as any }
}

const webhook = (type: string, id: string) =>
  eventually(() => hooks.received.map((r) => JSON.parse(r.body)).find((e) => e.type === type && e.data.object.id === id))

const stripeIntentOf = (id: string) =>
  [...standIn.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === id)!

describe("examples/express with Stripe from STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE (the Stripe stand-in)", () => {
  it("D11 takes a PromptPay payment end to end: QR, Stripe's signed notification through the app's express.json(), succeeded, merchant webhook, partial refund, refund.succeeded", async () => {
    const created = await api("POST", "/payment_intents", {
      amount: "150000", currency: "THB", country: "TH", checkout_mode: "merchant", payment_method: "th_promptpay",
      customer: { name: "Somchai Jaidee", email: "somchai@example.com" }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const intent = created.body
    const pi = stripeIntentOf(intent.id)
    expect(intent).toMatchObject({ status: "requires_action", next_action: { type: "display_qr_code", qr_data: (pi["next_action"] as any).promptpay_display_qr_code.data } })

    // Verified over the exact bytes: the app's express.json() never read them.
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
    expect(session).toMatchObject({ amount_total: 250000, currency: "thb" })
    const [delivery] = await standIn.completeCheckout(session["id"] as string)
    expect(delivery!.status).toBe(200)
    await webhook("payment_intent.succeeded", created.body.id)
    expect((await api("GET", `/payment_intents/${created.body.id}`)).body.status).toBe("succeeded")
  }, 60_000)
})

describe("stripeFromEnv", () => {
  it("installs nothing without the STRIPE_* variables, and refuses a secret key without its webhook secret", () => {
    expect(stripeFromEnv({}, { returnUrl: "http://127.0.0.1/" })).toEqual([])
    expect(() => stripeFromEnv({ STRIPE_SECRET_KEY: "sk_test_x" }, { returnUrl: "http://127.0.0.1/" })).toThrow(/go together/)
  })
})
