/**
 * Stripe's objects read as Tender's answers: a payment intent's and a Checkout Session's status
 * as the port's one update type, a refund's as a refund status, a create's answer as its result.
 */
import type { ProviderPaymentResult, ProviderPaymentStatus, ProviderRefundStatus } from "@tender/core/Provider"
import { failure } from "@tender/core/ProviderKit"
import type Stripe from "stripe"
import { failureOf } from "./failures.js"

/** A payment intent's status. */
export const paymentStatus = (pi: Stripe.PaymentIntent): ProviderPaymentStatus => {
  switch (pi.status) {
    case "succeeded":
      return { _tag: "Succeeded", amount: String(pi.amount_received), currency: pi.currency.toUpperCase() }
    case "processing":
      return { _tag: "Processing" }
    case "canceled":
      return { _tag: "Canceled" }
    case "requires_payment_method":
      return pi.last_payment_error == null
        ? { _tag: "Pending" }
        : { _tag: "Failed", ...failureOf(pi.last_payment_error.code, pi.last_payment_error.decline_code) }
    default:
      return { _tag: "Pending" }
  }
}

/** A Checkout Session's status: paid, expired unpaid, or still open. */
export const sessionStatus = (session: Stripe.Checkout.Session): ProviderPaymentStatus =>
  session.payment_status === "paid"
    ? { _tag: "Succeeded", amount: session.amount_total === null ? null : String(session.amount_total), currency: session.currency?.toUpperCase() ?? null }
    : session.status === "expired"
    ? { _tag: "Failed", ...failure("payment_expired") }
    : { _tag: "Pending" }

/** A refund's status. */
export const refundStatus = (refund: Stripe.Refund): ProviderRefundStatus =>
  refund.status === "succeeded" ?
    { _tag: "Succeeded" }
    : refund.status === "failed" || refund.status === "canceled"
    ? { _tag: "Failed", ...failure("refund_failed") }
    : { _tag: "Pending" }

/** A PromptPay create's answer: the QR code to pay, or what the payment already is. */
export const promptPayResult = (pi: Stripe.PaymentIntent): ProviderPaymentResult => {
  const qr = pi.next_action?.promptpay_display_qr_code
  if (pi.status !== "requires_action" || qr == null) {
    const s = paymentStatus(pi)
    return s._tag === "Failed" ? { ...s, providerPaymentId: pi.id } : { _tag: "Processing", providerPaymentId: pi.id }
  }
  // Newer API versions say when the code expires; 2023-08-16 does not, then Tender's own expiry holds.
  const expiresAt = (qr as { expires_at?: number | null }).expires_at
  return {
    _tag: "Action",
    providerPaymentId: pi.id,
    nextAction: {
      type: "display_qr_code",
      qr_data: qr.data,
      qr_image_url: qr.image_url_png,
      ...(expiresAt == null ? {} : { expires_at: new Date(expiresAt * 1000).toISOString() })
    }
  }
}

/** A card create's answer: the Checkout page to send the payer to. */
export const checkoutResult = (session: Stripe.Checkout.Session): ProviderPaymentResult => ({
  _tag: "Action",
  providerPaymentId: session.id,
  nextAction: { type: "redirect_to_url", url: session.url ?? "", expires_at: new Date(session.expires_at * 1000).toISOString() }
})
