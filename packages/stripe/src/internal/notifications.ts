/**
 * Stripe's notifications (D11): verified with the SDK's own `webhooks.constructEvent` over the
 * exact bytes received, against each configured endpoint secret (a test and a live endpoint
 * have different ones), and read as Tender's notices. Our ids come back in the metadata the
 * adapter set.
 */
import { failure } from "@tender/core/ProviderKit"
import {
  NotificationUnverified,
  type ParsedNotification,
  type ProviderNotice,
  type ProviderNotificationRequest,
  receivedAnswer
} from "@tender/core/ProviderNotification"
import type { Environment } from "@tender/core/Schemas"
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

/**
 * Readers of a verified event that trust nothing of its shape: a signed body is Stripe's, but a
 * field missing or of another type than documented (a test event, an API version Tender does not
 * know, a hand-made event signed with the endpoint secret) reads as absent, never as a crash.
 */
const recordOf = (u: unknown): Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u) ? u as Record<string, unknown> : {}
const textOf = (u: unknown): string | null => typeof u === "string" ? u : null
const amountOf = (u: unknown): string | null => typeof u === "number" && Number.isSafeInteger(u) && u >= 0 ? String(u) : null
const metaOf = (o: Readonly<Record<string, unknown>>, key: string): string | null => textOf(recordOf(o["metadata"])[key])

/** The envelope every Stripe event has; a verified body without it is no event (nothing stored). */
const envelopeOf = (u: unknown) => {
  const event = recordOf(u)
  const id = textOf(event["id"])
  const type = textOf(event["type"])
  if (id === null || id === "" || type === null) return undefined
  const environment: Environment = event["livemode"] === true ? "live" : "test"
  return { id, type, environment, object: recordOf(recordOf(event["data"])["object"]) }
}

/** The notices of one verified event (of any shape: see `recordOf`). */
export const noticesOf = (event: NonNullable<ReturnType<typeof envelopeOf>>): ReadonlyArray<ProviderNotice> => {
  const { environment, object } = event
  const eventId = event.id
  const ignored = [{ _tag: "Ignored" as const, eventId }]
  switch (event.type) {
    case "payment_intent.succeeded":
    case "payment_intent.processing":
    case "payment_intent.payment_failed":
    case "payment_intent.canceled": {
      // A Checkout payment is told by its session's events (its intent is Stripe's, not ours).
      if (metaOf(object, META.checkout) !== null) return ignored
      const base = { eventId, providerPaymentId: textOf(object["id"]) ?? "", paymentIntentId: metaOf(object, META.paymentIntent), environment }
      if (event.type === "payment_intent.succeeded") {
        return [{ _tag: "PaymentSucceeded", ...base, amount: amountOf(object["amount_received"]), currency: textOf(object["currency"])?.toUpperCase() ?? null }]
      }
      if (event.type === "payment_intent.processing") return [{ _tag: "PaymentProcessing", ...base }]
      if (event.type === "payment_intent.canceled") {
        return [{ _tag: "PaymentFailed", ...base, ...failure("payment_expired") }]
      }
      const error = recordOf(object["last_payment_error"])
      return [{ _tag: "PaymentFailed", ...base, ...failureOf(textOf(error["code"]), textOf(error["decline_code"])) }]
    }
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.async_payment_failed": {
      const base = { eventId, providerPaymentId: textOf(object["id"]) ?? "", paymentIntentId: metaOf(object, META.paymentIntent), environment }
      if (event.type === "checkout.session.async_payment_failed") return [{ _tag: "PaymentFailed", ...base, ...failureOf(null, null) }]
      if (object["payment_status"] !== "paid") return [{ _tag: "PaymentProcessing", ...base }]
      return [{ _tag: "PaymentSucceeded", ...base, amount: amountOf(object["amount_total"]), currency: textOf(object["currency"])?.toUpperCase() ?? null }]
    }
    case "refund.created":
    case "refund.updated":
    case "refund.failed":
    case "charge.refund.updated": {
      const paymentIntent = object["payment_intent"]
      const base = {
        eventId,
        refundId: metaOf(object, META.refund),
        providerRefundId: textOf(object["id"]) ?? "",
        providerPaymentId: metaOf(object, META.providerPayment) ?? textOf(paymentIntent) ?? textOf(recordOf(paymentIntent)["id"]),
        environment
      }
      if (object["status"] === "succeeded") return [{ _tag: "RefundSucceeded", ...base }]
      if (object["status"] === "failed" || object["status"] === "canceled") {
        return [{ _tag: "RefundFailed", ...base, ...failure("refund_failed") }]
      }
      return ignored
    }
    default:
      return ignored
  }
}

/** Verifies a notification with each endpoint secret and reads it. */
export const parse =
  (client: Stripe, secrets: ReadonlyArray<string>) => (request: ProviderNotificationRequest): Effect.Effect<ParsedNotification, NotificationUnverified> =>
    Effect.suspend(() => {
      const header = request.headers["stripe-signature"]
      if (header === undefined) return Effect.fail(new NotificationUnverified({ provider: "stripe", reason: "no Stripe-Signature header" }))
      const payload = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength)
      for (const secret of secrets) {
        let event: unknown
        try {
          event = client.webhooks.constructEvent(payload, header, secret)
        } catch {
          continue
        }
        const envelope = envelopeOf(event)
        if (envelope === undefined) {
          return Effect.fail(new NotificationUnverified({ provider: "stripe", reason: "the signed body is not a Stripe event (no id or type)" }))
        }
        return Effect.succeed({ notices: noticesOf(envelope), answer: receivedAnswer })
      }
      return Effect.fail(new NotificationUnverified({ provider: "stripe", reason: "the Stripe-Signature does not verify with any endpoint secret" }))
    })
