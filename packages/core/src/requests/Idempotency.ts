/**
 * Idempotency (4.9, D5): the `Idempotency-Key` header's rules and the canonical request
 * fingerprint. The pipeline that applies them to a POST is `Operation.run`.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { ValidationFailed } from "../resources/Errors.js"
import { fingerprint } from "./Canonical.js"

/** How long a key is kept: 24 hours after the first request (4.9.4). @since 0.1.0 */
export const retentionMillis = 24 * 60 * 60 * 1000

/**
 * How long an in-flight claim holds. A process that dies mid-request leaves a claim that
 * lapses after this, and the retry then proceeds (never twice at once).
 *
 * @since 0.1.0
 */
export const lockMillis = 60 * 1000

/**
 * How long after its lock lapsed an uncompleted merchant_reference claim is kept: long
 * enough that no request that could still complete it (a stalled process) is alive.
 *
 * @since 0.1.0
 */
export const claimGraceMillis = 24 * 60 * 60 * 1000

/** The header as the error `param` names it (D1). @since 0.1.0 */
export const header = "Idempotency-Key"

/**
 * Validate a raw header value (D5): 1 to 255 printable ASCII characters. `required` for
 * the routes that demand it (4.9.1).
 *
 * @since 0.1.0
 */
export const validateKey = (raw: string | undefined, required = false): Effect.Effect<string | undefined, ValidationFailed> => {
  if (raw === undefined) {
    return required ? Effect.fail(ValidationFailed.at(header, `${header} is required on this route; send a UUID v4.`)) : Effect.succeed(undefined)
  }
  if (raw.length === 0 || raw.length > 255 || !/^[\x20-\x7E]+$/.test(raw)) {
    return Effect.fail(ValidationFailed.at(header, `${header} must be 1 to 255 printable ASCII characters.`))
  }
  return Effect.succeed(raw)
}

/**
 * Whether an operation's refusal with this status is stored on the key and replayed (D5). A
 * 403, 409 or 422 is the operation's decision about a request it accepted: stored like a 2xx.
 * A 400 (the request is malformed or incomplete), 401, 404 (the id names nothing this key can
 * see, yet), 405 and 413 say the request never reached an operation that could run: not
 * stored, so a corrected retry under the same key runs (a confirm retried once the intent
 * exists must not replay a 404). A 429 lifts with time: not stored, so the same key runs
 * once it is allowed again. The HTTP layer answers most of these before a key is
 * claimed; `Operation.run` applies the same rule to the ones an operation finds itself
 * (a path id of the wrong format, an unknown id).
 *
 * @since 0.1.0
 */
export const storesRefusal = (status: number): boolean =>
  status !== 400 && status !== 401 && status !== 404 && status !== 405 && status !== 413 && status !== 429

/** The request fingerprint: route and canonical body (D5). @since 0.1.0 */
export const requestFingerprint = (route: string, canonicalBody: unknown): string => fingerprint({ route, body: canonicalBody })
