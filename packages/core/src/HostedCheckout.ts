/**
 * Signed, expiring URLs of the hosted checkout page (2.3, 4.1.1). The page itself is
 * served by the HTTP binding; this service only signs and verifies its address.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** @since 0.1.0 @category models */
export interface HostedCheckoutOptions {
  /** Public base URL of the host, where the HTTP binding is mounted, e.g. `https://pay.example.com`. */
  readonly baseUrl: string
  /** HMAC key for the URL signature; keep it secret and stable across processes. */
  readonly secret: string
  /** How long a checkout URL stays valid. Default 1 hour. */
  readonly ttlMillis?: number
}

/** @since 0.1.0 @category tags */
export class HostedCheckout extends Context.Tag("@tender/core/HostedCheckout")<HostedCheckout, {
  /** A signed URL for `paymentIntentId`, valid from `now` for the configured TTL. */
  readonly urlFor: (paymentIntentId: string, now: number) => { readonly url: string; readonly expiresAt: number }
  /** Whether `signature` is valid for the id and expiry and the expiry is after `now`. */
  readonly verify: (paymentIntentId: string, expiresAt: number, signature: string, now: number) => boolean
}>() {}

const sign = (secret: string, id: string, expiresAt: number) =>
  createHmac("sha256", secret).update(`${id}.${expiresAt}`).digest("base64url")

/** @since 0.1.0 @category constructors */
export const make = (options: HostedCheckoutOptions): HostedCheckout["Type"] => {
  const base = options.baseUrl.replace(/\/$/, "")
  const ttl = options.ttlMillis ?? 60 * 60 * 1000
  return {
    urlFor: (id, now) => {
      const expiresAt = now + ttl
      return { url: `${base}/checkout/${id}?expires=${expiresAt}&signature=${sign(options.secret, id, expiresAt)}`, expiresAt }
    },
    verify: (id, expiresAt, signature, now) => {
      const expected = Buffer.from(sign(options.secret, id, expiresAt))
      const given = Buffer.from(signature)
      return expiresAt > now && expected.length === given.length && timingSafeEqual(expected, given)
    }
  }
}

/** @since 0.1.0 @category layers */
export const layer = (options: HostedCheckoutOptions): Layer.Layer<HostedCheckout> =>
  Layer.succeed(HostedCheckout, make(options))
