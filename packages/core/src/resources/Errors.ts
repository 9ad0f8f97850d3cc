/**
 * The error family of the merchant API (spec part 7, decisions D1, D2).
 * Every failure a caller can see is one of these classes; each carries its HTTP status
 * and wire `code`, and `ApiResponse.fromError` renders the D1 body.
 *
 * @since 0.1.0
 */
import { type Cause, Data } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** @since 0.1.0 @category models */
export interface ErrorDetail {
  readonly param?: string | undefined
  readonly message: string
}

/** The fields every API error carries. @since 0.1.0 @category models */
export interface ErrorFields {
  readonly message: string
  readonly param?: string | undefined
  readonly details?: ReadonlyArray<ErrorDetail> | undefined
}

/**
 * A tagged error class carrying its HTTP status and wire code, on the class (for the HTTP
 * definition and its OpenAPI document) and on every instance (for rendering).
 */
const ApiErrorClass = <Tag extends string, Status extends number, Code extends string>(
  tag: Tag,
  status: Status,
  code: Code
): ApiErrorConstructor<Tag, Status, Code> =>
  class extends Data.TaggedError(tag)<ErrorFields> {
    static readonly status: Status = status
    static readonly code: Code = code
    readonly status: Status = status
    readonly code: Code = code
  }

/**
 * An instance of an API error class. Spelled out (rather than inferred from the class
 * expression above) so the declaration files name only public `effect` types.
 *
 * @since 0.1.0 @category models
 */
export type ApiErrorInstance<Tag extends string, Status extends number, Code extends string> =
  & Cause.YieldableError
  & { readonly _tag: Tag; readonly status: Status; readonly code: Code }
  & Readonly<ErrorFields>

/** The constructor every API error class extends. @since 0.1.0 @category models */
export interface ApiErrorConstructor<Tag extends string, Status extends number, Code extends string> {
  new(args: ErrorFields): ApiErrorInstance<Tag, Status, Code>
  readonly status: Status
  readonly code: Code
}

/** 400: bad input of any kind (spec 7, D1). @since 0.1.0 @category errors */
export class ValidationFailed extends ApiErrorClass("ValidationFailed", 400, "validation_failed") {
  /** One problem at one input. */
  static at(param: string, message: string): ValidationFailed {
    return new ValidationFailed({ param, message })
  }
  /** Several problems; `param` is set only when they all concern one input. */
  static many(details: ReadonlyArray<ErrorDetail>): ValidationFailed {
    const first = details[0]
    const params = new Set(details.map((d) => d.param))
    return new ValidationFailed({
      message: details.length === 1 || first === undefined
        ? (first?.message ?? "The request is invalid")
        : `The request has ${details.length} problems; see details`,
      param: params.size === 1 ? first?.param : undefined,
      details: details.length > 1 ? details : undefined
    })
  }
}

/** 413: the body is larger than the route accepts; code `validation_failed` like any bad input (D1). @since 0.1.0 @category errors */
export class PayloadTooLarge extends ApiErrorClass("PayloadTooLarge", 413, "validation_failed") {}

/** 401: no usable credentials (D2). @since 0.1.0 @category errors */
export class AuthenticationRequired extends ApiErrorClass("AuthenticationRequired", 401, "authentication_required") {}

/** 401: credentials given but not accepted; never says which half was wrong (D2). @since 0.1.0 @category errors */
export class InvalidApiKey extends ApiErrorClass("InvalidApiKey", 401, "invalid_api_key") {}

/** 403: the merchant's team policy denies the checkout mode (4.1.5). @since 0.1.0 @category errors */
export class CheckoutModeNotAllowed extends ApiErrorClass("CheckoutModeNotAllowed", 403, "checkout_mode_not_allowed") {}

/** 400: a provider notification its adapter could not verify (D11): nothing was stored. @since 0.1.0 @category errors */
export class SignatureInvalid extends ApiErrorClass("SignatureInvalid", 400, "signature_invalid") {}

/** 404: unknown id, or another merchant's or environment's (4.2, D1). @since 0.1.0 @category errors */
export class ResourceNotFound extends ApiErrorClass("ResourceNotFound", 404, "resource_not_found") {}

/** 405 (D1). @since 0.1.0 @category errors */
export class MethodNotAllowed extends ApiErrorClass("MethodNotAllowed", 405, "method_not_allowed") {}

/** 409: changed fingerprint or a request in flight (4.9). @since 0.1.0 @category errors */
export class IdempotencyConflict extends ApiErrorClass("IdempotencyConflict", 409, "idempotency_conflict") {}

/**
 * 409: the operation is not valid in the resource's current status (a terminal payment intent
 * confirmed, a receipt for an intent that takes none); the code Stripe uses for the same case.
 *
 * @since 0.1.0 @category errors
 */
export class PaymentIntentUnexpectedState extends ApiErrorClass("PaymentIntentUnexpectedState", 409, "payment_intent_unexpected_state") {}

/** 409: a refund that would take the refunds of a payment past its amount (D10). @since 0.1.0 @category errors */
export class AmountExceedsRefundable extends ApiErrorClass("AmountExceedsRefundable", 409, "amount_exceeds_refundable") {}

