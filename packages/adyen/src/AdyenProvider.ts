/**
 * The Adyen adapter: PromptPay (Adyen's QR code action) and Thai online banking (Adyen's
 * redirect to the payer's bank) on Adyen's official SDK, Checkout API v72, with Tender's ids as
 * Adyen's `Idempotency-Key`s and references, and Adyen's standard notifications read as D11
 * notices. One Adyen merchant account serves one environment (`test` or `live`).
 * docs/providers/adyen.md.
 *
 * @since 0.1.0
 */
import type { Types } from "@adyen/api-library"
import type { PaymentProvider, ProviderCancelResult, ProviderPaymentRef, ProviderPaymentRequest, ProviderRefundRequest } from "@tender/core/Provider"
import * as Kit from "@tender/core/ProviderKit"
import type { Environment } from "@tender/core/Schemas"
import { Clock, Config, Context, Effect, Redacted, Schema } from "effect"
import { resultOf, statusOf } from "./internal/answers.js"
import { servicesOf } from "./internal/client.js"
import { declines, errorOf } from "./internal/failures.js"
import { methods, ONLINE_BANKING, PROMPTPAY } from "./internal/methods.js"
import { parse } from "./internal/notifications.js"

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
  /** The bound of one call to Adyen in ms (default 15 000, within the 20 s a provider call is given). */
  readonly timeoutMillis?: number | undefined
}

/** A payment's status from Adyen's `resultCode` (and refusal reason). @since 0.1.0 */
export { statusOf }

type PaymentMethod = Types.checkout.PaymentRequest["paymentMethod"]

/** Adyen's `paymentMethod` for each method, or why the request cannot be sent: the vendor mapping of a create. */
const paymentMethods: Readonly<Record<string, (request: ProviderPaymentRequest) => PaymentMethod | Kit.Failure>> = {
  [PROMPTPAY]: () => ({ type: PROMPTPAY }) as never,
  // Discovery makes the bank required; a request without one is refused before Adyen.
  [ONLINE_BANKING]: (request) => {
    const issuer = request.payer?.fields["bank"]
    return issuer === undefined ? Kit.failure("provider_rejected") : ({ type: ONLINE_BANKING, issuer }) as never
  }
}

const isFailure = (x: PaymentMethod | Kit.Failure): x is Kit.Failure => typeof x === "object" && x !== null && "failureCode" in x

/** What one adapter's calls work on: its account, its services, its vendor kit, the host's options. */
interface Adapter extends ReturnType<typeof servicesOf> {
  readonly environment: Environment
  /** No account of its own: only merchants' accounts (D13). */
  readonly accountsOnly: boolean
  readonly merchantAccount: string
  readonly v: Kit.Vendor
  readonly options: AdyenOptions
}

/** A create of one method: `methodOf` maps the request to Adyen's `paymentMethod`, or says why it cannot be sent. */
const pay = (a: Adapter, methodOf: (request: ProviderPaymentRequest) => PaymentMethod | Kit.Failure): Kit.CreateByMethod => (request) =>
  Effect.gen(function*() {
    const { environment, v } = a
    if (a.accountsOnly || request.environment !== environment) return yield* v.unavailable(`the Adyen account serves ${environment} only`)
    const returnUrl = request.returnUrl ?? a.options.returnUrl
    const paymentMethod = returnUrl === undefined ? Kit.failure("return_url_required") : methodOf(request)
    if (isFailure(paymentMethod)) return { _tag: "Failed", providerPaymentId: null, ...paymentMethod } as const
    const now = yield* Clock.currentTimeMillis
    return yield* v.created(Effect.flatMap(v.integer(request.amount), (value) =>
      v.call(() =>
        a.payments.payments({
          amount: { value, currency: request.currency },
          merchantAccount: a.merchantAccount,
          paymentMethod,
          reference: request.paymentIntentId,
          returnUrl: returnUrl!,
          countryCode: request.country,
          ...(request.customer.email === undefined ? {} : { shopperEmail: request.customer.email }),
          ...(request.customer.phone === undefined ? {} : { telephoneNumber: request.customer.phone }),
          ...(request.customer.name === undefined ? {} : { shopperName: { firstName: request.customer.name, lastName: "" } })
        }, { idempotencyKey: Kit.idempotencyKey("create", request) })
      ).pipe(Effect.map((response) => resultOf(response, now)))))
  })

