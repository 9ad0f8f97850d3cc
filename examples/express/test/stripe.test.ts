/**
 * The Express example with Stripe installed from the environment (src/stripe.js) and pointed at
 * the Stripe stand-in of @tender/testing: a PromptPay payment and a card payment end to end,
 * through Stripe's signed notifications to {host}/payments/provider_notifications/stripe, past
 * the app's own `express.json()` (docs/providers/stripe.md, docs/embedding.md).
 */
import { closeReceivers, freePort, merchantApi, merchantWebhooks, oneMerchantSeed, seedFile } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { cardThroughCheckout, promptPayPaidThenRefunded } from "@tender/repo-test-support/stripe-walks"
import * as StripeStandIn from "@tender/stripe/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import { createServer, type Server } from "node:http"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeApp } from "../src/app.js"
import { stripeFromEnv } from "../src/stripe.js"

const key = { public: "pk_test_expressStripe12", secret: "sk_test_expressStripeSecret34" }
const WEBHOOK_SECRET = "whsec_express_stripe_e2e"
const { pool, fresh } = prefixedPool(5)
let standIn: StripeStandIn.StripeStandIn
let made: Awaited<ReturnType<typeof makeApp>>
let server: Server
let host = ""
let base = ""
let hooks: Awaited<ReturnType<typeof merchantWebhooks>>

beforeAll(async () => {
  standIn = await StripeStandIn.start()
  const seed = seedFile(
    oneMerchantSeed("express_stripe", "Express Stripe Shop", key, [
      { id: "rt_express_stripe_pp", method: "th_promptpay", provider: "stripe", environments: ["test"] },
      { id: "rt_express_stripe_card", method: "card", provider: "stripe", environments: ["test"] }
    ]),
    "tender-express-stripe-"
  )
  const port = await freePort()
  host = `http://127.0.0.1:${port}`
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
  hooks = await merchantWebhooks(api)
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

const api = merchantApi(() => base, key, "express-stripe")

describe("examples/express with Stripe from STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE (the Stripe stand-in)", () => {
  it(
    "D11 takes a PromptPay payment end to end: QR, Stripe's signed notification through the app's express.json(), succeeded, merchant webhook, partial refund, refund.succeeded",
    async () => {
      // Verified over the exact bytes: the app's express.json() never read them.
      await promptPayPaidThenRefunded(api, hooks.webhook, standIn)
    },
    60_000
  )

  it("takes a card payment through Stripe Checkout's redirect", async () => {
    await cardThroughCheckout(api, hooks.webhook, standIn, `${host}/`)
  }, 60_000)
})

describe("stripeFromEnv", () => {
  it("installs nothing without the STRIPE_* variables, and refuses a secret key without its webhook secret", () => {
    expect(stripeFromEnv({}, { returnUrl: "http://127.0.0.1/" })).toEqual([])
    expect(() => stripeFromEnv({ STRIPE_SECRET_KEY: "sk_test_x" }, { returnUrl: "http://127.0.0.1/" })).toThrow(/go together/)
  })
})
