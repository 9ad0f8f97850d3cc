/**
 * The Adyen adapter: PromptPay (Adyen's QR code action) and Thai online banking (Adyen's
 * redirect to the payer's bank) on Adyen's official SDK, Checkout API v72, with Tender's ids as
 * Adyen's `Idempotency-Key`s and references, and Adyen's standard notifications read as D11
 * notices. One Adyen merchant account serves one environment (`test` or `live`).
 * docs/providers/adyen.md.
 *
 * @since 0.1.0
 */
// The SDK is CommonJS whose exports Node cannot name statically: its namespace, then its members.
import Adyen, { type Types } from "@adyen/api-library"
import type { PaymentProvider, ProviderCancelResult, ProviderPaymentResult, ProviderPaymentStatus, ProviderRefundStatus } from "@tender/core/Provider"
import { ProviderUnavailable } from "@tender/core/Provider"
import type { Environment } from "@tender/core/Schemas"
import { Clock, Config, Context, Effect, Layer, Redacted, Schema } from "effect"
import { rootCertificates } from "node:tls"
import { type AdyenRejected, classify, failureOf } from "./internal/failures.js"
import { methods, ONLINE_BANKING, PROMPTPAY } from "./internal/methods.js"
import { parse } from "./internal/notifications.js"

const { CheckoutAPI, Client, EnvironmentEnum, HttpURLConnectionClient } = Adyen

/** The provider code seed routes name. @since 0.1.0 @category constants */
export const code = "adyen"

/** The Checkout API version the adapter speaks (the SDK's, and the stand-in's description's). @since 0.1.0 @category constants */
export const apiVersion = "v72"

/** How a host configures the adapter. @since 0.1.0 @category models */
export interface AdyenOptions {
  /**
   * The API key of the Adyen web service user (`X-API-Key`). Without it, `merchantAccount` and
   * `hmacKey` the adapter has no account of its own and serves merchants' own accounts only
   * (D13, docs/provider-accounts.md).
   */
  readonly apiKey?: string | undefined
  /** The merchant account payments are made to. */
  readonly merchantAccount?: string | undefined
  /** The HMAC key (hex) of each notification webhook that sends to this host (a new key during rotation). */
  readonly hmacKey?: string | ReadonlyArray<string> | undefined
  /** Which Tender environment the account serves: `test` (Adyen's test platform, the default) or `live`. */
  readonly environment?: Environment | undefined
  /** Adyen's live URL prefix (`[random]-[company name]`), needed for `live` unless `apiBase` is given. */
  readonly liveEndpointUrlPrefix?: string | undefined
  /**
   * The Checkout API's base address INCLUDING its version path, replacing the SDK's
   * (`https://checkout-test.adyen.com/v72`); tests point it at the stand-in.
   */
  readonly apiBase?: string | undefined
  /** Extra CA certificates (PEM) to trust for `apiBase`, beside the system's (the stand-in's test CA). */
  readonly ca?: string | undefined
  /** Where the payer returns after online banking when the intent has no `return_url`. */
  readonly returnUrl?: string | undefined
  /** Per-request timeout in ms (default 15 000, within the 20 s a provider call is given). */
  readonly timeoutMillis?: number | undefined
}

type Call<A> = Effect.Effect<A, ProviderUnavailable | AdyenRejected>

const call = <A>(f: () => Promise<A>): Call<A> => Effect.tryPromise({ try: f, catch: classify })

const unavailable = <A>(effect: Call<A>): Effect.Effect<A, ProviderUnavailable> =>
  Effect.catchAll(
    effect,
    (e) => e._tag === "ProviderUnavailable" ? Effect.fail(e) : Effect.fail(new ProviderUnavailable({ provider: code, reason: "Adyen refused the request" }))
  )

/** A payment's status from Adyen's `resultCode` (and refusal reason). */
export const statusOf = (resultCode: string | undefined, refusalReasonCode?: string, refusalReason?: string): ProviderPaymentStatus => {
  switch (resultCode) {
    case "Authorised":
      return { _tag: "Succeeded" }
    case "Received":
      return { _tag: "Processing" }
    case "Refused":
    case "Error":
      return { _tag: "Failed", ...failureOf(refusalReasonCode, refusalReason) }
    case "Cancelled":
      return { _tag: "Failed", failureCode: "payment_expired", failureMessage: "The provider canceled the payment before it was paid." }
    default:
      return { _tag: "Pending" }
  }
}

