/**
 * Signed, expiring URLs of the hosted checkout page (2.3, 4.1.1). The page itself is
 * served by the HTTP binding; this service signs and verifies its address, rotates the
 * signing key, and binds the page's form tokens (CSRF) to the link.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** How the page looks: the host's brand (docs/hosted-checkout.md). @since 0.1.0 @category models */
export interface Appearance {
  /** Shown as the payee; default the merchant's own name from the seed. */
  readonly merchantName?: string | undefined
  /** Buttons, links and focus rings, as `#rrggbb`. Default `#0b57d0`. */
  readonly accentColor?: string | undefined
  /** The page background, as `#rrggbb`. Default `#f6f7f9`. */
  readonly backgroundColor?: string | undefined
}

/** @since 0.1.0 @category models */
export interface HostedCheckoutOptions {
  /** Public base URL of the host, where the HTTP binding is mounted, e.g. `https://pay.example.com` or `https://shop.example/pay`. */
  readonly baseUrl: string
  /** HMAC key for the URL signature; keep it secret and stable across processes. */
  readonly secret: string
  /**
   * Keys signed with before a rotation: links they signed stay valid until they expire (at most
   * `ttlMillis` after the rotation), then they can be dropped. New links use `secret` alone.
   */
  readonly previousSecrets?: ReadonlyArray<string> | undefined
  /** How long a checkout URL stays valid. Default 1 hour. */
  readonly ttlMillis?: number
  /** The page's merchant name and colours. */
  readonly appearance?: Appearance | undefined
}

/** What a link is worth: `valid`, `invalid` (forged, tampered, for another intent) or `expired` (genuine, too old). @since 0.1.0 @category models */
export type LinkCheck = "valid" | "invalid" | "expired"

/** @since 0.1.0 @category tags */
export class HostedCheckout extends Context.Tag("@tender/core/HostedCheckout")<HostedCheckout, {
  /** A signed URL for `paymentIntentId`, valid from `now` for the configured TTL. */
  readonly urlFor: (paymentIntentId: string, now: number) => { readonly url: string; readonly expiresAt: number }
  /** Whether `signature` is valid for the id and expiry and the expiry is after `now`. */
  readonly verify: (paymentIntentId: string, expiresAt: number, signature: string, now: number) => boolean
  /** The link's standing: its signature first (current key, then previous keys), then its expiry. */
  readonly check: (paymentIntentId: string, expiresAt: number, signature: string, now: number) => LinkCheck
  /** The URL of the page (or one of its actions, `suffix` such as `/pay`) under the base URL, without the link's query. */
  readonly pageUrl: (paymentIntentId: string, suffix?: string) => string
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string
  /**
   * A form token bound to the link and to a browser nonce (a SameSite cookie): a cross-site page
   * can neither read the nonce nor make the browser send it, so it cannot forge the token.
   */
  readonly formToken: (paymentIntentId: string, expiresAt: number, nonce: string) => string
  /** Whether `token` is the form token for the link and nonce, compared in constant time. */
  readonly checkFormToken: (paymentIntentId: string, expiresAt: number, nonce: string, token: string) => boolean
  readonly appearance: Appearance
}>() {}

const hmac = (secret: string, data: string) => createHmac("sha256", secret).update(data).digest("base64url")

const sign = (secret: string, id: string, expiresAt: number) => hmac(secret, `${id}.${expiresAt}`)

/** Constant-time equality of two strings (lengths may differ: then false, still without early exit on content). */
const same = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** @since 0.1.0 @category constructors */
export const make = (options: HostedCheckoutOptions): HostedCheckout["Type"] => {
  const base = options.baseUrl.replace(/\/+$/, "")
  const ttl = options.ttlMillis ?? 60 * 60 * 1000
  const keys = [options.secret, ...(options.previousSecrets ?? [])]
  const check = (id: string, expiresAt: number, signature: string, now: number): LinkCheck => {
    if (!Number.isSafeInteger(expiresAt)) return "invalid"
    // Every key is tried (no early exit), so the time taken says nothing about which key matched.
    let genuine = false
    for (const key of keys) genuine = same(sign(key, id, expiresAt), signature) || genuine
    if (!genuine) return "invalid"
    return expiresAt > now ? "valid" : "expired"
  }
  // The form token's key is derived from the current secret: rotating the secret ends open forms, not links.
  const formKey = hmac(options.secret, "tender hosted checkout form token")
  const formToken = (id: string, expiresAt: number, nonce: string) => hmac(formKey, `${id}.${expiresAt}.${nonce}`)
  return {
    baseUrl: base,
    appearance: options.appearance ?? {},
    urlFor: (id, now) => {
      const expiresAt = now + ttl
      return { url: `${base}/checkout/${id}?expires=${expiresAt}&signature=${sign(options.secret, id, expiresAt)}`, expiresAt }
    },
    verify: (id, expiresAt, signature, now) => check(id, expiresAt, signature, now) === "valid",
    check,
    pageUrl: (id, suffix = "") => `${base}/checkout/${id}${suffix}`,
    formToken,
    checkFormToken: (id, expiresAt, nonce, token) => nonce.length >= 16 && same(formToken(id, expiresAt, nonce), token)
  }
}

/** @since 0.1.0 @category layers */
export const layer = (options: HostedCheckoutOptions): Layer.Layer<HostedCheckout> => Layer.succeed(HostedCheckout, make(options))
