/**
 * Tender's failure codes for a provider's decline, and the mapping from a provider's own codes;
 * `Provider` re-exports them for adapters.
 */

/**
 * Every failure code of Tender's own that a provider's answer maps to, each with the one message
 * it carries (D1: a provider's own codes are never exposed). The first eight are a payment's
 * declines (`failureFor` picks among them); `payment_declined` is the rest: fraud, lost or
 * blocked cards and anything unknown, never told apart to the payer. The others are a refund,
 * a payout, a receipt or a create that the provider could not take. Adapters, the simulator and
 * core name a failure by `failure(code)`, never by a literal message, so this is the one list.
 *
 * @since 0.1.0 @category constants
 */
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

/** One of `failureMessages`' codes. @since 0.1.0 @category models */
export type FailureCode = keyof typeof failureMessages

/** A failure code with its message, as a `Failed` answer or a failed notice carries it. @since 0.1.0 @category models */
export interface Failure {
  readonly failureCode: FailureCode
  readonly failureMessage: string
}

/**
 * The failure `code`, with its message from `failureMessages`: `{ _tag: "Failed", ...failure("refund_failed") }`.
 *
 * @since 0.1.0 @category constructors
 */
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

/** A provider's own codes (and texts) for each of Tender's failure codes it tells apart. @since 0.1.0 @category models */
export type FailureCodes = { readonly [K in FailureCode]?: ReadonlyArray<string> }

/**
 * Tender's failure for a provider's decline: the first of `reasons` (the provider's codes, most
 * telling first; absent ones skipped) that `codes` lists, else `payment_declined`.
 *
 * @since 0.1.0 @category constructors
 */
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
