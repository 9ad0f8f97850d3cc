/**
 * The Stripe adapter: PromptPay (a QR code from Stripe's `promptpay_display_qr_code` next
 * action) and cards through Stripe Checkout (a redirect), on Stripe's official SDK, with
 * Tender's ids as Stripe's idempotency keys and Stripe's notifications read as D11 notices.
 * A `sk_test_` key serves `test` routes only, a `sk_live_` key `live` routes only.
 * docs/providers/stripe.md.
 *
 * @since 0.1.0
 */
import type { Customer } from "@tender/core/PaymentIntent"
import type { PaymentProvider, ProviderPaymentRef, ProviderPaymentResult, ProviderPaymentStatus, ProviderRefundStatus } from "@tender/core/Provider"
import { ProviderUnavailable } from "@tender/core/Provider"
import { CredentialsRefused } from "@tender/core/ProviderAccounts"
import type { Environment } from "@tender/core/Schemas"
import { Config, Context, Effect, Layer, Redacted } from "effect"
import Stripe from "stripe"
import * as Accounts from "./internal/accounts.js"
import { classify, failureOf, type StripeRejected } from "./internal/failures.js"
import { CARD_CHECKOUT, methods, PROMPTPAY } from "./internal/methods.js"
import { META, parse } from "./internal/notifications.js"

/** The provider code seed routes name. @since 0.1.0 @category constants */
export const code = "stripe"

/** The Stripe API version the adapter speaks (the one its stand-in's description is of). @since 0.1.0 @category constants */
export const apiVersion = "2023-08-16"

/** How a host configures the adapter. @since 0.1.0 @category models */
export interface StripeOptions {
  /** `sk_test_…` (serves `test` routes) or `sk_live_…` (serves `live` routes); both to serve both. */
  readonly secretKey: string | ReadonlyArray<string>
  /** The signing secret (`whsec_…`) of each Stripe endpoint that sends to this host (test and live differ). */
  readonly webhookSecret: string | ReadonlyArray<string>
  /** Stripe's API base address; tests point it at the stand-in. Default `https://api.stripe.com`. */
  readonly apiBase?: string | undefined
  /** Where Checkout sends the payer back when the intent has no `return_url`. */
  readonly returnUrl?: string | undefined
  /** The countries and currencies the `card` method is offered in. Default TH, THB. */
  readonly card?: { readonly countries: ReadonlyArray<string>; readonly currencies: ReadonlyArray<string> } | undefined
  /** Per-request timeout in ms (default 15 000, within the 20 s a provider call is given). */
  readonly timeoutMillis?: number | undefined
  /** The SDK's own retries of a failed request, with the same idempotency key (default 1). */
  readonly maxNetworkRetries?: number | undefined
}

const list = <A>(x: A | ReadonlyArray<A>): ReadonlyArray<A> => Array.isArray(x) ? x : [x as A]

const environmentOfKey = (key: string): Environment => {
  if (/^(sk|rk)_test_/.test(key)) return "test"
  if (/^(sk|rk)_live_/.test(key)) return "live"
  throw new Error("A Stripe secret key starts with sk_test_ or sk_live_ (or rk_ for a restricted key)")
}

type Call<A> = Effect.Effect<A, ProviderUnavailable | StripeRejected>

const call = <A>(f: () => Promise<A>): Call<A> => Effect.tryPromise({ try: f, catch: classify })

// The SDK's types follow its newest API version, which dropped `payment_method_types`; the
// pinned 2023-08-16 version takes it (and the stand-in checks it against that description).
const withMethodTypes = <P>(params: P, types: ReadonlyArray<string>): P => ({ ...params, payment_method_types: types }) as P

const stripePaymentStatus = (pi: Stripe.PaymentIntent): ProviderPaymentStatus => {
  switch (pi.status) {
    case "succeeded":
      return { _tag: "Succeeded", amount: String(pi.amount_received), currency: pi.currency.toUpperCase() }
    case "processing":
      return { _tag: "Processing" }
    case "canceled":
      return { _tag: "Canceled" }
    case "requires_payment_method":
      return pi.last_payment_error == null
        ? { _tag: "Pending" }
        : { _tag: "Failed", ...failureOf(pi.last_payment_error.code, pi.last_payment_error.decline_code) }
    default:
      return { _tag: "Pending" }
  }
}

