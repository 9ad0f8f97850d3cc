/**
 * Webhook signatures after the Standard Webhooks specification (D7): headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one per valid secret. Secrets are
 * `whsec_` followed by the base64 of the key. `sign` is what Tender sends; `verify` is for
 * receivers, and needs nothing but this module.
 *
 * @since 0.1.0
 */
import { Data, Either } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** The prefix of every endpoint secret. @since 0.1.0 */
export const secretPrefix = "whsec_"

/** A new endpoint secret: `whsec_` and 24 random bytes in base64 (192 bits). @since 0.1.0 @category constructors */
export const newSecret = (): string => secretPrefix + randomBytes(24).toString("base64")

/** The HMAC key of a secret: the base64 after `whsec_` (the prefix is optional, as Standard Webhooks allows). */
const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, "base64")

/** One `v1,…` signature of a message under one secret. @since 0.1.0 */
export const signature = (secret: string, id: string, timestamp: number, body: string): string =>
  "v1," + createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")

/** The headers that carry a message: one signature per secret, space-separated (rotation). @since 0.1.0 */
export const sign = (
  secrets: ReadonlyArray<string>,
  message: { readonly id: string; readonly timestamp: number; readonly body: string }
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> => ({
  "webhook-id": message.id,
  "webhook-timestamp": String(message.timestamp),
  "webhook-signature": secrets.map((s) => signature(s, message.id, message.timestamp, message.body)).join(" ")
})

/**
 * Why a webhook was refused: `MissingHeaders`, `InvalidTimestamp`, `TimestampOutOfTolerance`
 * (older or newer than the tolerance: a replay, or a clock far off), `InvalidSignature`.
 *
 * @since 0.1.0 @category errors
 */
export class WebhookVerificationError extends Data.TaggedError("WebhookVerificationError")<{
  readonly reason: "MissingHeaders" | "InvalidTimestamp" | "TimestampOutOfTolerance" | "InvalidSignature"
  readonly message: string
}> {}

/** @since 0.1.0 @category models */
export interface VerifyOptions {
  /** How far the timestamp may be from now, either way. Default 300 s, as Standard Webhooks. */
  readonly toleranceSeconds?: number
  /** Now, in epoch milliseconds. Default the system clock. */
  readonly now?: number
}

const header = (headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, string | ReadonlyArray<string> | undefined>
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1]
  return typeof value === "string" ? value : value?.[0]
}

/**
 * Verify a webhook as received: the raw body exactly as it arrived (bytes or text, never
 * re-serialised JSON), its headers, and the endpoint's secret. Returns the parsed event, or
 * why it was refused. Any one valid `v1` signature in the header is enough, so a receiver
 * keeps working while the sender rotates its secret.
 *
 * @since 0.1.0
 */
export const verify = (
  body: string | Uint8Array,
  headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>,
  secret: string,
  options: VerifyOptions = {}
): Either.Either<unknown, WebhookVerificationError> => {
  const fail = (reason: WebhookVerificationError["reason"], message: string) => Either.left(new WebhookVerificationError({ reason, message }))
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return fail("MissingHeaders", "webhook-id, webhook-timestamp and webhook-signature are required")
  }
  if (!/^\d{1,12}$/.test(timestamp)) return fail("InvalidTimestamp", "webhook-timestamp must be Unix seconds")
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  const tolerance = options.toleranceSeconds ?? 300
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    return fail("TimestampOutOfTolerance", `webhook-timestamp is more than ${tolerance} s from now`)
  }
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8")
  const expected = Buffer.from(signature(secret, id, Number(timestamp), text).slice(3), "base64")
  const matches = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2)
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "base64")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) return fail("InvalidSignature", "no signature matches the secret")
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch {
    return fail("InvalidSignature", "the body is not JSON")
  }
}
