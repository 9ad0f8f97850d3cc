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
import {
  ApiResponse,
  Discovery,
  Errors,
  HostedCheckout,
  HostedPayment,
  Ids,
  PaymentIntent,
  PaymentIntentLifecycle,
  Provider,
  SimulatorPayer,
  Storage
} from "@tender/core"
import { Cause, Clock, Data, Effect, FiberRef, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as QRCode from "qrcode"
import { TenderApi } from "../Api.js"
import { CurrentRequestId, isApiError } from "../internal/errorSchema.js"
import { fromDecodeError, toHttp } from "../Middleware.js"
import * as Body from "../internal/body.js"
import * as Upload from "../Upload.js"
import { respond, securityHeaders } from "./Html.js"
import type { Lang } from "./Messages.js"
import { negotiate } from "./Messages.js"
import * as Pages from "./Pages.js"

/** The browser nonce the form tokens are bound to (`HostedCheckout.formToken`). */
const cookieName = "tender_checkout"

/** The link as the request carries it. */
interface Link {
  readonly id: string
  readonly expires: number
  readonly signature: string
  readonly query: URLSearchParams
  readonly lang: Lang
}

const queryOf = (request: HttpServerRequest.HttpServerRequest) => {
  try {
    return new URL(request.url, "http://localhost").searchParams
  } catch {
    return new URLSearchParams()
  }
}

const linkOf = (id: string, request: HttpServerRequest.HttpServerRequest): Link => {
  const query = queryOf(request)
  const expires = query.get("expires") ?? ""
  return {
    id,
    // Only digits are a time: `1e13` or ` 5` would sign differently from what they parse to.
    expires: /^[0-9]{1,16}$/.test(expires) ? Number(expires) : NaN,
    signature: query.get("signature") ?? "",
    query,
    lang: negotiate(query.get("lang"), request.headers["accept-language"])
  }
}

/** A request the page refuses, as the page that says why. */
class Refused extends Data.TaggedError("Refused")<{
  readonly kind: "badLink" | "expiredLink" | "staleForm" | "notFound"
  readonly status: number
}> {}

const refused = (kind: Refused["kind"], status: number) => new Refused({ kind, status })

/**
 * The intent of a verified link. A malformed id, a forged or tampered signature, a link for
 * another intent: 403 "not valid"; a genuine link past its expiry: 410. Neither says anything
 * of the intent, not even whether it exists.
 */
const verify = (link: Link) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    if (!Ids.isWellFormed(Ids.prefixes.paymentIntent, link.id)) return yield* Effect.fail(refused("badLink", 404))
    const now = yield* Clock.currentTimeMillis
    switch (hosted.check(link.id, link.expires, link.signature, now)) {
      case "invalid":
        return yield* Effect.fail(refused("badLink", 403))
      case "expired":
        return yield* Effect.fail(refused("expiredLink", 410))
      case "valid":
        break
    }
    const found = yield* HostedPayment.load(link.id)
    if (Option.isNone(found)) return yield* Effect.fail(refused("badLink", 404))
    return found.value
  })

const nonceOf = (request: HttpServerRequest.HttpServerRequest) => {
  const value = request.cookies[cookieName]
  return value !== undefined && /^[A-Za-z0-9_-]{22,64}$/.test(value) ? value : undefined
}

/** The form token must match the link and the browser's nonce cookie (SameSite=Strict): else 403. */
const checkForm = (link: Link, request: HttpServerRequest.HttpServerRequest, scope = link.id, expires = link.expires) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    const nonce = nonceOf(request)
    const token = link.query.get("token") ?? ""
    if (nonce === undefined || !hosted.checkFormToken(scope, expires, nonce, token)) {
      return yield* Effect.fail(refused("staleForm", 403))
    }
  })

const cookiePath = (baseUrl: string) => {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, "") + "/"
  } catch {
    return "/"
  }
}

/** The nonce to bind forms to, and the cookie that sets it when the browser has none. */
const browserNonce = (request: HttpServerRequest.HttpServerRequest, baseUrl: string) => {
  const existing = nonceOf(request)
  if (existing !== undefined) return { nonce: existing, headers: {} }
  const nonce = randomBytes(24).toString("base64url")
  const secure = baseUrl.startsWith("https:") ? "; Secure" : ""
  return {
    nonce,
    headers: { "set-cookie": `${cookieName}=${nonce}; Path=${cookiePath(baseUrl)}; HttpOnly; SameSite=Strict${secure}` }
  }
}