const billing = (customer: Customer) => ({
  ...(customer.name === undefined ? {} : { name: customer.name }),
  ...(customer.email === undefined ? {} : { email: customer.email }),
  ...(customer.phone === undefined ? {} : { phone: customer.phone })
})

/** The adapter. Throws on a key that is neither a test nor a live key (a configuration error). @since 0.1.0 @category constructors */
export const stripe = (options: StripeOptions): PaymentProvider => {
  const base = new URL(options.apiBase ?? "https://api.stripe.com")
  const clients = new Map<Environment, Stripe>()
  for (const key of list(options.secretKey)) {
    const environment = environmentOfKey(key)
    if (clients.has(environment)) throw new Error(`Two Stripe ${environment} keys were given`)
    clients.set(
      environment,
      new Stripe(key, {
        apiVersion: apiVersion as Stripe.LatestApiVersion,
        host: base.hostname,
        port: base.port === "" ? (base.protocol === "http:" ? 80 : 443) : Number(base.port),
        protocol: base.protocol === "http:" ? "http" : "https",
        timeout: options.timeoutMillis ?? 15_000,
        // Retries go out with the same idempotency key; the task retries later ones.
        maxNetworkRetries: options.maxNetworkRetries ?? 1,
        telemetry: false,
        appInfo: { name: "Tender", url: "https://github.com/tender" }
      })
    )
  }
  const secrets = list(options.webhookSecret)
  // Without keys of its own the adapter only serves merchants' accounts (D13), and needs no secret.
  if (secrets.length === 0 && clients.size > 0) throw new Error("A Stripe webhook secret (whsec_…) is needed to verify notifications")
  const environments = [...clients.keys()]
  const clientFor = (environment: Environment): Effect.Effect<Stripe, ProviderUnavailable> => {
    const client = clients.get(environment)
    return client === undefined
      ? Effect.fail(new ProviderUnavailable({ provider: code, reason: `no Stripe ${environment} key is configured`, notSent: true }))
      : Effect.succeed(client)
  }
  const rejectedAsDeclined = (e: ProviderUnavailable | StripeRejected): Effect.Effect<ProviderPaymentResult, ProviderUnavailable> =>
    e._tag === "ProviderUnavailable"
      ? Effect.fail(e)
      : Effect.succeed({ _tag: "Failed", providerPaymentId: e.paymentIntent?.id ?? null, failureCode: e.failureCode, failureMessage: e.failureMessage })
  const unavailable = <A>(effect: Call<A>): Effect.Effect<A, ProviderUnavailable> =>
    Effect.catchAll(
      effect,
      (e) =>
        e._tag === "ProviderUnavailable"
          ? Effect.fail(e)
          : Effect.fail(new ProviderUnavailable({ provider: code, reason: `Stripe refused the request (${e.failureCode})` }))
    )

  const status = (payment: ProviderPaymentRef): Effect.Effect<ProviderPaymentStatus, ProviderUnavailable> =>
    Effect.flatMap(clientFor(payment.environment), (client) =>
      payment.providerPaymentId.startsWith("cs_")
        ? unavailable(call(() => client.checkout.sessions.retrieve(payment.providerPaymentId))).pipe(Effect.map((session): ProviderPaymentStatus =>
          session.payment_status === "paid"
            ? {
              _tag: "Succeeded",
              amount: session.amount_total === null ? null : String(session.amount_total),
              currency: session.currency?.toUpperCase() ?? null
            }
            : session.status === "expired" ?
            { _tag: "Failed", failureCode: "payment_expired", failureMessage: "The payer did not pay in time." }
            : { _tag: "Pending" }
        ))
        : unavailable(call(() =>
          client.paymentIntents.retrieve(payment.providerPaymentId)
        )).pipe(Effect.map(stripePaymentStatus)))

  // The Stripe payment intent behind a payment: a Checkout Session's, once the payer paid.
  const stripeIntentOf = (client: Stripe, payment: ProviderPaymentRef) =>
    payment.providerPaymentId.startsWith("cs_")
      ? unavailable(call(() => client.checkout.sessions.retrieve(payment.providerPaymentId))).pipe(
        Effect.map((s) => typeof s.payment_intent === "string" ? s.payment_intent : s.payment_intent?.id ?? null)
      )
      : Effect.succeed(payment.providerPaymentId)

  const refundStatus = (refund: Stripe.Refund): ProviderRefundStatus =>
    refund.status === "succeeded" ?
      { _tag: "Succeeded" }
      : refund.status === "failed" || refund.status === "canceled"
      ? { _tag: "Failed", failureCode: "refund_failed", failureMessage: "The provider could not refund the payment." }
      : { _tag: "Pending" }

  return {
    code,
    methods: methods(environments, options.card ?? { countries: ["TH"], currencies: ["THB"] }),
    createPayment: (request) =>
      Effect.flatMap(clientFor(request.environment), (client) => {
        const metadata = { [META.paymentIntent]: request.paymentIntentId }
        const amount = Number(request.amount)
        const currency = request.currency.toLowerCase()
        if (request.providerMethod === PROMPTPAY) {
          return call(() =>
            client.paymentIntents.create(
              withMethodTypes<Stripe.PaymentIntentCreateParams>({
                amount,
                currency,
                payment_method_data: { type: "promptpay", billing_details: billing(request.customer) },
                confirm: true,
                metadata
              }, ["promptpay"]),
              { idempotencyKey: request.paymentIntentId }
            )
          ).pipe(
            Effect.map((pi): ProviderPaymentResult => {
              const qr = pi.next_action?.promptpay_display_qr_code
              if (pi.status !== "requires_action" || qr == null) {
                const s = stripePaymentStatus(pi)
                return s._tag === "Failed" ? { ...s, providerPaymentId: pi.id } : { _tag: "Processing", providerPaymentId: pi.id }
              }
              // Newer API versions say when the code expires; 2023-08-16 does not, then Tender's own expiry holds.
              const expiresAt = (qr as { expires_at?: number | null }).expires_at
              return {
                _tag: "Action",
                providerPaymentId: pi.id,
                nextAction: {
                  type: "display_qr_code",
                  qr_data: qr.data,
                  qr_image_url: qr.image_url_png,
                  ...(expiresAt == null ? {} : { expires_at: new Date(expiresAt * 1000).toISOString() })
                }
              }
            }),
            Effect.catchAll(rejectedAsDeclined)
          )
        }
        if (request.providerMethod === CARD_CHECKOUT) {
          const returnUrl = request.returnUrl ?? options.returnUrl
          if (returnUrl === undefined) {
            return Effect.succeed<ProviderPaymentResult>({
              _tag: "Failed",
              providerPaymentId: null,
              failureCode: "return_url_required",
              failureMessage: "A card payment needs a return_url to send the payer back to."
            })
          }
          return call(() =>
            client.checkout.sessions.create(
              withMethodTypes<Stripe.Checkout.SessionCreateParams>({
                mode: "payment",
                line_items: [{ quantity: 1, price_data: { currency, unit_amount: amount, product_data: { name: `Payment ${request.paymentIntentId}` } } }],
                success_url: returnUrl,
                cancel_url: returnUrl,
                client_reference_id: request.paymentIntentId,
                ...(request.customer.email === undefined ? {} : { customer_email: request.customer.email }),
                metadata,
                payment_intent_data: { metadata: { ...metadata, [META.checkout]: "true" } }
              }, ["card"]),
              { idempotencyKey: request.paymentIntentId }
            )
          ).pipe(
            Effect.map((session): ProviderPaymentResult => ({
              _tag: "Action",
              providerPaymentId: session.id,
              nextAction: { type: "redirect_to_url", url: session.url ?? "", expires_at: new Date(session.expires_at * 1000).toISOString() }
            })),
            Effect.catchAll(rejectedAsDeclined)
          )
        }
        return Effect.die(new Error(`@tender/stripe does not serve ${request.providerMethod}`))
      }),
    confirmPayment: status,
    getPaymentStatus: status,
    submitReceipt: (payment) => status(payment),
    cancelPayment: (payment) =>
      Effect.flatMap(clientFor(payment.environment), (client) => {
        const key = `${payment.paymentIntentId}/cancel`
        const stop = payment.providerPaymentId.startsWith("cs_")
          ? call(() => client.checkout.sessions.expire(payment.providerPaymentId, {}, { idempotencyKey: key })).pipe(Effect.as(undefined))
          : call(() => client.paymentIntents.cancel(payment.providerPaymentId, {}, { idempotencyKey: key })).pipe(Effect.as(undefined))
        // Stripe refuses to cancel what is no longer cancelable: what it is now is the answer, a
        // payment the payer made and Stripe is settling being paid (D10 refunds it).
        return stop.pipe(
          Effect.as<ProviderPaymentStatus>({ _tag: "Canceled" }),
          Effect.catchAll((e) =>
            e._tag === "ProviderUnavailable"
              ? Effect.fail(e)
              : Effect.map(status(payment), (s): ProviderPaymentStatus => s._tag === "Processing" ? { _tag: "Succeeded" } : s)
          )
        )
      }),
    refund: (refund) =>
      Effect.gen(function*() {
        const client = yield* clientFor(refund.payment.environment)
        const intent = yield* stripeIntentOf(client, refund.payment)
        if (intent === null) return { _tag: "Failed", failureCode: "refund_failed", failureMessage: "The payment has no settled charge to refund." } as const
        // A later call for the same refund reads it again: an idempotent replay would repeat its first state.
        const existing = yield* unavailable(call(() => client.refunds.list({ payment_intent: intent, limit: 100 })))
        const known = existing.data.find((r) => r.metadata?.[META.refund] === refund.refundId)
        if (known !== undefined) return refundStatus(known)
        return yield* call(() =>
          client.refunds.create({
            payment_intent: intent,
            amount: Number(refund.amount),
            metadata: {
              [META.refund]: refund.refundId,
              [META.paymentIntent]: refund.payment.paymentIntentId,
              [META.providerPayment]: refund.payment.providerPaymentId
            }
          }, { idempotencyKey: refund.refundId })
        ).pipe(
          Effect.map(refundStatus),
          Effect.catchAll((e) =>
            e._tag === "ProviderUnavailable"
              ? Effect.fail(e)
              : Effect.succeed<ProviderRefundStatus>({
                _tag: "Failed",
                failureCode: "refund_failed",
                failureMessage: "The provider could not refund the payment."
              })
          )
        )
      }),
    parseNotification: parse(clients.values().next().value ?? new Stripe("sk_test_verify_only"), secrets),
    accounts: {
      credentials: AccountCredentials,
      forAccount: (account) => {
        const secretKey = account.credentials["secret_key"]!
        if (environmentOfKey(secretKey) !== account.environment) {
          throw new CredentialsRefused(
            "secret_key",
            `must be a ${account.environment} key (sk_${account.environment}_… or rk_${account.environment}_…) for a ${account.environment} account`
          )
        }
        // The account's own key and signing secret alone: its door verifies with nothing else.
        return stripe({ ...options, secretKey, webhookSecret: account.credentials["webhook_secret"]! })
      }
    }
  }
}

