/**
 * The host's webhook settings: the key that encrypts endpoint secrets at rest, whether live
 * endpoints may be private addresses, the delivery timeout, how long an endpoint may fail
 * before it is disabled, and how many deliveries resends may queue to one endpoint an hour. Their one
 * home: `WebhookEndpoint`'s re-exports of 0.1.0 are deprecated aliases.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"

/** @since 0.1.0 @category models */
export interface WebhookOptions {
  /**
   * The key that encrypts endpoint secrets at rest: any string; a SHA-256 of it is the
   * AES-256 key. Keep it out of the database. Default: derived from the hosted-checkout
   * secret, so a host that sets one secret has both.
   */
  readonly encryptionKey?: string | undefined
  /** Allow loopback, link-local and private addresses in live (development only). Default false. */
  readonly allowPrivateUrls?: boolean | undefined
  /** How long a receiver may take to answer a delivery. Default 5 s. */
  readonly timeoutMillis?: number | undefined
  /** How long every attempt to an endpoint may fail before it is disabled (docs/webhooks.md). Default 5 days. */
  readonly disableAfterMillis?: number | undefined
  /** How many deliveries resends may queue to one endpoint in an hour; past it a resend is 429 (docs/webhooks.md). Default 5,000. */
  readonly resendsPerHour?: number | undefined
}

/** The webhook settings of the host. @since 0.1.0 @category tags */
export class WebhookConfig extends Context.Tag("@tender/core/WebhookConfig")<WebhookConfig, {
  readonly encrypt: (secret: string) => string
  readonly decrypt: (stored: string) => string
  readonly allowPrivateUrls: boolean
  readonly timeoutMillis: number
  readonly disableAfterMillis: number
  readonly resendsPerHour: number
}>() {}

/** The settings from the host's options. @since 0.1.0 @category layers */
export const layerConfig = (options: WebhookOptions & { readonly fallbackKey: string }): Layer.Layer<WebhookConfig> =>
  Layer.sync(WebhookConfig, () => {
    const key = createHash("sha256").update(options.encryptionKey ?? `tender:webhook-secrets:${options.fallbackKey}`).digest()
    return {
      // iv.tag.ciphertext, base64url: a fresh 96-bit IV per secret, authenticated.
      encrypt: (secret) => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", key, iv)
        const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
        return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".")
      },
      decrypt: (stored) => {
        const [iv, tag, body] = stored.split(".").map((p) => Buffer.from(p, "base64url"))
        const decipher = createDecipheriv("aes-256-gcm", key, iv!)
        decipher.setAuthTag(tag!)
        return Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8")
      },
      allowPrivateUrls: options.allowPrivateUrls ?? false,
      timeoutMillis: options.timeoutMillis ?? 5_000,
      disableAfterMillis: options.disableAfterMillis ?? 5 * 24 * 60 * 60 * 1000,
      resendsPerHour: options.resendsPerHour ?? 5_000
    }
  })