const cancelPayment = ({ merchantAccount, modifications, v }: Adapter, payment: ProviderPaymentRef) => {
  // Adyen answers `received` and tells the outcome by a CANCELLATION notification; a payment
  // the payer paid meanwhile is told by its AUTHORISATION, and Tender refunds it as late (D10).
  const key = Kit.idempotencyKey("cancel", payment)
  return v.read(() =>
    modifications.cancelAuthorisedPaymentByPspReference(payment.providerPaymentId, { merchantAccount, reference: key }, { idempotencyKey: key })
  ).pipe(Effect.as<ProviderCancelResult>({ _tag: "Canceled" }))
}

const refund = ({ merchantAccount, modifications, v }: Adapter, refund: ProviderRefundRequest) =>
  v.refunded(Effect.flatMap(v.integer(refund.amount), (value) =>
    v.call(() =>
      modifications.refundCapturedPayment(refund.payment.providerPaymentId, {
        merchantAccount,
        amount: { value, currency: refund.payment.currency },
        reference: refund.refundId
      }, { idempotencyKey: Kit.idempotencyKey("refund", refund) })
    ).pipe(
      // Adyen takes the refund (`received`) and tells its outcome by a REFUND notification.
      Effect.as({ _tag: "Pending" } as const)
    )))

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
  const timeoutMillis = options.timeoutMillis ?? Kit.defaultTimeoutMillis
  const a: Adapter = {
    ...servicesOf({
      ...options,
      apiKey: options.apiKey ?? "",
      environment: accountsOnly ? "test" : environment,
      timeoutMillis
    }),
    environment,
    accountsOnly,
    merchantAccount: options.merchantAccount ?? "",
    v: Kit.vendor({ provider: code, name: "Adyen", timeoutMillis, declines, errorOf }),
    options
  }
  const catalogue = methods(accountsOnly ? [] : [environment])
  return {
    code,
    methods: catalogue,
    createPayment: Kit.createByMethod(code, catalogue, Object.fromEntries(Object.entries(paymentMethods).map(([m, of]) => [m, pay(a, of)]))),
    // Checkout API v72 has no read of a payment by its pspReference: Adyen tells a payment's
    // outcome by notification only. Without confirmPayment, getPaymentStatus and submitReceipt
    // Tender never polls an Adyen payment, a confirm is 409, and an unpaid one expires with its
    // payer action (docs/provider-adapters.md, "Capabilities").
    cancelPayment: (payment) => cancelPayment(a, payment),
    refund: (r) => refund(a, r),
    parseNotification: parse(keys),
    // A merchant's own Adyen account (D13): its API key, merchant account and HMAC key alone,
    // serving the account's environment; the host's other options (apiBase, ca, returnUrl) hold.
    accounts: Kit.accounts(AccountCredentials, (credentials, account) =>
      adyen({
        ...options,
        apiKey: credentials.api_key,
        merchantAccount: credentials.merchant_account,
        hmacKey: credentials.hmac_key,
        environment: account.environment,
        liveEndpointUrlPrefix: credentials.live_endpoint_url_prefix ?? options.liveEndpointUrlPrefix
      }))
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

const layers = Kit.layers(
  AdyenProvider,
  adyen,
  Config.all({
    apiKey: Kit.configOptional(Config.map(Config.redacted("ADYEN_API_KEY"), Redacted.value)),
    merchantAccount: Kit.configOptional(Config.string("ADYEN_MERCHANT_ACCOUNT")),
    hmacKey: Kit.configOptional(Kit.configList("ADYEN_HMAC_KEY")),
    apiBase: Kit.configOptional(Config.string("ADYEN_API_BASE")),
    environment: Config.literal("test", "live")("ADYEN_ENVIRONMENT").pipe(Config.withDefault("test" as const)),
    liveEndpointUrlPrefix: Kit.configOptional(Config.string("ADYEN_LIVE_URL_PREFIX")),
    returnUrl: Kit.configOptional(Config.string("ADYEN_RETURN_URL"))
  })
)

/** The adapter from options. @since 0.1.0 @category layers */
export const layer = layers.layer

/**
 * The adapter from configuration: `ADYEN_API_KEY`, `ADYEN_MERCHANT_ACCOUNT`, `ADYEN_HMAC_KEY`
 * (several comma-separated during a key rotation; none of the three: merchants' own accounts
 * only, D13), and optional `ADYEN_API_BASE` (with its
 * version path), `ADYEN_ENVIRONMENT` (`test` or `live`), `ADYEN_LIVE_URL_PREFIX`, `ADYEN_RETURN_URL`.
 *
 * @since 0.1.0 @category layers
 */
export const layerConfig = layers.layerConfig
