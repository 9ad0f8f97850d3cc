/**
 * Stripe's notifications (D11): verified with the SDK's own `webhooks.constructEvent` over the
 * exact bytes received, against each configured endpoint secret (a test and a live endpoint
 * have different ones), and read as Tender's notices. Our ids come back in the metadata the
 * adapter set.
 */
import type { Environment } from "@tender/core/Schemas"
import { NotificationUnverified, type ParsedNotification, type ProviderNotice, type ProviderNotificationRequest, receivedAnswer } from "@tender/core/ProviderNotification"
import { Effect } from "effect"
import type Stripe from "stripe"
import { failureOf } from "./failures.js"

/** Metadata keys the adapter writes on Stripe's objects, so notifications echo our ids. */
export const META = {
  paymentIntent: "tender_payment_intent",
  refund: "tender_refund",
  providerPayment: "tender_provider_payment",
  checkout: "tender_checkout"
} as const

const envOf = (livemode: boolean): Environment => livemode ? "live" : "test"
const metaOf = (o: { metadata?: Stripe.Metadata | null }, key: string): string | null => o.metadata?.[key] ?? null

/** The notices of one verified event. */
export const noticesOf = (event: Stripe.Event): ReadonlyArray<ProviderNotice> => {
  const eventId = event.id
  const environment = envOf(event.livemode)
  const object = event.data.object as unknown as Record<string, unknown> & { metadata?: Stripe.Metadata | null }
  const ignored = [{ _tag: "Ignored" as const, eventId }]
  switch (event.type) {
    case "payment_intent.succeeded":
    case "payment_intent.processing":
    case "payment_intent.payment_failed":
    case "payment_intent.canceled": {
      const pi = object as unknown as Stripe.PaymentIntent
      // A Checkout payment is told by its session's events (its intent is Stripe's, not ours).
      if (metaOf(pi, META.checkout) !== null) return ignored
      const base = { eventId, providerPaymentId: pi.id, paymentIntentId: metaOf(pi, META.paymentIntent), environment }
      if (event.type === "payment_intent.succeeded") {
        return [{ _tag: "PaymentSucceeded", ...base, amount: String(pi.amount_received), currency: pi.currency.toUpperCase() }]
      }
      if (event.type === "payment_intent.processing") return [{ _tag: "PaymentProcessing", ...base }]
      if (event.type === "payment_intent.canceled") {
        return [{ _tag: "PaymentFailed", ...base, failureCode: "payment_expired", failureMessage: "The provider canceled the payment before it was paid." }]
      }
      const error = pi.last_payment_error
      return [{ _tag: "PaymentFailed", ...base, ...failureOf(error?.code, error?.decline_code) }]
    }
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.async_payment_failed": {
      const session = object as unknown as Stripe.Checkout.Session
      const base = { eventId, providerPaymentId: session.id, paymentIntentId: metaOf(session, META.paymentIntent), environment }
      if (event.type === "checkout.session.async_payment_failed") return [{ _tag: "PaymentFailed", ...base, ...failureOf(null, null) }]
      if (session.payment_status !== "paid") return [{ _tag: "PaymentProcessing", ...base }]
      return [{ _tag: "PaymentSucceeded", ...base, amount: String(session.amount_total), currency: (session.currency ?? "").toUpperCase() }]
    }
    case "refund.created":
    case "refund.updated":
    case "refund.failed":
    case "charge.refund.updated": {
      const refund = object as unknown as Stripe.Refund
      const base = {
        eventId,
        refundId: metaOf(refund, META.refund),
        providerRefundId: refund.id,
        providerPaymentId: metaOf(refund, META.providerPayment) ??
          (typeof refund.payment_intent === "string" ? refund.payment_intent : refund.payment_intent?.id ?? null),
        environment
      }
      if (refund.status === "succeeded") return [{ _tag: "RefundSucceeded", ...base }]
      if (refund.status === "failed" || refund.status === "canceled") {
        return [{ _tag: "RefundFailed", ...base, failureCode: "refund_failed", failureMessage: "The provider could not refund the payment." }]
      }
      return ignored
    }
    default:
      return ignored
  }
}

/** Verifies a notification with each endpoint secret and reads it. */
export const parse = (client: Stripe, secrets: ReadonlyArray<string>) =>
  (request: ProviderNotificationRequest): Effect.Effect<ParsedNotification, NotificationUnverified> =>
    Effect.suspend(() => {
      const header = request.headers["stripe-signature"]
      if (header === undefined) return Effect.fail(new NotificationUnverified({ provider: "stripe", reason: "no Stripe-Signature header" }))
      const payload = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength)
      for (const secret of secrets) {
        let event: Stripe.Event
        try {
          event = client.webhooks.constructEvent(payload, header, secret)
        } catch {
          continue
        }
        return Effect.succeed({ notices: noticesOf(event), answer: receivedAnswer })
      }
      return Effect.fail(new NotificationUnverified({ provider: "stripe", reason: "the Stripe-Signature does not verify with any endpoint secret" }))
    })
