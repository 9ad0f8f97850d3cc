/**
 * The webhook transport port (D7): the outbound HTTP request a delivery makes, and what came
 * back. `DeliveryClient.layer()` is the implementation Tender ships.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Context } from "effect"

/** One delivery request. @since 0.1.0 @category models */
export interface DeliveryRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeoutMillis: number
  /**
   * Whether the receiver may be at a non-public address: true for test endpoints and when
   * the host sets `webhooks.allowPrivateUrls`; false for live endpoints, which the
   * transport must refuse to connect to anywhere but a public address (SSRF).
   */
  readonly allowPrivateAddresses: boolean
}

/** What came back: a status, or why there was none (refused, timed out, a redirect not followed is a status). @since 0.1.0 @category models */
export type DeliveryResponse =
  | { readonly _tag: "Answered"; readonly status: number }
  | { readonly _tag: "NoAnswer"; readonly reason: string }

/**
 * The outbound HTTP client: POST, redirects not followed, the response body read up to a
 * small limit and dropped, never longer than `timeoutMillis`, and, unless
 * `allowPrivateAddresses`, no connection to a non-public address. `DeliveryClient.layer()`
 * is the default; `@tender/http`'s `WebhookClient.layer` sends on `@effect/platform`'s
 * `HttpClient`.
 *
 * @since 0.1.0 @category tags
 */
export class WebhookTransport extends Context.Tag("@tender/core/WebhookTransport")<WebhookTransport, {
  readonly send: (request: DeliveryRequest) => Effect.Effect<DeliveryResponse>
}>() {}

/** How much of a receiver's answer is read before it is dropped. @since 0.1.0 */
export const maxResponseBytes = 64 * 1024
