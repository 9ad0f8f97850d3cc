/**
 * What two hosts walk through against the Stripe stand-in of @tender/testing, each with Stripe
 * installed its own way: the demo server from STRIPE_* (examples/server) and the Express example
 * from `stripeFromEnv` (examples/express). Not a test file itself; it asserts with Vitest's
 * `expect`, so it has its own entry, `@tender/repo-test-support/stripe-walks`.
 */
import { expect } from "vitest"
import { createIntent, type MerchantApi } from "./merchantApi.js"
import { eventually } from "./poll.js"

/** What a walk drives and reads of the Stripe stand-in (`StripeStandIn.start()`). */
export interface StripeSide {
  readonly paymentIntents: ReadonlyMap<string, Record<string, unknown>>
  readonly refunds: ReadonlyMap<string, Record<string, unknown>>
  readonly checkoutSessions: ReadonlyMap<string, Record<string, unknown>>
  readonly completeCheckout: (sessionId: string) => Promise<ReadonlyArray<{ readonly status: number; readonly body: string }>>
  readonly pay: (paymentIntentId: string) => Promise<ReadonlyArray<{ readonly status: number; readonly body: string }>>
  readonly settleRefund: (refundId: string) => Promise<unknown>
}

/** Stripe's payment intent for Tender's intent `id`: the adapter writes our id into its metadata. */
export const stripeIntentOf = (stripe: Pick<StripeSide, "paymentIntents">, id: string) =>
  [...stripe.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === id)!

/**
 * A merchant-mode PromptPay payment end to end: Stripe's QR as the intent's, the payer pays,
 * Stripe's signed notification answered, the intent succeeded and its webhook delivered; then a
 * partial refund made at Stripe, settled there, its webhook delivered and the intent's
 * `amount_refunded` moved.
 */
export const promptPayPaidThenRefunded = async (
  api: MerchantApi,
  webhook: (type: string, id: string) => Promise<unknown>,
  stripe: StripeSide
) => {
  const intent = await createIntent(api)
  const pi = stripeIntentOf(stripe, intent.id)
  expect(intent).toMatchObject({
    status: "requires_action",
    next_action: { type: "display_qr_code", qr_data: (pi["next_action"] as any).promptpay_display_qr_code.data }
  })

  const [delivery] = await stripe.pay(pi["id"] as string)
  expect({ status: delivery!.status, body: delivery!.body }).toEqual({ status: 200, body: "{\"received\":true}" })
  await eventually(async () => (await api("GET", `/payment_intents/${intent.id}`)).body.status === "succeeded" || undefined)
  await webhook("payment_intent.succeeded", intent.id)

  const refund = await api("POST", "/refunds", { payment_intent: intent.id, amount: "50000" })
  expect(refund.body).toMatchObject({ status: "pending", amount: "50000" })
  const stripeRefund = await eventually(() =>
    [...stripe.refunds.values()].find((r) => (r["metadata"] as Record<string, string>)["tender_refund"] === refund.body.id)
  )
  expect(stripeRefund).toMatchObject({ amount: 50000, payment_intent: pi["id"] })
  await stripe.settleRefund(stripeRefund["id"] as string)
  await webhook("refund.succeeded", refund.body.id)
  expect((await api("GET", `/payment_intents/${intent.id}`)).body.amount_refunded).toBe("50000")
}

/**
 * A merchant-mode card payment through Stripe Checkout: the intent's redirect is the Checkout
 * Session's page, whose `success_url` is the host's public URL (`hostUrl`: merchant mode takes no
 * `return_url`); the payer pays there, Stripe's notification is answered and the intent succeeds.
 */
export const cardThroughCheckout = async (
  api: MerchantApi,
  webhook: (type: string, id: string) => Promise<unknown>,
  stripe: StripeSide,
  hostUrl: string
) => {
  const created = await api("POST", "/payment_intents", {
    amount: "250000",
    currency: "THB",
    country: "TH",
    checkout_mode: "merchant",
    payment_method: "card",
    customer: { name: "Somchai Jaidee" }
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const session = [...stripe.checkoutSessions.values()].find((s) => (s["metadata"] as Record<string, string>)["tender_payment_intent"] === created.body.id)!
  expect(created.body.next_action).toMatchObject({ type: "redirect_to_url", url: session["url"] })
  expect(session).toMatchObject({ success_url: hostUrl, amount_total: 250000, currency: "thb" })
  const [delivery] = await stripe.completeCheckout(session["id"] as string)
  expect(delivery!.status).toBe(200)
  await webhook("payment_intent.succeeded", created.body.id)
  expect((await api("GET", `/payment_intents/${created.body.id}`)).body.status).toBe("succeeded")
}
