/**
 * Tender's failure codes for a provider's decline, and the mapping from a provider's own codes;
 * `Provider` re-exports them for adapters.
 */

/**
 * The failure codes of Tender's own that a provider's decline maps to, each with the message it
 * carries (D1: a provider's own codes are never exposed). `payment_declined` is the rest: fraud,
 * lost or blocked cards and anything unknown, never told apart to the payer.
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
  payment_declined: "The provider declined the payment."
} as const

/** One of `failureMessages`' codes. @since 0.1.0 @category models */
export type FailureCode = keyof typeof failureMessages

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
): { readonly failureCode: FailureCode; readonly failureMessage: string } => {
  for (const reason of reasons) {
    if (reason == null) continue
    const known = (Object.keys(codes) as Array<FailureCode>).find((code) => codes[code]!.includes(reason))
    if (known !== undefined) return { failureCode: known, failureMessage: failureMessages[known] }
  }
  return { failureCode: "payment_declined", failureMessage: failureMessages.payment_declined }
}

/** The network errors raised before a request leaves: nothing reached the provider. */
const unsentCodes = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ERR_INVALID_URL"])

/**
 * Whether `error` (or an error it wraps: `cause`, or an SDK's `detail`) says the request never
 * left: a refused connection, an unknown host. Only then is another route safe without
 * remembering the attempt (`ProviderUnavailable.notSent`); a timeout or a reset is not.
 *
 * @since 0.1.0 @category predicates
 */
export const neverSent = (error: unknown): boolean => {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    const code = (e as { readonly code?: unknown }).code
    if (typeof code === "string" && unsentCodes.has(code)) return true
    const inner = e as { readonly cause?: unknown; readonly detail?: unknown }
    e = inner.cause ?? inner.detail
  }
  return false
}
