/**
 * The demo server with the three STRIPE_* variables pointed at the Stripe stand-in of
 * @tender/testing: a PromptPay payment and a card payment end to end, through Stripe's signed
 * notifications to the merchant's webhooks, and a PromptPay payment on the hosted page
 * (docs/providers/stripe.md).
 */
import { shownQr } from "@tender/repo-test-support"
import { hostedPromptPayPaid, standInDemo } from "@tender/repo-test-support/stand-in-demo"
import { cardThroughCheckout, promptPayPaidThenRefunded, stripeIntentOf } from "@tender/repo-test-support/stripe-walks"
import * as StripeStandIn from "@tender/stripe/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import * as QRCode from "qrcode"
import { describe, expect, it } from "vitest"

const WEBHOOK_SECRET = "whsec_demo_stripe_e2e"
let standIn: StripeStandIn.StripeStandIn
const demo = standInDemo({
  slug: "stripe_e2e",
  name: "Stripe Shop",
  key: { public: "pk_test_stripeE2e1234", secret: "sk_test_stripeE2eSecret5678" },
  routes: [
    { id: "rt_stripe_pp", method: "th_promptpay", provider: "stripe", environments: ["test"] },
    { id: "rt_stripe_card", method: "card", provider: "stripe", environments: ["test"] }
  ],
  start: async () => (standIn = await StripeStandIn.start()),
  each: (s) => [s],
  env: (s) => ({ STRIPE_SECRET_KEY: "sk_test_demoStripeE2e", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: s.url }),
  connect: (s, url) => s.addEndpoint({ url: `${url}/provider_notifications/stripe`, secret: WEBHOOK_SECRET }),
  format: formatRefusals
})
const { api } = demo

describe("examples/server with STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE (the Stripe stand-in)", () => {
  it("takes a PromptPay payment end to end: QR, Stripe's notification, succeeded, merchant webhook, partial refund, refund.succeeded", async () => {
    await promptPayPaidThenRefunded(api, demo.hooks().webhook, standIn)
  }, 60_000)

  it("takes a card payment through Stripe Checkout's redirect", async () => {
    await cardThroughCheckout(api, demo.hooks().webhook, standIn, `${demo.server().url}/`)
  }, 60_000)

  it("hosted mode: the hosted page shows Stripe's PromptPay QR code, and Stripe's notification makes the intent succeeded", async () => {
    const { intent: created, shown } = await hostedPromptPayPaid(api)
    const pi = stripeIntentOf(standIn, created.id)
    const qrData = (pi["next_action"] as any).promptpay_display_qr_code.data as string
    // The QR image Tender draws is the one of Stripe's payload (the same drawing as the hosted page's).
    const stripeQr = await QRCode.toDataURL(qrData, { errorCorrectionLevel: "M", margin: 2, width: 260 })
    expect(shownQr(await shown())).toBe(stripeQr)
    // The merchant keeps seeing the hosted link; Stripe's notification settles it.
    expect((await api("GET", `/payment_intents/${created.id}`)).body.next_action).toMatchObject({ type: "redirect_to_url", url: created.next_action.url })
    const [delivery] = await standIn.pay(pi["id"] as string)
    expect(delivery!.status).toBe(200)
    await demo.hooks().webhook("payment_intent.succeeded", created.id)
  }, 60_000)
})
