/**
 * Webhook deliveries over `@effect/platform`'s `HttpClient` (D7): the transport core's
 * delivery worker sends through. A POST with the signed headers, redirects not followed (a
 * 3xx is an answer, and not a 2xx), at most `WebhookTransport.maxResponseBytes` of the answer
 * read and dropped, and nothing takes longer than the delivery timeout: a status that came in
 * time is the answer even when its body is still arriving.
 *
 * SSRF (docs/webhooks.md, "URL rules"): for a live endpoint the host name is resolved and every
 * address checked before the request is handed to the client; a non-public one is a failed
 * attempt, no request made. The host's `HttpClient` then resolves the name again itself, so
 * only `layerFetch` (core's `DeliveryClient`, which connects to the address it checked) closes
 * the window a DNS-rebinding name could use; a host that brings its own client pins it, or
 * sends through an egress proxy that does.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { DeliveryClient, PublicAddress, WebhookTransport } from "@tender/core"
import { Duration, Effect, Layer, Stream } from "effect"

/** Why a live request must not be made (a non-public address), checked before the client has it. */
const refusal = (request: WebhookTransport.DeliveryRequest, resolve: PublicAddress.Resolver) =>
  request.allowPrivateAddresses ? Effect.succeed(undefined) : Effect.promise(async (): Promise<WebhookTransport.DeliveryResponse | undefined> => {
    let host: string
    try {
      host = new URL(request.url).hostname
    } catch {
      return { _tag: "NoAnswer", reason: "refused: not an absolute URL" }
    }
    const checked = await PublicAddress.resolvePublic(host, { resolve, check: true })
    return checked._tag === "Refused" ? { _tag: "NoAnswer", reason: checked.reason } : undefined
  })

/** POST on the client; the status, the answer read up to the limit and dropped. `seen` holds the status once it came. */
const post = (client: HttpClient.HttpClient, request: WebhookTransport.DeliveryRequest, seen: { status: number | undefined }) =>
  client.execute(
    HttpClientRequest.post(request.url).pipe(
      HttpClientRequest.setHeaders(request.headers),
      HttpClientRequest.bodyText(request.body, "application/json")
    )
  ).pipe(
    Effect.tap((response) => {
      seen.status = response.status
    }),
    Effect.flatMap((response) =>
      // Read a little of the answer, so the connection can be reused, and drop it.
      response.stream.pipe(
        Stream.scan(0, (n, chunk) => n + chunk.length),
        Stream.takeWhile((n) => n <= WebhookTransport.maxResponseBytes),
        Stream.runDrain,
        Effect.ignore,
        Effect.as<WebhookTransport.DeliveryResponse>({ _tag: "Answered", status: response.status })
      )
    ),
    Effect.scoped,
    Effect.orElseSucceed((): WebhookTransport.DeliveryResponse => ({ _tag: "NoAnswer", reason: "connection failed" }))
  )

/**
 * The transport on the `HttpClient` provided, with the resolver of the live check
 * (default: the system's; a test injects its own).
 *
 * @since 0.1.0 @category layers
 */
export const layerWith = (
  options: { readonly resolve?: PublicAddress.Resolver | undefined } = {}
): Layer.Layer<WebhookTransport.WebhookTransport, never, HttpClient.HttpClient> =>
  Layer.effect(
    WebhookTransport.WebhookTransport,
    Effect.map(HttpClient.HttpClient, (client) =>
      WebhookTransport.WebhookTransport.of({
        send: (request) =>
          Effect.suspend(() => {
            const seen = { status: undefined as number | undefined }
            return refusal(request, options.resolve ?? PublicAddress.systemResolver).pipe(
              Effect.flatMap((refused) => refused !== undefined ? Effect.succeed(refused) : post(client, request, seen)),
              // Workers run a task uninterruptibly; the request alone may be cut off, or the timeout never could.
              Effect.interruptible,
              Effect.timeoutTo({
                duration: Duration.millis(request.timeoutMillis),
                // A status that came in time is the answer, however slowly the body follows (docs/webhooks.md).
                onTimeout: (): WebhookTransport.DeliveryResponse =>
                  seen.status !== undefined
                    ? { _tag: "Answered", status: seen.status }
                    : { _tag: "NoAnswer", reason: `no answer within ${request.timeoutMillis} ms` },
                onSuccess: (response) => response
              })
            )
          })
      }))
  )

/**
 * The transport on the `HttpClient` provided (the host's own, with its proxies and agents),
 * live requests checked first (see above).
 *
 * @since 0.1.0 @category layers
 */
export const layer: Layer.Layer<WebhookTransport.WebhookTransport, never, HttpClient.HttpClient> = layerWith()

/**
 * The delivery client Tender ships, core's `DeliveryClient.layer()`: `node:http(s)`, live
 * requests connected only to the public address checked, redirects not followed. (It was
 * the runtime's `fetch` through `FetchHttpClient`, which cannot pin the address; the name
 * stays.)
 *
 * @since 0.1.0 @category layers
 */
export const layerFetch: Layer.Layer<WebhookTransport.WebhookTransport> = DeliveryClient.layer()