/**
 * What a merchant's own Stripe account holds (D13, docs/provider-accounts.md): its secret (or
 * restricted) key, and the signing secret of its webhook endpoint pointed at the account's door.
 *
 * @since 0.1.0 @category schemas
 */
export const AccountCredentials = Accounts.AccountCredentials

/** The Stripe adapter as a service, for Effect hosts that build their provider list from layers. @since 0.1.0 @category tags */
export class StripeProvider extends Context.Tag("@tender/stripe/StripeProvider")<StripeProvider, PaymentProvider>() {}

/** The adapter from options. @since 0.1.0 @category layers */
export const layer = (options: StripeOptions): Layer.Layer<StripeProvider> => Layer.sync(StripeProvider, () => stripe(options))

/**
 * The adapter from configuration: `STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET` (each may list
 * several, comma-separated: a test and a live one) and `STRIPE_API_BASE` (optional).
 *
 * @since 0.1.0 @category layers
 */
export const layerConfig: Layer.Layer<StripeProvider, import("effect/ConfigError").ConfigError> = Layer.effect(
  StripeProvider,
  Effect.map(
    Config.all({
      secretKey: Config.redacted("STRIPE_SECRET_KEY"),
      webhookSecret: Config.redacted("STRIPE_WEBHOOK_SECRET"),
      apiBase: Config.option(Config.string("STRIPE_API_BASE"))
    }),
    (c) =>
      stripe({
        secretKey: Redacted.value(c.secretKey).split(",").map((s) => s.trim()),
        webhookSecret: Redacted.value(c.webhookSecret).split(",").map((s) => s.trim()),
        apiBase: c.apiBase._tag === "Some" ? c.apiBase.value : undefined
      })
  )
)