// Adyen names no expiry for a bank redirect; the bank's session is shorter than Tender's own expiry.
const REDIRECT_TTL_MS = 30 * 60 * 1000

/**
 * The adapter. Throws on a missing key (some of `apiKey`, `merchantAccount`, `hmacKey` given but
 * not all) or a live account without a URL prefix or `apiBase` (configuration errors).
 *
 * @since 0.1.0 @category constructors
 */
export const adyen = (options: AdyenOptions): PaymentProvider => {
  const environment = options.environment ?? "test"
  // No account of its own: only merchants' accounts (D13). No deployment method is served, and the
  // deployment's notification door verifies nothing (no key).
  const accountsOnly = options.apiKey === undefined && options.merchantAccount === undefined && options.hmacKey === undefined
  const keys = options.hmacKey === undefined ? [] : typeof options.hmacKey === "string" ? [options.hmacKey] : [...options.hmacKey]
  if (!accountsOnly) {
    if (!options.apiKey || !options.merchantAccount) throw new Error("An Adyen apiKey and merchantAccount are needed")
    if (keys.length === 0 || keys.some((k) => !/^[0-9a-fA-F]+$/.test(k))) throw new Error("An Adyen HMAC key (hex) is needed to verify notifications")
  }
  const http = new HttpURLConnectionClient()
  // The SDK builds a fresh https agent per request from these options (its own field, no setter).
  if (options.ca !== undefined) Object.assign(http, { agentOptions: { ca: [...rootCertificates, options.ca] } })
  const client = new Client({
    apiKey: options.apiKey ?? "",
    // The SDK's environment only picks its addresses; with `apiBase` given they are all replaced.
    environment: !accountsOnly && environment === "live" && options.apiBase === undefined ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST,
    ...(options.liveEndpointUrlPrefix === undefined ? {} : { liveEndpointUrlPrefix: options.liveEndpointUrlPrefix }),
    connectionTimeoutMillis: options.timeoutMillis ?? 15_000,
    applicationName: "Tender"
  }, http)
  const checkout = new CheckoutAPI(client)
  const payments = checkout.PaymentsApi
  const modifications = checkout.ModificationsApi
  if (options.apiBase !== undefined) {
    // Each service keeps the address it built from the SDK's constant (`…/v72`) in `baseUrl`.
    const base = options.apiBase.replace(/\/+$/, "")
    for (const service of [payments, modifications]) Object.assign(service, { baseUrl: base })
  }
  const merchantAccount = options.merchantAccount ?? ""

  const declined = (e: ProviderUnavailable | AdyenRejected): Effect.Effect<ProviderPaymentResult, ProviderUnavailable> =>
    e._tag === "ProviderUnavailable"
      ? Effect.fail(e)
      : Effect.succeed({ _tag: "Failed", providerPaymentId: null, failureCode: e.failureCode, failureMessage: e.failureMessage })

  const resultOf = (response: Types.checkout.PaymentResponse, now: number): ProviderPaymentResult => {
    const psp = response.pspReference
    if (psp === undefined) return { _tag: "Failed", providerPaymentId: null, ...failureOf(response.refusalReasonCode, response.refusalReason) }
    const action = response.action as Record<string, unknown> | undefined
    if (action?.["type"] === "qrCode" && typeof action["qrCodeData"] === "string") {
      const expiresAt = typeof action["expiresAt"] === "string" ? new Date(action["expiresAt"]) : null
      return {
        _tag: "Action",
        providerPaymentId: psp,
        nextAction: {
          type: "display_qr_code",
          qr_data: action["qrCodeData"],
          ...(typeof action["url"] === "string" ? { qr_image_url: action["url"] } : {}),
          ...(expiresAt === null || Number.isNaN(expiresAt.getTime()) ? {} : { expires_at: expiresAt.toISOString() })
        }
      }
    }
    if (action?.["type"] === "redirect" && typeof action["url"] === "string") {
      return {
        _tag: "Action",
        providerPaymentId: psp,
        nextAction: { type: "redirect_to_url", url: action["url"], expires_at: new Date(now + REDIRECT_TTL_MS).toISOString() }
      }
    }
    const s = statusOf(response.resultCode, response.refusalReasonCode, response.refusalReason)
    return s._tag === "Failed" ? { ...s, providerPaymentId: psp } : { _tag: "Processing", providerPaymentId: psp }
  }

  return {
    code,
    methods: methods(accountsOnly ? [] : [environment]),
    createPayment: (request) =>
      Effect.gen(function*() {
        if (accountsOnly || request.environment !== environment) {
          return yield* new ProviderUnavailable({ provider: code, reason: `the Adyen account serves ${environment} only`, notSent: true })
        }
        const returnUrl = request.returnUrl ?? options.returnUrl
        if (returnUrl === undefined) {
          return {
            _tag: "Failed",
            providerPaymentId: null,
            failureCode: "return_url_required",
            failureMessage: "An Adyen payment needs a return_url to send the payer back to."
          } as const
        }
        let paymentMethod: Types.checkout.PaymentRequest["paymentMethod"]
        if (request.providerMethod === PROMPTPAY) paymentMethod = { type: PROMPTPAY } as never
        else if (request.providerMethod === ONLINE_BANKING) {
          // Discovery makes the bank required; a request without one is refused before Adyen.
          const issuer = request.payer?.fields["bank"]
          if (issuer === undefined) {
            return {
              _tag: "Failed",
              providerPaymentId: null,
              failureCode: "provider_rejected",
              failureMessage: "Online banking needs the payer's bank."
            } as const
          }
          paymentMethod = { type: ONLINE_BANKING, issuer } as never
        } else return yield* Effect.die(new Error(`@tender/adyen does not serve ${request.providerMethod}`))
        const body: Types.checkout.PaymentRequest = {
          amount: { value: Number(request.amount), currency: request.currency },
          merchantAccount,
          paymentMethod,
          reference: request.paymentIntentId,
          returnUrl,
          countryCode: request.country,
          ...(request.customer.email === undefined ? {} : { shopperEmail: request.customer.email }),
          ...(request.customer.phone === undefined ? {} : { telephoneNumber: request.customer.phone }),
          ...(request.customer.name === undefined ? {} : { shopperName: { firstName: request.customer.name, lastName: "" } })
        }
        const now = yield* Clock.currentTimeMillis
        return yield* call(() => payments.payments(body, { idempotencyKey: request.paymentIntentId })).pipe(
          Effect.map((response) => resultOf(response, now)),
          Effect.catchAll(declined)
        )
      }),
    // Checkout API v72 has no read of a payment by its pspReference: Adyen tells a payment's
    // outcome by notification only. Without confirmPayment, getPaymentStatus and submitReceipt
    // Tender never polls an Adyen payment, a confirm is 409, and an unpaid one expires with its
    // payer action (docs/provider-adapters.md, "Capabilities").
    cancelPayment: (payment) =>
      // Adyen answers `received` and tells the outcome by a CANCELLATION notification; a payment
      // the payer paid meanwhile is told by its AUTHORISATION, and Tender refunds it as late (D10).
      unavailable(call(() =>
        modifications.cancelAuthorisedPaymentByPspReference(payment.providerPaymentId, { merchantAccount, reference: `${payment.paymentIntentId}/cancel` }, {
          idempotencyKey: `${payment.paymentIntentId}/cancel`
        })
      )).pipe(Effect.as<ProviderCancelResult>({ _tag: "Canceled" })),
    refund: (refund) =>
      call(() =>
        modifications.refundCapturedPayment(refund.payment.providerPaymentId, {
          merchantAccount,
          amount: { value: Number(refund.amount), currency: refund.payment.currency },
          reference: refund.refundId
        }, { idempotencyKey: refund.refundId })
      ).pipe(
        // Adyen takes the refund (`received`) and tells its outcome by a REFUND notification.
        Effect.as<ProviderRefundStatus>({ _tag: "Pending" }),
        Effect.catchAll((e) =>
          e._tag === "ProviderUnavailable"
            ? Effect.fail(e)
            : Effect.succeed<ProviderRefundStatus>({
              _tag: "Failed",
              failureCode: "refund_failed",
              failureMessage: "The provider could not refund the payment."
            })
        )
      ),
    parseNotification: parse(keys),
    // A merchant's own Adyen account (D13): its API key, merchant account and HMAC key alone,
    // serving the account's environment; the host's other options (apiBase, ca, returnUrl) hold.
    accounts: {
      credentials: AccountCredentials,
      forAccount: (account) =>
        adyen({
          ...options,
          apiKey: account.credentials["api_key"]!,
          merchantAccount: account.credentials["merchant_account"]!,
          hmacKey: account.credentials["hmac_key"]!,
          environment: account.environment,
          liveEndpointUrlPrefix: account.credentials["live_endpoint_url_prefix"] ?? options.liveEndpointUrlPrefix
        })
    }
  }
}

