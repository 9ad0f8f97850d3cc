/**
 * The provider contract suite of @tender/testing on @tender/stripe, against the Stripe
 * stand-in: the payer's side is the stand-in's (`pay`, `failPayment`, `process`,
 * `settleRefund`), which sends Stripe's signed notifications to the suite's door, and its books
 * (payment intents and refunds) are what the provider holds.
 */
import * as StripeStandIn from "@tender/stripe/testing"
import { ProviderContract } from "@tender/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import Stripe from "stripe"
import { afterEach, expect } from "vitest"
import { apiVersion, stripe } from "../src/StripeProvider.js"

const WEBHOOK_SECRET = "whsec_test_contract_secret"
let standIn: StripeStandIn.StripeStandIn | undefined

afterEach(() => {
  const refusals = standIn?.refusals.splice(0) ?? []
  expect(refusals, formatRefusals(refusals)).toEqual([])
})

const metadataOf = (o: Record<string, unknown>) => (o["metadata"] ?? {}) as Record<string, string>

ProviderContract.suite("stripe", async ({ notificationUrl }) => {
  const s = await StripeStandIn.start({ endpoints: [{ url: notificationUrl, secret: WEBHOOK_SECRET }] })
  standIn = s
  const signer = new Stripe("sk_test_contract_signer")
  // Stripe's own side (its dashboard, its expiry) ending a payment: a call of its API, then its event.
  const base = new URL(s.url)
  const dashboard = new Stripe("sk_test_contract_dashboard", {
    apiVersion: apiVersion as Stripe.LatestApiVersion,
    host: base.hostname,
    port: Number(base.port),
    protocol: "http",
    telemetry: false
  })
  const refundOf = (refundId: string) => [...s.refunds.values()].find((r) => metadataOf(r)["tender_refund"] === refundId)
  return {
    // A test key alone: the adapter serves test routes and nothing else.
    provider: stripe({ secretKey: "sk_test_contract", webhookSecret: WEBHOOK_SECRET, apiBase: s.url, maxNetworkRetries: 0 }),
    environments: ["test"],
    driver: {
      settle: async (payment, outcome) => {
        const id = payment.providerPaymentId
        if (outcome === "succeeded") await s.pay(id)
        else if (outcome === "processing") await s.process(id)
        else if (outcome === "canceled") {
          await dashboard.paymentIntents.cancel(id)
          await s.flush()
        } else await s.failPayment(id, { code: "card_declined", declineCode: "stolen_card" })
      },
      // The payer pays one minor unit more: Stripe's amount_received says so, in its reads and its event.
      overpay: { pay: async (payment) => void await s.pay(payment.providerPaymentId, { amountReceived: Number(BigInt(payment.amount) + 1n) }) },
      settleRefund: async (refund, outcome) => {
        const found = refundOf(refund.refundId)
        if (found === undefined) throw new Error(`Stripe holds no refund for ${refund.refundId}`)
        await s.settleRefund(found["id"] as string, outcome)
      },
      paymentsAt: (paymentIntentId) => [...s.paymentIntents.values()].filter((pi) => metadataOf(pi)["tender_payment_intent"] === paymentIntentId).length,
      refundedAt: (payment) =>
        String(
          [...s.refunds.values()]
            .filter((r) => r["payment_intent"] === payment.providerPaymentId && (r["status"] === "pending" || r["status"] === "succeeded"))
            .reduce((sum, r) => sum + (r["amount"] as number), 0)
        ),
      providerCodes: ["card_declined", "stolen_card"],
      forge: (genuine) => {
        const { "stripe-signature": _signature, ...unsigned } = genuine.headers
        const payload = Buffer.from(genuine.body).toString("utf8")
        return [
          { headers: unsigned, body: genuine.body },
          {
            headers: { ...unsigned, "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret: "whsec_another_endpoint" }) },
            body: genuine.body
          },
          {
            headers: {
              ...unsigned,
              "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 })
            },
            body: genuine.body
          }
        ]
      }
    },
    close: () => s.close()
  }
})
