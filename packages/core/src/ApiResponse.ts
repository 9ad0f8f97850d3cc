/**
 * A rendered response: what the HTTP binding sends and what idempotency stores and
 * replays byte for byte (4.9.4, D5).
 *
 * @since 0.1.0
 */
import type { ApiError } from "./Errors.js"
import { errorBody } from "./Errors.js"
import type { StoredResponse } from "./Storage.js"

/** @since 0.1.0 @category models */
export interface ApiResponse extends StoredResponse {
  /** True when this is a stored response replayed for an `Idempotency-Key` (D5). */
  readonly replayed: boolean
  /** A refusal that lifts later (429): whole seconds until then, sent as `Retry-After`. */
  readonly retryAfterSeconds?: number | undefined
}

/** A JSON success. @since 0.1.0 @category constructors */
export const json = (status: number, value: unknown, requestId: string): ApiResponse => ({
  status,
  body: JSON.stringify(value),
  requestId,
  replayed: false
})

/** An error in the D1 body. @since 0.1.0 @category constructors */
export const fromError = (error: ApiError, requestId: string): ApiResponse => ({
  status: error.status,
  body: JSON.stringify(errorBody(error, requestId)),
  requestId,
  replayed: false,
  ...(error._tag === "RateLimited" ? { retryAfterSeconds: error.retryAfterSeconds } : {})
})

/** A stored response, marked as replayed. @since 0.1.0 @category constructors */
export const replay = (stored: StoredResponse): ApiResponse => ({ ...stored, replayed: true })
