/**
 * What a call can throw: `TenderApiError` when Tender (or a proxy in front of it) answered with
 * an error status, `TenderConnectionError` when no answer came back, after the retries
 * (docs/client.md, "Errors").
 *
 * @since 0.1.0
 */
import type { ErrorCode } from "./Resources.js"

/** One problem of a D1 `details` list. @since 0.1.0 @category models */
export interface ErrorDetail {
  readonly param?: string
  readonly message: string
}

/** The `code` of an error answer that is not a D1 body (an HTML page from a proxy, say). @since 0.1.0 */
export const unexpectedResponse = "unexpected_response"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/**
 * A non-2xx answer, with the fields of its D1 body: `code` (`validation_failed`,
 * `resource_not_found`, …), `message`, `param` (the input at fault), `details`, and
 * `requestId` (the `Request-Id` header, to quote to Tender's operator). `body` is the body as
 * parsed. An answer whose body is not a D1 error has `code` `"unexpected_response"`.
 *
 * @since 0.1.0 @category errors
 */
export class TenderApiError extends Error {
  override readonly name = "TenderApiError"
  /** The HTTP status. */
  readonly status: number
  /** The D1 code. */
  readonly code: ErrorCode | typeof unexpectedResponse | (string & {})
  /** The input at fault: a dotted body path, a query parameter or a header name. */
  readonly param: string | undefined
  /** Every problem found, when there was more than one. */
  readonly details: ReadonlyArray<ErrorDetail> | undefined
  /** The request id Tender gave the request (D1 `request_id`, the `Request-Id` header). */
  readonly requestId: string | undefined
  /** The response body as parsed (JSON), or its text. */
  readonly body: unknown

  constructor(status: number, body: unknown, requestId?: string) {
    const error = isRecord(body) && isRecord(body["error"]) && typeof body["error"]["code"] === "string" ? body["error"] : undefined
    super(
      error !== undefined && typeof error["message"] === "string"
        ? error["message"]
        : `HTTP ${status} without a Tender error body`
    )
    this.status = status
    this.body = body
    this.code = error !== undefined ? error["code"] as string : unexpectedResponse
    this.param = typeof error?.["param"] === "string" ? error["param"] : undefined
    this.details = Array.isArray(error?.["details"]) ? error["details"] as Array<ErrorDetail> : undefined
    const id = typeof error?.["request_id"] === "string" ? error["request_id"] : requestId
    this.requestId = id === undefined || id === null || id === "" ? undefined : id
  }
}

/**
 * No answer: the connection failed or `timeoutMs` passed, on every attempt. `cause` holds the
 * last failure. A POST that ended so may or may not have run: retry it with the same
 * `idempotencyKey` (`attempts` were made with it) to learn which.
 *
 * @since 0.1.0 @category errors
 */
export class TenderConnectionError extends Error {
  override readonly name = "TenderConnectionError"
  /** How many requests were sent. */
  readonly attempts: number
  /** The `Idempotency-Key` every attempt carried (POST only). */
  readonly idempotencyKey: string | undefined

  constructor(url: string, attempts: number, idempotencyKey: string | undefined, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(`No answer from ${url} after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${reason}`, { cause })
    this.attempts = attempts
    this.idempotencyKey = idempotencyKey
  }
}