const originOf = (url: string | null) => {
  if (url === null) return []
  try {
    return [new URL(url).origin]
  } catch {
    return []
  }
}

/** Everything a view of the intent needs. */
const contextFor = (link: Link, intent: PaymentIntent.PaymentIntentRecord, nonce: string) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    const principal = yield* HostedPayment.principalOf(intent)
    const linkFields = { expires: String(link.expires), signature: link.signature, lang: link.lang }
    const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString()
    const urls: Pages.Urls = {
      page: (params = {}) => hosted.pageUrl(intent.id) + q({ ...linkFields, ...params }),
      action: (suffix) =>
        hosted.pageUrl(intent.id, suffix) + q({ ...linkFields, token: hosted.formToken(intent.id, link.expires, nonce) }),
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

const seeOther = (location: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.empty({ status: 303, headers: { ...securityHeaders, location, ...headers } })

/**
 * 4.1.4: the return_url exactly as given at create, nothing appended. A URL a header cannot
 * carry as written (non-ASCII, such as a Thai path, or a control character) is sent by a page
 * that follows it in the browser instead, which encodes it as any link would.
 */
const toReturnUrl = (intent: PaymentIntent.PaymentIntentRecord, lang: Lang) =>
  Effect.gen(function*() {
    if (intent.returnUrl === null) return undefined
    if (/^[\x21-\x7e]+$/.test(intent.returnUrl)) return seeOther(intent.returnUrl)
    const hosted = yield* HostedCheckout.HostedCheckout
    return respond(Pages.leaving(lang, hosted.appearance, intent.returnUrl))
  })

const qrImage = (data: string | undefined) =>
  data === undefined
    ? Effect.succeed(undefined)
    : Effect.tryPromise(() => QRCode.toDataURL(data, { errorCorrectionLevel: "M", margin: 2, width: 260 })).pipe(
      Effect.orElseSucceed(() => undefined)
    )

/** The view of the intent as it is now: final, waiting, the payer action, the fields, or the method list. */
const view = (
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
    return Pages.payerForm(c, method, { values, errors: form?.errors ?? {} }, intent.paymentMethod === null && methods.length > 1, Provider.payerFields)
  })

/** A refusal or a fault, as a page that says nothing of the intent. */
const refusedPage = (lang: Lang) => (cause: Cause.Cause<unknown>) =>
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

const guarded = <R>(lang: Lang, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
  Effect.catchAllCause(effect, refusedPage(lang))

/** What a form handler is given once its link and form token have been checked. */
interface Form {
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
const formRoute = <R>(handle: (form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>, options: { readonly testOnly?: boolean } = {}) =>
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

/** The largest payer form read: its few fields fit many times over. */
const maxFormBytes = 64 * 1024

/** The request body of a URL-encoded form; one that is too large or unreadable reads as empty (and fails the form check). */
const formBody = (request: HttpServerRequest.HttpServerRequest) =>
  Body.bytes(request, maxFormBytes).pipe(
    Effect.map((bytes) => new URLSearchParams(Buffer.from(bytes).toString("utf8"))),
    Effect.orElseSucceed(() => new URLSearchParams())
  )

/** The payer's entries, checked with the create request's own schemas and messages (2.2, D1). */
const PayerEntries = Schema.Struct({
  customer: Schema.Struct({ name: PaymentIntent.Customer.fields.name, phone: PaymentIntent.Customer.fields.phone }),
  payment_method_options: PaymentIntent.PaymentMethodOptions
}).annotations({ parseOptions: { errors: "all" } })

/** A create request path (`payment_method_options.bank`) back to discovery's payer field (`bank`). */
const fieldOfParam = new Map<string, string>(Object.entries(Discovery.createRequestPath).map(([f, p]) => [p, f]))

const errorsOf = (error: Errors.ValidationFailed | Errors.ApiError): Record<string, ReadonlyArray<string>> => {
  const details = "details" in error && Array.isArray(error.details) && error.details.length > 0
    ? error.details as ReadonlyArray<{ param?: string; message: string }>
    : [{ param: (error as { param?: string }).param, message: error.message }]
  const out: Record<string, Array<string>> = {}
  for (const d of details) {
    const field = d.param === undefined ? "_form" : fieldOfParam.get(d.param) ?? "_form"
    ;(out[field] ??= []).push(d.message)
  }
  return out
}

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
      const values: Record<string, string> = {}
      for (const field of Provider.payerFields) {
        const v = body.get(field)?.trim()
        if (v !== undefined && v !== "") values[field] = v
      }
      const again = (errors: Record<string, ReadonlyArray<string>>) =>
        Effect.map(view(c, method, { values, errors }, undefined), (shown) => respond({ ...shown, status: 400 }))
      // The formats first, as the API checks a create body (same schemas, same messages).
      const decoded = yield* Schema.decodeUnknown(PayerEntries)({
        customer: { name: values.customer_name, phone: values.customer_phone },
        payment_method_options: {
          bank: values.bank,
          account_name: values.account_name,
          account_number: values.account_number,
          name_th: values.name_th
        }
      }).pipe(
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
    const requestId = yield* FiberRef.get(CurrentRequestId)
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

/** The intent the simulated bank page is about: test environment, the simulator's payment, by its id. */
const bankIntent = (payment: string, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const intentId = queryOf(request).get("payment_intent") ?? ""
    if (!Ids.isWellFormed(Ids.prefixes.paymentIntent, intentId)) return yield* Effect.fail(refused("notFound", 404))
    const found = yield* Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, intentId))
    if (
      Option.isNone(found) || found.value.environment !== "test" || found.value.providerPaymentId !== payment
    ) return yield* Effect.fail(refused("notFound", 404))
    return found.value
  })

const bankLabel = (intent: PaymentIntent.PaymentIntentRecord, code: string) =>
  Effect.map(Provider.ProviderRegistry, (registry) => {
    const banks = registry.get(intent.providerCode ?? "")?.methods.flatMap((m) => m.banks) ?? []
    return banks.find((b) => b.providerCode === code)?.label ?? "Test bank"
  })

/** After the bank: back to the hosted page (a fresh link: the payer's may be in another tab), or a plain notice. */
const afterBank = (intent: PaymentIntent.PaymentIntentRecord) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    if (intent.checkoutMode !== "hosted") return undefined
    return hosted.urlFor(intent.id, yield* Clock.currentTimeMillis).url
  })

