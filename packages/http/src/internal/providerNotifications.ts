/**
 * The handlers of `POST /provider_notifications/{provider}` (D11) and of a merchant's own
 * account's door, `/provider_notifications/{provider}/{account_id}` (D13). The body is read here as bytes,
 * untouched (no JSON parse, no charset decoding: the provider signed these exact bytes), at most
 * 1 MiB; the adapter verifies and reads it (`ProviderNotifications.receive`), and its answer is
 * sent as the provider expects it.
 */
import type { HttpServerRequest } from "@effect/platform"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Errors, ProviderNotifications } from "@tender/core"
import { Effect } from "effect"
import { TenderApi } from "../Api.js"
import { maxJsonBodyBytes } from "../Middleware.js"
import * as Body from "./body.js"

const tooLarge = () => new Errors.PayloadTooLarge({ param: "body", message: `The request body is larger than ${maxJsonBodyBytes} bytes.` })

/** The headers as the port gives them: names lower-cased, a repeated header's lines joined with ", ". */
const headersOf = (request: HttpServerRequest.HttpServerRequest): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") out[name.toLowerCase()] = value
  }
  return out
}

const receive = (provider: string, request: HttpServerRequest.HttpServerRequest, account?: string) =>
  Effect.gen(function*() {
    if (Number(request.headers["content-length"] ?? "0") > maxJsonBodyBytes) return yield* tooLarge()
    const body = yield* Body.bytes(request, maxJsonBodyBytes).pipe(
      Effect.mapError((error) => error._tag === "BodyTooLarge" ? tooLarge() : Errors.ValidationFailed.at("body", "The request body could not be read."))
    )
    const answer = yield* ProviderNotifications.receive(provider, { headers: headersOf(request), body }, account).pipe(
      Effect.catchTags({
        UnknownNotificationProvider: () =>
          Effect.fail(
            account === undefined
              ? new Errors.ResourceNotFound({ param: "provider", message: `No installed provider ${JSON.stringify(provider)} takes notifications.` })
              : new Errors.ResourceNotFound({
                param: "account",
                message: `No ${JSON.stringify(provider)} account ${JSON.stringify(account)} takes notifications.`
              })
          ),
        NotificationUnstorable: (e) =>
          Effect.fail(Errors.ValidationFailed.at("body", `The notification is signed, but ${e.reason}, which no store keeps; nothing was stored.`)),
        NotificationUnverified: (e) =>
          Effect.zipRight(
            Effect.logDebug("tender: a provider notification could not be verified", e.provider, e.reason),
            Effect.fail(new Errors.SignatureInvalid({ message: "The notification's signature could not be verified; nothing was stored." }))
          ),
        // The adapter's fault, logged by `receive`: the provider sends it again later, as after an outage.
        NotificationUnreadable: () =>
          Effect.fail(
            new Errors.ServiceUnavailable({ message: "The notification was verified but could not be read; nothing was stored. Send it again later." })
          )
      })
    )
    return HttpServerResponse.text(answer.body, { status: answer.status, contentType: answer.contentType })
  })

/** The providers' door's handler. @since 0.1.0 */
export const layer = HttpApiBuilder.group(TenderApi, "providerNotifications", (handlers) =>
  handlers
    .handleRaw("receive", ({ path, request }) => receive(path.provider, request))
    .handleRaw("receiveForAccount", ({ path, request }) => receive(path.provider, request, path.account)))