/** 422: the payment's provider cannot refund its method (D10). @since 0.1.0 @category errors */
export class RefundNotSupported extends ApiErrorClass("RefundNotSupported", 422, "refund_not_supported") {}

/** 409: a payout intent cancelled outside `requires_approval` (3.3, D8). @since 0.1.0 @category errors */
export class PayoutNotCancelable extends ApiErrorClass("PayoutNotCancelable", 409, "payout_not_cancelable") {}

/** 409: a top-up intent asked to do what its status or source does not allow (a receipt twice, on a crypto source). @since 0.1.0 @category errors */
export class TopupIntentUnexpectedState extends ApiErrorClass("TopupIntentUnexpectedState", 409, "topup_intent_unexpected_state") {}

/** 409: a resend to a webhook endpoint that is disabled; enable it first (docs/webhooks.md). @since 0.1.0 @category errors */
export class WebhookEndpointDisabled extends ApiErrorClass("WebhookEndpointDisabled", 409, "webhook_endpoint_disabled") {}

/** 409: used by intent resources other than payment and payout intents (spec 7). @since 0.1.0 @category errors */
export class DuplicateMerchantReference extends ApiErrorClass("DuplicateMerchantReference", 409, "duplicate_merchant_reference") {}

/** 422: the chosen method or option has no configured execution (spec 7). @since 0.1.0 @category errors */
export class PaymentConfigurationUnavailable extends ApiErrorClass("PaymentConfigurationUnavailable", 422, "payment_configuration_unavailable") {}

/** 422: a payout above the available balance in its currency; nothing was created (D12). @since 0.1.0 @category errors */
export class BalanceInsufficient extends ApiErrorClass("BalanceInsufficient", 422, "balance_insufficient") {}

/** 422: configured routes exist but none is healthy (spec 7). @since 0.1.0 @category errors */
export class RoutingUnavailable extends ApiErrorClass("RoutingUnavailable", 422, "routing_unavailable") {}

/**
 * 429: too much of one thing in too short a time (a resend past its endpoint's hourly bound,
 * docs/webhooks.md). `retryAfterSeconds` says when it is allowed again (the `Retry-After` header).
 *
 * @since 0.1.0 @category errors
 */
export class RateLimited extends ApiErrorClass("RateLimited", 429, "rate_limited") {
  /** Whole seconds until the request may be made again: the `Retry-After` header. */
  retryAfterSeconds = 1
  /** The error with when to try again. */
  static after(seconds: number, fields: ErrorFields): RateLimited {
    const error = new RateLimited(fields)
    error.retryAfterSeconds = Math.max(1, Math.ceil(seconds))
    return error
  }
}

/**
 * 503: a transient storage outage (the database unreachable or restarting). Retrying later
 * is safe; an idempotency key the request held was given back.
 *
 * @since 0.1.0 @category errors
 */
export class ServiceUnavailable extends ApiErrorClass("ServiceUnavailable", 503, "service_unavailable") {}

/** 500: any unexpected fault (D1). @since 0.1.0 @category errors */
export class InternalError extends Data.TaggedError("InternalError")<{
  readonly message: string
  readonly cause?: unknown
}> {
  static readonly status = 500
  static readonly code = "internal_error"
  readonly status = 500
  readonly code = "internal_error"
}

/** Every error the API renders. @since 0.1.0 @category models */
export type ApiError =
  | ValidationFailed
  | SignatureInvalid
  | PayloadTooLarge
  | AuthenticationRequired
  | InvalidApiKey
  | CheckoutModeNotAllowed
  | ResourceNotFound
  | MethodNotAllowed
  | IdempotencyConflict
  | DuplicateMerchantReference
  | PaymentIntentUnexpectedState
  | AmountExceedsRefundable
  | RefundNotSupported
  | PayoutNotCancelable
  | TopupIntentUnexpectedState
  | WebhookEndpointDisabled
  | RateLimited
  | PaymentConfigurationUnavailable
  | RoutingUnavailable
  | BalanceInsufficient
  | ServiceUnavailable
  | StorageError
  | InternalError

/** The generic message every 5xx carries: internal details go to the host's logger only (D1). @since 0.1.0 */
export const internalMessage = "An internal error occurred. Retry the request; it is safe to retry with the same Idempotency-Key."

/** The wire body of D1. @since 0.1.0 @category rendering */
export const errorBody = (error: ApiError, requestId: string): unknown => {
  // A 503's message is ours and says what to do; any other 5xx's could carry internals.
  const internal = error.status >= 500 && error._tag !== "ServiceUnavailable"
  const fields: ErrorFields = internal ? { message: internalMessage } : error
  return {
    error: {
      code: error.code,
      message: fields.message,
      ...(fields.param !== undefined ? { param: fields.param } : {}),
      ...(fields.details !== undefined && fields.details.length > 0
        ? { details: fields.details.map((d) => (d.param !== undefined ? { param: d.param, message: d.message } : { message: d.message })) }
        : {}),
      request_id: requestId
    }
  }
}