/**
 * What a merchant's own Adyen account holds (D13, docs/provider-accounts.md): the API key of its
 * web service user, its merchant account, the HMAC key of its notification webhook pointed at
 * the account's door, and for a live account its live URL prefix.
 *
 * @since 0.1.0 @category schemas
 */
export const AccountCredentials = Schema.Struct({
  api_key: Schema.String.pipe(Schema.minLength(16)).annotations({ description: "must be an Adyen API key (of at least 16 characters)" }),
  merchant_account: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.-]{1,80}$/)).annotations({ description: "must be an Adyen merchant account name" }),
  hmac_key: Schema.String.pipe(Schema.pattern(/^(?:[0-9a-fA-F]{2}){8,}$/)).annotations({
    description: "must be an Adyen HMAC key (hex, of at least 16 characters)"
  }),
  live_endpoint_url_prefix: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]{1,100}$/)).annotations({ description: "must be Adyen's live URL prefix ([random]-[company name])" })
  )
})

/** The Adyen adapter as a service, for Effect hosts that build their provider list from layers. @since 0.1.0 @category tags */
export class AdyenProvider extends Context.Tag("@tender/adyen/AdyenProvider")<AdyenProvider, PaymentProvider>() {}

/** The adapter from options. @since 0.1.0 @category layers */
export const layer = (options: AdyenOptions): Layer.Layer<AdyenProvider> => Layer.sync(AdyenProvider, () => adyen(options))

