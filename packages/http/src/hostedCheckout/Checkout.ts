/**
 * The hosted checkout's handlers (`HostedCheckoutGroup`): verify the link, then show the view
 * the intent's state calls for, or perform the payer's form through `@tender/core`
 * (`HostedPayment`, `SimulatorPayer`). Every form is posted back here and answered with a
 * redirect to the page (post/redirect/get) or, when refused, the same view with the reason.
 * Nothing here fails: every fault becomes a page without a stack trace or intent data.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpApiError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ApiResponse, Errors, HostedCheckout, HostedPayment, PaymentIntent, SimulatorPayer } from "@tender/core"
import { Effect, Schema } from "effect"
import { TenderApi } from "../Api.js"
import { currentRequestId } from "../internal/current.js"
import { isApiError } from "../internal/errorSchema.js"
import { fromDecodeError, toHttp } from "../Middleware.js"
import * as Upload from "../Upload.js"
import { respond, securityHeaders } from "./Html.js"
import { bank, bankAnswer } from "./internal/bank.js"
import { browserNonce, linkOf, Refused, verify } from "./internal/link.js"
import { asCreateFields, entriesOf, errorsOf, formBody, PayerEntries } from "./internal/payerForm.js"
import { contextFor, formRoute, guarded, refusedPage, seeOther, toReturnUrl, view } from "./internal/views.js"

const page = (id: string, request: HttpServerRequest.HttpServerRequest) => {
  const link = linkOf(id, request)
  return guarded(
    link.lang,
    Effect.gen(function*() {
      const intent = yield* verify(link)
      const hosted = yield* HostedCheckout.HostedCheckout
      const { headers, nonce } = browserNonce(request, hosted.baseUrl)
      // 4.1.4: a terminal intent sends the payer to return_url exactly as given; without one, the final page.
      if (PaymentIntent.isTerminal(intent.status)) {
        const leave = yield* toReturnUrl(intent, link.lang)
        if (leave !== undefined) return leave
      }
      const c = yield* contextFor(link, intent, nonce)
      const shown = yield* view(c, link.query.get("method") ?? undefined, undefined, undefined)
      return respond({ ...shown, headers })
    })
  )
}

const pay = formRoute(({ c, intent, request }) =>
  Effect.gen(function*() {
    const body = yield* formBody(request)
    const method = body.get("method") ?? ""
    const values = yield* entriesOf(intent, method, body)
    const again = (errors: Record<string, ReadonlyArray<string>>) =>
      Effect.map(view(c, method, { values, errors }, undefined), (shown) => respond({ ...shown, status: 400 }))
    // The formats first, as the API checks a create body (same schemas, same messages); only the
    // fields the payer filled: a key given as undefined is a value the options refuse.
    const decoded = yield* Schema.decodeUnknown(PayerEntries)(asCreateFields(values)).pipe(
      Effect.map(() => undefined),
      Effect.catchAll((e) => Effect.map(HttpApiError.HttpApiDecodeError.fromParseError(e), fromDecodeError))
    )
    if (decoded !== undefined) return yield* again(errorsOf(decoded))
    const paid = yield* HostedPayment.pay(intent, method, values).pipe(Effect.either)
    if (paid._tag === "Left") {
      const error = paid.left
      if (error._tag === "PaymentIntentUnexpectedState") return seeOther(c.urls.page())
      if (isApiError(error)) return yield* again(errorsOf(error))
      return yield* Effect.fail(error)
    }
    return seeOther(c.urls.page())
  })
)

const receipt = formRoute(({ c, intent, request }) =>
  Effect.gen(function*() {
    const refuse = (message: string) => Effect.map(view(c, undefined, undefined, message), (p) => respond({ ...p, status: 400 }))
    if (!Upload.isMultipart(request)) return yield* refuse("Send the slip as a file.")
    const bytes = yield* Effect.either(Upload.file(request))
    if (bytes._tag === "Left") return yield* refuse(bytes.left.message)
    const answer = yield* HostedPayment.submitReceipt(intent, bytes.right)
    const message = HostedPayment.refusal(answer)
    return message === undefined ? seeOther(c.urls.page()) : yield* refuse(message)
  })
)

// D9: the simulated payer exists in the test environment only.
const simulate = formRoute(({ c, intent, request }) =>
  Effect.gen(function*() {
    const action = (yield* formBody(request)).get("action")
    if (action === "scan_done" || action === "transfer_made") yield* SimulatorPayer.act(intent, action)
    return seeOther(c.urls.page())
  }), { testOnly: true })

const status = (id: string, request: HttpServerRequest.HttpServerRequest) => {
  const link = linkOf(id, request)
  return Effect.gen(function*() {
    const requestId = yield* currentRequestId
    const verified = yield* Effect.either(verify(link))
    if (verified._tag === "Left") {
      const error = verified.left instanceof Refused && verified.left.kind === "expiredLink"
        ? new Errors.ResourceNotFound({ message: "This payment link has expired." })
        : new Errors.ResourceNotFound({ message: "This payment link is not valid." })
      return HttpServerResponse.setHeaders(toHttp(ApiResponse.fromError(error, requestId)), securityHeaders)
    }
    const intent = verified.right
    const hosted = yield* HostedCheckout.HostedCheckout
    const terminal = PaymentIntent.isTerminal(intent.status)
    // Where the page goes once the intent is final: return_url as given (4.1.4), else the final page.
    const redirect = !terminal ? null : intent.returnUrl ?? (hosted.pageUrl(intent.id) + "?" + new URLSearchParams({
      expires: String(link.expires),
      signature: link.signature,
      lang: link.lang
    }).toString())
    return HttpServerResponse.text(JSON.stringify({ status: intent.status, version: intent.version, redirect_url: redirect }), {
      contentType: "application/json",
      headers: securityHeaders
    })
  }).pipe(Effect.catchAllCause(refusedPage(link.lang)))
}

/** The hosted checkout group's handlers. @since 0.1.0 */
export const layer = HttpApiBuilder.group(TenderApi, "hostedCheckout", (handlers) =>
  handlers
    .handleRaw("page", ({ path, request }) => page(path.id, request))
    .handleRaw("pay", ({ path, request }) => pay(path.id, request))
    .handleRaw("receipt", ({ path, request }) => receipt(path.id, request))
    .handleRaw("simulate", ({ path, request }) => simulate(path.id, request))
    .handleRaw("status", ({ path, request }) => status(path.id, request))
    .handleRaw("bank", ({ path, request }) => bank(path.bank, path.payment, request))
    .handleRaw("bankAnswer", ({ path, request }) => bankAnswer(path.payment, request)))
