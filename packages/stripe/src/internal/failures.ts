/**
 * Stripe's outcomes in Tender's words: a Stripe error or decline code becomes one of Tender's
 * failure codes (D1: provider-local codes are never exposed), and a fault of Stripe's side (a
 * 5xx, a timeout, a connection error, rate limiting) is `ProviderUnavailable`, which routing
 * counts against the route's health.
 */
import { type FailureCodes, failureFor, neverSent, ProviderUnavailable } from "@tender/core/Provider"
import Stripe from "stripe"

/** A Stripe answer that is not a fault of Stripe's side: a decline or a refused request. */
export interface StripeRejected {
  readonly _tag: "StripeRejected"
  /** Tender's failure code for it. */
  readonly failureCode: string
  readonly failureMessage: string
  /** Stripe's own code, for the adapter's decisions only (never shown). */
  readonly stripeCode: string | null
  /** The payment intent Stripe's error carries, when it does. */
  readonly paymentIntent: Stripe.PaymentIntent | null
}

/** Stripe's codes and decline codes for each of Tender's failure codes. */
const codes: FailureCodes = {
  insufficient_funds: ["insufficient_funds"],
  card_expired: ["expired_card"],
  card_invalid: ["incorrect_cvc", "invalid_cvc", "incorrect_number", "invalid_number", "invalid_expiry_month", "invalid_expiry_year", "incorrect_zip"],
  authentication_failed: ["authentication_required", "payment_intent_authentication_failure"],
  payment_expired: ["payment_intent_payment_attempt_expired", "expired"],
  provider_error: ["processing_error"],
  provider_rejected: [
    "amount_too_small",
    "amount_too_large",
    "currency_not_supported",
    "invalid_currency",
    "payment_method_unactivated",
    "payment_intent_invalid_parameter"
  ]
}

/**
 * Tender's failure code for Stripe's codes; the decline code first (it is the issuer's
 * reason), anything unknown (fraud, lost or stolen cards included: never told apart to the
 * payer) is `payment_declined`.
 */
export const failureOf = (code: string | null | undefined, declineCode: string | null | undefined) => failureFor(codes, [declineCode, code])

/** Sorts an error the SDK threw: Stripe's side at fault, or a rejection to map. */
export const classify = (error: unknown): ProviderUnavailable | StripeRejected => {
  if (error instanceof Stripe.errors.StripeError) {
    const status = error.statusCode
    const fault = error instanceof Stripe.errors.StripeConnectionError ||
      error instanceof Stripe.errors.StripeAPIError ||
      error instanceof Stripe.errors.StripeRateLimitError ||
      error instanceof Stripe.errors.StripeAuthenticationError ||
      error instanceof Stripe.errors.StripePermissionError ||
      status === undefined || status >= 500 || status === 429
    if (fault) {
      // The type and status only: Stripe's message may echo request data. Refused before acting (a
      // 401, 403 or 429, or no connection made) is safe to fail over; a timeout or a 5xx is not.
      const notSent = status === 401 || status === 403 || status === 429 || neverSent(error)
      return new ProviderUnavailable({ provider: "stripe", reason: `Stripe ${error.type}${status === undefined ? "" : ` ${status}`}`, notSent })
    }
    const raw = (error.raw ?? {}) as { payment_intent?: Stripe.PaymentIntent }
    return {
      _tag: "StripeRejected",
      ...failureOf(error.code, error.decline_code),
      stripeCode: error.code ?? null,
      paymentIntent: raw.payment_intent ?? null
    }
  }
  return new ProviderUnavailable({ provider: "stripe", reason: error instanceof Error ? error.name : "unknown failure", notSent: neverSent(error) })
}
