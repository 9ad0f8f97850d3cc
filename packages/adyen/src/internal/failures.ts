/**
 * Adyen's outcomes in Tender's words: Adyen's refusal reason codes (and their texts) for each of
 * Tender's failure codes (D1: provider-local codes are never exposed), and what the kit reads of
 * an error Adyen's SDK threw. Which errors are faults and which refusals is the kit's one rule
 * (`ProviderKit.vendor`, docs/provider-adapters.md).
 */
// The SDK is CommonJS whose exports Node cannot name statically: its namespace, then its members.
import Adyen from "@adyen/api-library"
import type { Failure, FailureCodes, VendorError } from "@tender/core/ProviderKit"
import { failureFor } from "@tender/core/ProviderKit"

const { HttpClientException } = Adyen

/** Adyen's refusal reason codes (and their texts) for each of Tender's failure codes. */
export const declines: FailureCodes = {
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
export const failureOf = (code: string | null | undefined, reason: string | null | undefined): Failure => failureFor(declines, [code, reason])

/**
 * What the kit reads of an error the SDK threw: Adyen's HTTP answer (its status; a refused
 * request's error code is no refusal reason, so none), the SDK's own refusal of a missing API key
 * (a 401 that was never sent), or none: the SDK's `ApiException` for a timeout, a dropped
 * connection or a TLS failure carries a made-up 500.
 */
export const errorOf = (error: unknown): VendorError | undefined => {
  if (error instanceof HttpClientException && typeof error.statusCode === "number") return { status: error.statusCode }
  const e = error as { readonly name?: unknown; readonly statusCode?: unknown }
  return e?.name === "ApiException" && e.statusCode === 401 ? { status: 401, type: "api key" } : undefined
}
