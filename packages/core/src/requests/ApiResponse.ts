/**
 * A rendered response: what the HTTP binding sends and what idempotency stores and
 * replays byte for byte (4.9.4, D5).
 *
 * @since 0.1.0
 */
import type { ApiError } from "../resources/Errors.js"
import { errorBody } from "../resources/Errors.js"
import type { StoredResponse } from "../storage/Storage.js"

/** @since 0.1.0 @category models */
export interface ApiResponse extends StoredResponse {
  /** True when this is a stored response replayed for an `Idempotency-Key` (D5). */
  readonly replayed: boolean
  /**
   * Set on a refusal that a later retry of the same request resolves, sent as `Retry-After`
   * (whole seconds): a rate limit (429), or a conflict whose original is still in flight
   * (4.9.6). A conflict that stays (4.9.5) has none, so a client tells the two apart on the
   * wire. Never stored: such an answer is not final.
   */
  readonly retryAfterSeconds?: number | undefined
  /**
   * The value `body` renders, when this process rendered it: an in-process caller (the Promise
   * API of `@tender/server`) takes it as it is instead of parsing `body` back. Never stored, so
   * a replay (D5) has only the text.
   */
  readonly value?: unknown
}

/** A JSON success. @since 0.1.0 @category constructors */
export const json = (status: number, value: unknown, requestId: string): ApiResponse => ({
  status,
  body: JSON.stringify(value),
  requestId,
  replayed: false,
  value
})

/** An error in the D1 body. @since 0.1.0 @category constructors */
export const fromError = (error: ApiError, requestId: string): ApiResponse => {
  const value = errorBody(error, requestId)
  return {
    status: error.status,
    body: JSON.stringify(value),
    requestId,
    replayed: false,
    value,
    ...(error._tag === "RateLimited" ? { retryAfterSeconds: error.retryAfterSeconds } : {})
  }
}

/**
 * How long a client waits before retrying a request whose original is still in flight (4.9.6):
 * long enough for a typical provider call to finish.
 *
 * @since 0.1.0 @category constants
 */
export const inFlightRetryAfterSeconds = 1

/** An error a retry of the same request resolves once the original finishes (4.9.6), with `Retry-After`. @since 0.1.0 @category constructors */
export const retryLater = (error: ApiError, requestId: string): ApiResponse => ({
  ...fromError(error, requestId),
  retryAfterSeconds: inFlightRetryAfterSeconds
})

/** A stored response, marked as replayed. @since 0.1.0 @category constructors */
export const replay = (stored: StoredResponse): ApiResponse => ({ status: stored.status, body: stored.body, requestId: stored.requestId, replayed: true })