/**
 * The adapter from configuration: `ADYEN_API_KEY`, `ADYEN_MERCHANT_ACCOUNT`, `ADYEN_HMAC_KEY`
 * (several comma-separated during a key rotation; none of the three: merchants' own accounts
 * only, D13), and optional `ADYEN_API_BASE` (with its
 * version path), `ADYEN_ENVIRONMENT` (`test` or `live`), `ADYEN_LIVE_URL_PREFIX`, `ADYEN_RETURN_URL`.
 *
 * @since 0.1.0 @category layers
 */
export const layerConfig: Layer.Layer<AdyenProvider, import("effect/ConfigError").ConfigError> = Layer.effect(
  AdyenProvider,
  Effect.map(
    Config.all({
      apiKey: Config.option(Config.redacted("ADYEN_API_KEY")),
      merchantAccount: Config.option(Config.string("ADYEN_MERCHANT_ACCOUNT")),
      hmacKey: Config.option(Config.redacted("ADYEN_HMAC_KEY")),
      apiBase: Config.option(Config.string("ADYEN_API_BASE")),
      environment: Config.literal("test", "live")("ADYEN_ENVIRONMENT").pipe(Config.withDefault("test" as const)),
      liveEndpointUrlPrefix: Config.option(Config.string("ADYEN_LIVE_URL_PREFIX")),
      returnUrl: Config.option(Config.string("ADYEN_RETURN_URL"))
    }),
    (c) =>
      adyen({
        apiKey: c.apiKey._tag === "Some" ? Redacted.value(c.apiKey.value) : undefined,
        merchantAccount: c.merchantAccount._tag === "Some" ? c.merchantAccount.value : undefined,
        hmacKey: c.hmacKey._tag === "Some" ? Redacted.value(c.hmacKey.value).split(",").map((s) => s.trim()) : undefined,
        environment: c.environment,
        apiBase: c.apiBase._tag === "Some" ? c.apiBase.value : undefined,
        liveEndpointUrlPrefix: c.liveEndpointUrlPrefix._tag === "Some" ? c.liveEndpointUrlPrefix.value : undefined,
        returnUrl: c.returnUrl._tag === "Some" ? c.returnUrl.value : undefined
      })
  )
)
