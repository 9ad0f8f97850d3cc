/**
 * Stripe's outcomes in Tender's words: Stripe's error and decline codes for each of Tender's
 * failure codes (D1: provider-local codes are never exposed), and what the kit reads of an error
 * Stripe's SDK threw. Which errors are faults and which refusals is the kit's one rule
 * (`ProviderKit.vendor`, docs/provider-adapters.md).
 */
import type { Failure, FailureCodes, VendorError } from "@tender/core/ProviderKit"
import { failureFor } from "@tender/core/ProviderKit"
import Stripe from "stripe"

/** Stripe's codes and decline codes for each of Tender's failure codes. */
export const declines: FailureCodes = {
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
export const failureOf = (code: string | null | undefined, declineCode: string | null | undefined): Failure => failureFor(declines, [declineCode, code])

/** What the kit reads of an error the SDK threw: Stripe's answer (its status and codes), or none (a connection error). */
export const errorOf = (error: unknown): VendorError | undefined =>
  !(error instanceof Stripe.errors.StripeError)
    ? undefined
    : error instanceof Stripe.errors.StripeConnectionError || error.statusCode === undefined
    ? { type: error.type }
    // The type and status only in reasons: Stripe's message may echo request data.
    : { status: error.statusCode, codes: [error.decline_code, error.code], type: error.type }

/** The payment intent a Stripe error carries (a declined confirm's), when it does. */
export const paymentIntentOf = (error: unknown): string | null =>
  error instanceof Stripe.errors.StripeError ? ((error.raw ?? {}) as { payment_intent?: Stripe.PaymentIntent }).payment_intent?.id ?? null : null