const bank = (bankCode: string, payment: string, request: HttpServerRequest.HttpServerRequest) => {
  const lang = negotiate(queryOf(request).get("lang"), request.headers["accept-language"])
  return guarded(
    lang,
    Effect.gen(function*() {
      const intent = yield* bankIntent(payment, request)
      const hosted = yield* HostedCheckout.HostedCheckout
      const actions = SimulatorPayer.actionsFor(intent).filter((a) => a === "bank_approved" || a === "bank_declined")
      if (actions.length === 0) {
        const back = yield* afterBank(intent)
        if (back !== undefined) return seeOther(back)
        return yield* Effect.fail(refused("notFound", 404))
      }
      const { headers, nonce } = browserNonce(request, hosted.baseUrl)
      const principal = yield* HostedPayment.principalOf(intent)
      const action = `${hosted.baseUrl}/simulator/online_banking/${encodeURIComponent(bankCode)}/${encodeURIComponent(payment)}?` +
        new URLSearchParams({ payment_intent: intent.id, lang, token: hosted.formToken(`bank:${intent.id}`, 0, nonce) }).toString()
      const shown = Pages.bank(
        {
          lang,
          intent,
          merchantName: hosted.appearance.merchantName ?? principal.merchant.name,
          appearance: hosted.appearance,
          formTargets: originOf(intent.returnUrl)
        },
        yield* bankLabel(intent, bankCode),
        action,
        actions
      )
      return respond({ ...shown, headers })
    })
  )
}

const bankAnswer = (payment: string, request: HttpServerRequest.HttpServerRequest) => {
  const lang = negotiate(queryOf(request).get("lang"), request.headers["accept-language"])
  return guarded(
    lang,
    Effect.gen(function*() {
      const intent = yield* bankIntent(payment, request)
      yield* checkForm({ id: intent.id, expires: 0, signature: "", query: queryOf(request), lang }, request, `bank:${intent.id}`, 0)
      const action = (yield* formBody(request)).get("action")
      if (action === "bank_approved" || action === "bank_declined") yield* SimulatorPayer.act(intent, action)
      const back = yield* afterBank(intent)
      if (back !== undefined) return seeOther(back)
      return seeOther(request.url)
    })
  )
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
