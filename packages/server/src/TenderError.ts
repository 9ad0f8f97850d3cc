/**
 * The one error class of the Promise API: every rejection a host sees from `tender.*` is a
 * `TenderError` carrying the D1 `code`, the HTTP `status` the same failure has on the wire,
 * and `param` when one input is at fault. The codes are the wire codes (spec 7, D1), so a
 * host's code that handles `error.code === "idempotency_conflict"` handles it the same way
 * whether the call came through HTTP or through `tender.paymentIntents.create`.
 *
 * @since 0.1.0
 */

/** Every code a `TenderError` carries (D1). @since 0.1.0 @category models */
export type TenderErrorCode =
  | "validation_failed"
  | "authentication_required"
  | "invalid_api_key"
  | "checkout_mode_not_allowed"
  | "resource_not_found"
  | "method_not_allowed"
  | "idempotency_conflict"
  | "duplicate_merchant_reference"
  | "payment_intent_unexpected_state"
  | "amount_exceeds_refundable"
  | "refund_not_supported"
  | "signature_invalid"
  | "payout_not_cancelable"
  | "payout_not_approvable"
  | "topup_intent_unexpected_state"
  | "payment_configuration_unavailable"
  | "routing_unavailable"
  | "service_unavailable"
  | "internal_error"

/** One problem among several (D1 `details`). @since 0.1.0 @category models */
export interface TenderErrorDetail {
  readonly param?: string
  readonly message: string
}

/** @since 0.1.0 @category errors */
export class TenderError extends Error {
  override readonly name = "TenderError"
  readonly code: TenderErrorCode
  readonly status: number
  readonly param: string | undefined
  readonly details: ReadonlyArray<TenderErrorDetail> | undefined
  /** The request id of the operation (`req_…`), as Tender's logs name it. */
  readonly requestId: string | undefined

  constructor(fields: {
    readonly code: TenderErrorCode
    readonly status: number
    readonly message: string
    readonly param?: string | undefined
    readonly details?: ReadonlyArray<TenderErrorDetail> | undefined
    readonly requestId?: string | undefined
    readonly cause?: unknown
  }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause })
    this.code = fields.code
    this.status = fields.status
    this.param = fields.param
    this.details = fields.details
    this.requestId = fields.requestId
  }
}

/** Whether `u` is a `TenderError` (across copies of this package, by shape). @since 0.1.0 @category guards */
export const isTenderError = (u: unknown): u is TenderError =>
  u instanceof TenderError || (u instanceof Error && u.name === "TenderError" && typeof (u as { code?: unknown }).code === "string")
