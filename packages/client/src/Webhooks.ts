/**
 * `webhooks.verify`: check a delivery from Tender as it arrived and get its typed event
 * (Standard Webhooks, D7). docs/client.md, "Verifying webhooks".
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import type { TenderEvent } from "./Resources.js"

/**
 * Why a delivery was refused: `missing_headers`, `invalid_timestamp`, `timestamp_out_of_tolerance`
 * (older or newer than the tolerance: a replay, or a clock far off), `invalid_signature` (no
 * signature matches the secret: a wrong secret or a changed body), `invalid_payload` (signed,
 * but not an event). Answer the delivery with a 4xx; Tender retries it later.
 *
 * @since 0.1.0 @category errors
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
  readonly reason: "missing_headers" | "invalid_timestamp" | "timestamp_out_of_tolerance" | "invalid_signature" | "invalid_payload"

  constructor(reason: WebhookVerificationError["reason"], message: string) {
    super(message)
    this.reason = reason
  }
}

/** @since 0.1.0 @category models */
export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300 (Standard Webhooks). */
  readonly toleranceSeconds?: number
}

/** The headers as frameworks hand them over: a fetch `Headers`, or Node's (lowercase keys, arrays for repeats). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
  return typeof value === "string" ? value : value?.[0]
}

/** The HMAC key of an endpoint secret: the base64 after `whsec_` (the prefix optional, as Standard Webhooks allows). */
const keyOf = (secret: string): Buffer => {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64")
  if (key.length === 0) throw new TypeError("webhooks.verify: the secret is empty; pass the endpoint's whsec_… secret")
  return key
}

const isEvent = (u: unknown): u is TenderEvent =>
  typeof u === "object" && u !== null && (u as { object?: unknown }).object === "event" &&
  typeof (u as { type?: unknown }).type === "string" && typeof (u as { data?: unknown }).data === "object"

/**
 * Verify one delivery and return its event. `payload` is the raw body exactly as it arrived
 * (the string or bytes, never JSON parsed and serialised again); `headers` the request's
 * headers; `secret` the endpoint's `whsec_…` secret. Any one `v1` signature of the
 * space-separated list is enough, so deliveries keep verifying while Tender signs with an old
 * and a new secret during a rotation. Signatures are compared in constant time.
 *
 * @throws WebhookVerificationError when the delivery is not Tender's, is out of tolerance, or is not an event.
 * @since 0.1.0
 */
export const verify = (
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {}
): TenderEvent => {
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError("missing_headers", "webhook-id, webhook-timestamp and webhook-signature are required")
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp must be Unix seconds")
  const tolerance = options.toleranceSeconds ?? 300
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError("timestamp_out_of_tolerance", `webhook-timestamp is more than ${tolerance} s from now`)
  }
  // The signed content is "{id}.{timestamp}.{body}", over the body's bytes as they arrived.
  const expected = createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.`).update(payload).digest()
  const matches = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2)
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "base64")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) throw new WebhookVerificationError("invalid_signature", "no signature matches the secret")
  let event: unknown
  try {
    event = JSON.parse(typeof payload === "string" ? payload : new TextDecoder().decode(payload))
  } catch {
    throw new WebhookVerificationError("invalid_payload", "the body is not JSON")
  }
  if (!isEvent(event)) throw new WebhookVerificationError("invalid_payload", "the body is not a Tender event")
  return event
}

/** Webhook helpers, as Stripe's `stripe.webhooks`: `webhooks.verify(payload, headers, secret)`. @since 0.1.0 */
export const webhooks = { verify } as const
