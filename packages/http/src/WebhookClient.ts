/**
 * Webhook deliveries over `@effect/platform`'s `HttpClient` (D7): the transport core's
 * delivery worker sends through. A POST with the signed headers, redirects not followed (a
 * 3xx is an answer, and not a 2xx), at most `WebhookDelivery.maxResponseBytes` of the answer
 * read and dropped, and nothing takes longer than the delivery timeout.
 *
 * @since 0.1.0
 */
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { WebhookDelivery } from "@tender/core"
import { Duration, Effect, Layer, Stream } from "effect"

/**
 * The transport on the `HttpClient` provided (the host's own, with its proxies and agents).
 *
 * @since 0.1.0 @category layers
 */
export const layer: Layer.Layer<WebhookDelivery.WebhookTransport, never, HttpClient.HttpClient> = Layer.effect(
  WebhookDelivery.WebhookTransport,
  Effect.map(HttpClient.HttpClient, (client) =>
    WebhookDelivery.WebhookTransport.of({
      send: (request) =>
        client.execute(
          HttpClientRequest.post(request.url).pipe(
            HttpClientRequest.setHeaders(request.headers),
            HttpClientRequest.bodyText(request.body, "application/json")
          )
        ).pipe(
          Effect.flatMap((response) =>
            // Read a little of the answer, so the connection can be reused, and drop it.
            response.stream.pipe(
              Stream.scan(0, (n, chunk) => n + chunk.length),
              Stream.takeWhile((n) => n <= WebhookDelivery.maxResponseBytes),
              Stream.runDrain,
              Effect.ignore,
              Effect.as({ _tag: "Answered" as const, status: response.status })
            )
          ),
          Effect.scoped,
          // Workers run a task uninterruptibly; the request alone may be cut off, or the timeout never could.
          Effect.interruptible,
          Effect.timeoutFail({
            duration: Duration.millis(request.timeoutMillis),
            onTimeout: () => ({ _tag: "NoAnswer" as const, reason: `no answer within ${request.timeoutMillis} ms` })
          }),
          Effect.catchAll((e): Effect.Effect<WebhookDelivery.DeliveryResponse> =>
            Effect.succeed("_tag" in e && e._tag === "NoAnswer" ? e : { _tag: "NoAnswer", reason: "connection failed" })
          )
        )
    }))
)

/**
 * The transport on the runtime's `fetch` through `FetchHttpClient`, redirects not followed.
 *
 * @since 0.1.0 @category layers
 */
export const layerFetch: Layer.Layer<WebhookDelivery.WebhookTransport> = layer.pipe(
  Layer.provide(FetchHttpClient.layer),
  Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" }))
)
