/**
 * Tender's failure codes for a provider's decline, and the mapping from a provider's own codes
 * (public, and documented, in `ProviderKit`; `Provider` exports the codes and the mapping too).
 */

/** `ProviderKit.failureMessages`. The first eight are a payment's declines, the order `failureFor` reads them in. */
export const failureMessages = {
  insufficient_funds: "The payer's account has insufficient funds.",
  card_expired: "The card has expired.",
  card_invalid: "The card details are incorrect.",
  authentication_failed: "The payer did not complete authentication.",
  payment_expired: "The payer did not pay in time.",
  provider_error: "The provider could not process the payment.",
  provider_rejected: "The provider does not accept this payment.",
  payment_declined: "The provider declined the payment.",
  return_url_required: "The payment needs a return_url to send the payer back to.",
  receipt_rejected: "The provider rejected the receipt.",
  refund_failed: "The provider could not refund the payment.",
  payout_failed: "The provider could not pay out.",
  account_closed: "The destination account is closed."
} as const

/** `ProviderKit.FailureCode`. */
export type FailureCode = keyof typeof failureMessages

/** `ProviderKit.Failure`. */
export interface Failure {
  readonly failureCode: FailureCode
  readonly failureMessage: string
}

/** `ProviderKit.failure`. */
export const failure = (code: FailureCode): Failure => ({ failureCode: code, failureMessage: failureMessages[code] })

/**
 * The failure of a payout, top-up or refund that no installed provider can carry out (its bank's,
 * its own, or the payment's provider is gone or cannot refund): a code of Tender's own, outside
 * `failureMessages` since no provider's answer maps to it, with what the merchant is told.
 */
export const noProvider = (code: "payout_unavailable" | "provider_unavailable" | "refund_not_supported", message: string) => ({
  status: "failed" as const,
  failureCode: code,
  failureMessage: message
})

/** `ProviderKit.FailureCodes`. */
export type FailureCodes = { readonly [K in FailureCode]?: ReadonlyArray<string> }

/** `ProviderKit.failureFor`. */
export const failureFor = (
  codes: FailureCodes,
  reasons: ReadonlyArray<string | null | undefined>
): Failure => {
  for (const reason of reasons) {
    if (reason == null) continue
    const known = (Object.keys(codes) as Array<FailureCode>).find((code) => codes[code]!.includes(reason))
    if (known !== undefined) return failure(known)
  }
  return failure("payment_declined")
}
