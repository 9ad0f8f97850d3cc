/**
 * D11 with D1: any body signed with the endpoint secret is answered 2xx or 4xx by Tender's
 * receive, whatever its shape (a test event, an API version Tender does not know, an event made
 * by hand and signed with the secret): never a 5xx. The shapes found by a hostile probe, then a
 * fast-check property over mutated events and arbitrary JSON.
 */
import { mutated, mutatedEventsAnswered, signedBodiesAnswered } from "@tender/repo-test-support/signed-notifications"
import fc from "fast-check"
import Stripe from "stripe"
import { assert, it } from "vitest"
import { stripe } from "../src/StripeProvider.js"

const secret = "whsec_test_signed_bodies"
const provider = stripe({ secretKey: "sk_test_tender", webhookSecret: secret, apiBase: "http://127.0.0.1:9", maxNetworkRetries: 0 })
const signer = new Stripe("sk_test_signer")
const sign = (payload: string) => ({ "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret }) })

const paymentIntent = {
  id: "pi_123",
  object: "payment_intent",
  amount_received: 150000,
  currency: "thb",
  status: "succeeded",
  metadata: { tender_payment_intent: "dord_test000000000000000000001" },
  last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" }
}
const event = (type: string, object: unknown) => ({ id: "evt_1", object: "event", type, livemode: false, created: 1, data: { object } })

it("D11 D1 Stripe-signed events of unexpected shape -> stored or refused with a 4xx, never a 5xx", async () => {
  const shapes: Array<unknown> = [
    event("payment_intent.succeeded", {}),
    { id: "evt_1", type: "payment_intent.succeeded", livemode: false },
    event("payment_intent.succeeded", { ...paymentIntent, currency: undefined }),
    event("payment_intent.succeeded", null),
    event("payment_intent.succeeded", { ...paymentIntent, metadata: { tender_payment_intent: 7 } }),
    { ...event("payment_intent.succeeded", paymentIntent), id: undefined },
    { ...event("payment_intent.succeeded", paymentIntent), id: { nested: true } },
    "payment_intent.succeeded",
    event("payment_intent.payment_failed", { ...paymentIntent, last_payment_error: "x" }),
    event("refund.updated", { id: 1, status: "succeeded", payment_intent: { id: 5 }, metadata: null }),
    event("checkout.session.completed", { id: "cs_1", payment_status: "paid", amount_total: -1, currency: 5 })
  ]
  const tally = await signedBodiesAnswered({ provider, sign, bodies: fc.constantFrom(...shapes.map((s) => JSON.stringify(s))), numRuns: 60 })
  assert.isAbove(tally.stored, 0)
  assert.isAbove(tally.refused, 0)
})

it("D11 D1 property: any body signed with the endpoint secret (mutated Stripe events, any JSON, any text) -> 2xx or 4xx, never a 5xx", async () => {
  const types = fc.constantFrom(
    "payment_intent.succeeded",
    "payment_intent.processing",
    "payment_intent.payment_failed",
    "payment_intent.canceled",
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.async_payment_failed",
    "refund.created",
    "refund.updated",
    "refund.failed",
    "charge.refund.updated",
    "customer.created"
  )
  const events = types.chain((type) => mutated(event(type, { ...paymentIntent, payment_status: "paid", amount_total: 150000, payment_intent: "pi_123" })))
  await mutatedEventsAnswered({ provider, sign, events })
}, 120_000)
