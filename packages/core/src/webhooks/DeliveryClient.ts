/**
 * The delivery client Tender ships (D7; SSRF, docs/webhooks.md, "URL rules"): the default
 * `WebhookTransport`, on `node:http` and `node:https`. Before it connects it resolves the
 * endpoint's host name itself, checks every address (`PublicAddress.resolvePublic`), and
 * connects to the checked address and no other (a `lookup` pinned to it, so the name is not
 * resolved again between the check and the connection). A non-public address is no
 * connection at all: the attempt is recorded as failed with the reason (`refused: … resolves
 * to a non-public address …`). The check applies to live endpoints; test endpoints and a host
 * with `webhooks.allowPrivateUrls` skip it (`DeliveryRequest.allowPrivateAddresses`).
 *
 * Redirects are not followed (a 3xx is an answer, and not a 2xx); at most
 * `WebhookTransport.maxResponseBytes` of the answer is read and dropped; nothing takes longer
 * than the delivery timeout. The status line is the answer: a body still arriving at the
 * timeout is cut off, and the attempt counts by the status that came. Each attempt has a connection of its own (no pooled socket
 * opened for one endpoint's check carries another's request).
 *
 * @since 0.1.0
 */
import { Duration, Effect, Layer } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import * as PublicAddress from "./PublicAddress.js"
import type { DeliveryRequest, DeliveryResponse } from "./WebhookTransport.js"
import { maxResponseBytes, WebhookTransport } from "./WebhookTransport.js"

/** @since 0.1.0 @category models */
export interface Options {
  /** How host names are resolved. Default: the system resolver (`dns.lookup`, all addresses). */
  readonly resolve?: PublicAddress.Resolver | undefined
  /** Certificate authorities to trust instead of Node's bundled ones (a private CA, a test). */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer> | undefined
}

/** What came back so far: the status line, once it has arrived. */
interface Seen {
  status: number | undefined
}

/** POST the body to the checked address; the status, or why none came. */
const post = (
  url: URL,
  target: PublicAddress.Resolved,
  request: DeliveryRequest,
  options: Options,
  signal: AbortSignal,
  seen: Seen
) =>
  new Promise<DeliveryResponse>((resolve) => {
    let settled = false
    const settle = (response: DeliveryResponse) => {
      if (settled) return
      settled = true
      resolve(response)
    }
    const send = url.protocol === "https:" ? https.request : http.request
    const onResponse = (res: http.IncomingMessage) => {
      const status = res.statusCode ?? 0
      seen.status = status
      let read = 0
      // Read a little of the answer and drop it; past the limit, stop reading.
      res.on("data", (chunk: Buffer) => {
        read += chunk.length
        if (read > maxResponseBytes) {
          settle({ _tag: "Answered", status })
          res.destroy()
        }
      })
      res.on("end", () => settle({ _tag: "Answered", status }))
      res.on("error", () => settle({ _tag: "Answered", status }))
    }
    let req: http.ClientRequest
    try {
      req = send(url, {
        method: "POST",
        headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
        agent: false,
        lookup: PublicAddress.pinnedLookup(target),
        signal,
        ...(options.ca === undefined ? {} : { ca: options.ca as Array<string | Buffer> })
      }, onResponse)
    } catch {
      // A request Node refuses to build (a header value it will not send) is a failed attempt, not a defect.
      return settle({ _tag: "NoAnswer", reason: "refused: the request could not be built" })
    }
    req.on("error", () => settle({ _tag: "NoAnswer", reason: "connection failed" }))
    req.end(request.body)
  })

/**
 * Send one delivery: check, connect to the checked address, POST.
 *
 * @since 0.1.0
 */
export const send = (request: DeliveryRequest, options: Options = {}): Effect.Effect<DeliveryResponse> =>
  Effect.suspend(() => {
    const seen: Seen = { status: undefined }
    return Effect.promise(async (signal): Promise<DeliveryResponse> => {
      let url: URL
      try {
        url = new URL(request.url)
      } catch {
        return { _tag: "NoAnswer", reason: "refused: not an absolute URL" }
      }
      if (url.protocol !== "https:" && url.protocol !== "http:") return { _tag: "NoAnswer", reason: "refused: not an http(s) URL" }
      const checked = await PublicAddress.resolvePublic(url.hostname, {
        resolve: options.resolve ?? PublicAddress.systemResolver,
        check: !request.allowPrivateAddresses
      })
      if (checked._tag === "Refused") return { _tag: "NoAnswer", reason: checked.reason }
      return await post(url, checked, request, options, signal, seen)
    }).pipe(
      // Workers run a task uninterruptibly; the request alone may be cut off, or the timeout never could.
      Effect.interruptible,
      Effect.timeoutTo({
        duration: Duration.millis(request.timeoutMillis),
        // A status line that came in time is the answer, however slowly the body follows: the body
        // is only drained, and the interruption closes the connection (docs/webhooks.md).
        onTimeout: (): DeliveryResponse =>
          seen.status !== undefined
            ? { _tag: "Answered", status: seen.status }
            : { _tag: "NoAnswer", reason: `no answer within ${request.timeoutMillis} ms` },
        onSuccess: (response) => response
      })
    )
  })

/**
 * The delivery client as the `WebhookTransport` (`Tender.layer`'s default).
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<WebhookTransport> =>
  Layer.succeed(WebhookTransport, WebhookTransport.of({ send: (request) => send(request, options) }))
