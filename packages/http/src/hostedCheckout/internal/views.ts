/**
 * The hosted checkout's responses: the view of an intent as it is now, the page context its
 * forms post from, redirects (post/redirect/get, return_url as given), and the guard that
 * turns every refusal or fault into a page without a stack trace or intent data.
 */
import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { HostedCheckout, HostedPayment, PaymentIntent, PaymentIntentLifecycle, SimulatorPayer } from "@tender/core"
import { Cause, Clock, Effect, Option } from "effect"
import * as QRCode from "qrcode"
import { respond, securityHeaders } from "../Html.js"
import type { Lang } from "../Messages.js"
import * as Pages from "../Pages.js"
import { checkForm, type Link, linkOf, nonceOf, Refused, refused, verify } from "./link.js"
import { fieldsOf } from "./payerForm.js"

export const originOf = (url: string | null) => {
  if (url === null) return []
  try {
    return [new URL(url).origin]
  } catch {
    return []
  }
}

/** Everything a view of the intent needs. */
export const contextFor = (link: Link, intent: PaymentIntent.PaymentIntentRecord, nonce: string) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    const principal = yield* HostedPayment.principalOf(intent)
    const linkFields = { expires: String(link.expires), signature: link.signature, lang: link.lang }
    const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString()
    const urls: Pages.Urls = {
      page: (params = {}) => hosted.pageUrl(intent.id) + q({ ...linkFields, ...params }),
      action: (suffix) => hosted.pageUrl(intent.id, suffix) + q({ ...linkFields, token: hosted.formToken(intent.id, link.expires, nonce) }),
      status: hosted.pageUrl(intent.id, "/status") + q({ expires: String(link.expires), signature: link.signature }),
      linkFields
    }
    return {
      lang: link.lang,
      intent,
      merchantName: hosted.appearance.merchantName ?? principal.merchant.name,
      appearance: hosted.appearance,
      urls,
      simulate: SimulatorPayer.actionsFor(intent).filter((a) => a === "scan_done" || a === "transfer_made"),
      formTargets: originOf(intent.returnUrl)
    } satisfies Pages.Context
  })

export const seeOther = (location: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.empty({ status: 303, headers: { ...securityHeaders, location, ...headers } })

/**
 * 4.1.4: the return_url exactly as given at create, nothing appended. A URL a header cannot
 * carry as written (non-ASCII, such as a Thai path, or a control character) is sent by a page
 * that follows it in the browser instead, which encodes it as any link would.
 */
export const toReturnUrl = (intent: PaymentIntent.PaymentIntentRecord, lang: Lang) =>
  Effect.gen(function*() {
    if (intent.returnUrl === null) return undefined
    if (/^[\x21-\x7e]+$/.test(intent.returnUrl)) return seeOther(intent.returnUrl)
    const hosted = yield* HostedCheckout.HostedCheckout
    return respond(Pages.leaving(lang, hosted.appearance, intent.returnUrl))
  })

export const qrImage = (data: string | undefined) =>
  data === undefined
    ? Effect.succeed(undefined)
    : Effect.tryPromise(() => QRCode.toDataURL(data, { errorCorrectionLevel: "M", margin: 2, width: 260 })).pipe(
      Effect.orElseSucceed(() => undefined)
    )

/** The view of the intent as it is now: final, waiting, the payer action, the fields, or the method list. */
export const view = (
  c: Pages.Context,
  chosen: string | undefined,
  form: Pages.FormState | undefined,
  notice: string | undefined
) =>
  Effect.gen(function*() {
    const intent = c.intent
    if (PaymentIntent.isTerminal(intent.status)) return Pages.final(c)
    if (intent.hostedAction !== null) {
      const now = yield* Clock.currentTimeMillis
      const qr = intent.hostedAction.type === "display_qr_code" ? yield* qrImage(intent.hostedAction.qr_data) : undefined
      return Pages.payerAction(c, intent.hostedAction, qr, PaymentIntentLifecycle.actionExpiry(intent), now, notice)
    }
    if (!HostedPayment.awaitingChoice(intent)) return Pages.processing(c)
    const methods = yield* HostedPayment.methodsFor(yield* HostedPayment.principalOf(intent), intent)
    const method = methods.find((m) => m.code === (intent.paymentMethod ?? chosen))
    if (method === undefined) return Pages.chooseMethod(c, methods, Object.values(form?.errors ?? {}).flat())
    const entered = HostedPayment.payerDataOf(intent)
    const values = form?.values ??
      Object.fromEntries(Object.entries(entered).filter((e): e is [string, string] => e[1] !== undefined))
    return Pages.payerForm(c, method, { values, errors: form?.errors ?? {} }, intent.paymentMethod === null && methods.length > 1, fieldsOf(method))
  })

/** A refusal or a fault, as a page that says nothing of the intent. */
export const refusedPage = (lang: Lang) => (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value instanceof Refused) {
      return respond(Pages.notice(lang, hosted.appearance, failure.value.kind, failure.value.status))
    }
    const unavailable = Option.isSome(failure) && (failure.value as { _tag?: string })._tag === "StorageUnavailable"
    yield* Effect.logError("tender: hosted checkout failed", cause)
    return respond(Pages.notice(lang, hosted.appearance, "error", unavailable ? 503 : 500))
  })

export const guarded = <R>(lang: Lang, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
  Effect.catchAllCause(effect, refusedPage(lang))

/** What a form handler is given once its link and form token have been checked. */
export interface Form {
  readonly intent: PaymentIntent.PaymentIntentRecord
  /** The view context, its action URLs bound to the browser's nonce. */
  readonly c: Pages.Context
  readonly request: HttpServerRequest.HttpServerRequest
}

/**
 * A form the hosted page posts back: the link verified (403/404/410 otherwise), in the test
 * environment only when `testOnly` (D9: the simulated payer), the form token checked against
 * the link and the browser's nonce cookie (403 otherwise), then `handle`. Any refusal or fault
 * becomes a page that says nothing of the intent.
 */
export const formRoute =
  <R>(handle: (form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>, options: { readonly testOnly?: boolean } = {}) =>
  (id: string, request: HttpServerRequest.HttpServerRequest) => {
    const link = linkOf(id, request)
    return guarded(
      link.lang,
      Effect.gen(function*() {
        const intent = yield* verify(link)
        if (options.testOnly === true && intent.environment !== "test") return yield* Effect.fail(refused("notFound", 404))
        yield* checkForm(link, request)
        const c = yield* contextFor(link, intent, nonceOf(request)!)
        return yield* handle({ intent, c, request })
      })
    )
  }
