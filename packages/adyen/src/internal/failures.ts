/**
 * Adyen's outcomes in Tender's words: a refusal reason (its code first, its text when the code
 * is absent) becomes one of Tender's failure codes (D1: provider-local codes are never exposed),
 * and a fault of Adyen's side (a 5xx, a timeout, a broken connection, a refused API key) is
 * `ProviderUnavailable`, which routing counts against the route's health.
 */
// The SDK is CommonJS whose exports Node cannot name statically: its namespace, then its members.
import Adyen from "@adyen/api-library"
import { type FailureCodes, failureFor, neverSent, ProviderUnavailable } from "@tender/core/Provider"

const { HttpClientException } = Adyen

/** An Adyen answer that is not a fault of Adyen's side: a request it refused (4xx). */
export interface AdyenRejected {
  readonly _tag: "AdyenRejected"
  readonly failureCode: string
  readonly failureMessage: string
}

/** Adyen's refusal reason codes (and their texts) for each of Tender's failure codes. */
const codes: FailureCodes = {
  insufficient_funds: ["12", "Not enough balance", "28", "Withdrawal amount exceeded"],
  card_expired: ["6", "Expired Card"],
  card_invalid: ["8", "Invalid Card Number", "24", "CVC Declined", "17", "Invalid Pin"],
  authentication_failed: ["11", "3D Not Authenticated", "38", "Authentication required", "42", "3DS Authentication Error"],
  payment_expired: ["15", "Cancelled", "16", "Shopper Cancelled"],
  provider_error: ["4", "Acquirer Error", "9", "Issuer Unavailable"],
  provider_rejected: ["7", "Invalid Amount", "10", "Not supported", "23", "Transaction Not Permitted"]
}

/**
 * Tender's failure code for Adyen's refusal reason code and text; anything else (fraud,
 * blocked or restricted cards included: never told apart to the payer) is `payment_declined`.
 */
export const failureOf = (code: string | null | undefined, reason: string | null | undefined) => failureFor(codes, [code, reason])

/** Sorts an error the SDK threw: Adyen's side at fault, or a refusal of the request. */
export const classify = (error: unknown): ProviderUnavailable | AdyenRejected => {
  if (error instanceof HttpClientException && typeof error.statusCode === "number") {
    const status = error.statusCode
    // 401/403/404: a wrong key, account or address is the host's fault, but no payment can pass: unavailable.
    if (status >= 500 || status === 429 || status === 401 || status === 403 || status === 404) {
      // Refused before acting (401, 403, 404, 429) is safe to fail over; a 5xx may have acted.
      return new ProviderUnavailable({ provider: "adyen", reason: `Adyen answered ${status}`, notSent: status < 500 })
    }
    // The error code and status only: Adyen's message may echo request data.
    return { _tag: "AdyenRejected", failureCode: "provider_rejected", failureMessage: "The provider does not accept this payment." }
  }
  // Timeouts, dropped connections, TLS failures: the SDK throws a plain error or an ApiException.
  return new ProviderUnavailable({
    provider: "adyen",
    reason: error instanceof Error ? `${error.name}: no answer from Adyen` : "unknown failure",
    notSent: neverSent(error)
  })
}
