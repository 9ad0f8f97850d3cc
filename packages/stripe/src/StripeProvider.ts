/**
 * The Stripe adapter: PromptPay (a QR code from Stripe's `promptpay_display_qr_code` next
 * action) and cards through Stripe Checkout (a redirect), on Stripe's official SDK, with
 * Tender's ids as Stripe's idempotency keys and Stripe's notifications read as D11 notices.
 * A `sk_test_` key serves `test` routes only, a `sk_live_` key `live` routes only. What is not
 * Stripe's (the call's bound, faults vs refusals, failure codes, keys, layers) is the adapter
 * kit's (`@tender/core/ProviderKit`). docs/providers/stripe.md.
 *
 * @since 0.1.0
 */
import type { Customer } from "@tender/core/PaymentIntent"
import type {
  PaymentProvider,
  ProviderPaymentRef,
  ProviderPaymentStatus,
  ProviderRefundRequest,
  ProviderRefundStatus,
  ProviderUnavailable
} from "@tender/core/Provider"
import { CredentialsRefused } from "@tender/core/ProviderAccounts"
import * as Kit from "@tender/core/ProviderKit"
import type { Environment } from "@tender/core/Schemas"
import { Config, Context, Effect } from "effect"
import Stripe from "stripe"
import * as Accounts from "./internal/accounts.js"
import { checkoutResult, paymentStatus, promptPayResult, refundStatus, sessionStatus } from "./internal/answers.js"
import { clientsOf, environmentOfKey } from "./internal/clients.js"
import { declines, errorOf, paymentIntentOf } from "./internal/failures.js"
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
  /** The bound of one call to Stripe in ms, the SDK's retries included (default 15 000, within the 20 s a provider call is given). */
  readonly timeoutMillis?: number | undefined
  /** The SDK's own retries of a failed request, with the same idempotency key (default 1). */
  readonly maxNetworkRetries?: number | undefined
}

const list = <A>(x: A | ReadonlyArray<A>): ReadonlyArray<A> => Array.isArray(x) ? x : [x as A]

// The SDK's types follow its newest API version, which dropped `payment_method_types`; the
// pinned 2023-08-16 version takes it (and the stand-in checks it against that description).
const withMethodTypes = <P>(params: P, types: ReadonlyArray<string>): P => ({ ...params, payment_method_types: types }) as P

const billing = (customer: Customer) => ({
  ...(customer.name === undefined ? {} : { name: customer.name }),
  ...(customer.email === undefined ? {} : { email: customer.email }),
  ...(customer.phone === undefined ? {} : { phone: customer.phone })
})

// A payment is a Checkout Session (`cs_…`, a card) or a payment intent (PromptPay).
const isSession = (payment: ProviderPaymentRef) => payment.providerPaymentId.startsWith("cs_")

/** What one adapter's calls work on: its client per environment, its vendor kit, the host's options. */
interface Adapter {
  readonly clients: ReadonlyMap<Environment, Stripe>
  readonly v: Kit.Vendor
  readonly options: StripeOptions
}

const withClient = <A, E>({ clients, v }: Adapter, environment: Environment, f: (client: Stripe) => Effect.Effect<A, E>) => {
  const client = clients.get(environment)
  return client === undefined ? Effect.fail(v.unavailable(`no Stripe ${environment} key is configured`)) : f(client)
}

const status = (a: Adapter, payment: ProviderPaymentRef): Effect.Effect<ProviderPaymentStatus, ProviderUnavailable> =>
  withClient(a, payment.environment, (client) =>
    isSession(payment)
      ? Effect.map(a.v.read(() => client.checkout.sessions.retrieve(payment.providerPaymentId)), sessionStatus)
      : Effect.map(a.v.read(() => client.paymentIntents.retrieve(payment.providerPaymentId)), paymentStatus))

// The Stripe payment intent behind a payment: a Checkout Session's, once the payer paid.
const stripeIntentOf = (v: Kit.Vendor, client: Stripe, payment: ProviderPaymentRef) =>
  isSession(payment)
    ? Effect.map(v.read(() => client.checkout.sessions.retrieve(payment.providerPaymentId)), (s) =>
      typeof s.payment_intent === "string" ? s.payment_intent : s.payment_intent?.id ?? null)
    : Effect.succeed(payment.providerPaymentId)

/** PromptPay: a Stripe payment intent confirmed at once, whose next action is the QR code. */
const createPromptPay = (a: Adapter): Kit.CreateByMethod => (request) =>
  withClient(a, request.environment, (client) =>
    a.v.created(
      a.v.integer(request.amount).pipe(
        Effect.flatMap((amount) =>
          a.v.call(() =>
            client.paymentIntents.create(
              withMethodTypes<Stripe.PaymentIntentCreateParams>({
                amount,
                currency: request.currency.toLowerCase(),
                payment_method_data: { type: "promptpay", billing_details: billing(request.customer) },
                confirm: true,
                metadata: { [META.paymentIntent]: request.paymentIntentId }
              }, ["promptpay"]),
              { idempotencyKey: Kit.idempotencyKey("create", request) }
            )
          )
        ),
        Effect.map(promptPayResult)
      ),
      paymentIntentOf
    ))

/** A card: a Checkout Session the payer is sent to, and back to the intent's (or the host's) return URL. */
const createCardCheckout = (a: Adapter): Kit.CreateByMethod => (request) =>
  withClient(a, request.environment, (client) => {
    const returnUrl = request.returnUrl ?? a.options.returnUrl
    if (returnUrl === undefined) return Effect.succeed({ _tag: "Failed", providerPaymentId: null, ...Kit.failure("return_url_required") } as const)
    const metadata = { [META.paymentIntent]: request.paymentIntentId }
    return a.v.created(
      a.v.integer(request.amount).pipe(
        Effect.flatMap((amount) =>
          a.v.call(() =>
            client.checkout.sessions.create(
              withMethodTypes<Stripe.Checkout.SessionCreateParams>({
                mode: "payment",
                line_items: [{
                  quantity: 1,
                  price_data: {
                    currency: request.currency.toLowerCase(),
                    unit_amount: amount,
                    product_data: { name: `Payment ${request.paymentIntentId}` }
                  }
                }],
                success_url: returnUrl,
                cancel_url: returnUrl,
                client_reference_id: request.paymentIntentId,
                ...(request.customer.email === undefined ? {} : { customer_email: request.customer.email }),
                metadata,
                payment_intent_data: { metadata: { ...metadata, [META.checkout]: "true" } }
              }, ["card"]),
              { idempotencyKey: Kit.idempotencyKey("create", request) }
            )
          )
        ),
        Effect.map(checkoutResult)
      )
    )
  })

const cancelPayment = (a: Adapter, payment: ProviderPaymentRef) =>
  withClient(a, payment.environment, (client) => {
    const key = { idempotencyKey: Kit.idempotencyKey("cancel", payment) }
    const stop = isSession(payment)
      ? a.v.call(() => client.checkout.sessions.expire(payment.providerPaymentId, {}, key)).pipe(Effect.asVoid)
      : a.v.call(() => client.paymentIntents.cancel(payment.providerPaymentId, {}, key)).pipe(Effect.asVoid)
    // Stripe refuses to cancel what is no longer cancelable: what it is now is the answer, a
    // payment the payer made and Stripe is settling being paid (D10 refunds it).
    return stop.pipe(
      Effect.as<ProviderPaymentStatus>({ _tag: "Canceled" }),
      Effect.catchTag(
        "VendorRejected",
        () => Effect.map(status(a, payment), (s): ProviderPaymentStatus => s._tag === "Processing" ? { _tag: "Succeeded" } : s)
      )
    )
  })

const refund = (a: Adapter, refund: ProviderRefundRequest) =>
  withClient(a, refund.payment.environment, (client) =>
    Effect.gen(function*() {
      const { v } = a
      const intent = yield* stripeIntentOf(v, client, refund.payment)
      // No settled charge to refund.
      if (intent === null) return { _tag: "Failed", ...Kit.failure("refund_failed") } as const
      // A later call for the same refund reads it again: an idempotent replay would repeat its first state.
      const existing = yield* v.read(() => client.refunds.list({ payment_intent: intent, limit: 100 }))
      const known = existing.data.find((r) => r.metadata?.[META.refund] === refund.refundId)
      if (known !== undefined) return refundStatus(known)
      return yield* v.refunded(
        v.integer(refund.amount).pipe(
          Effect.flatMap((amount) =>
            v.call(() =>
              client.refunds.create({
                payment_intent: intent,
                amount,
                metadata: {
                  [META.refund]: refund.refundId,
                  [META.paymentIntent]: refund.payment.paymentIntentId,
                  [META.providerPayment]: refund.payment.providerPaymentId
                }
              }, { idempotencyKey: Kit.idempotencyKey("refund", refund) })
            )
          ),
          Effect.map((r): ProviderRefundStatus => refundStatus(r))
        )
      )
    }))

/** The adapter. Throws on a key that is neither a test nor a live key (a configuration error). @since 0.1.0 @category constructors */
export const stripe = (options: StripeOptions): PaymentProvider => {
  const timeoutMillis = options.timeoutMillis ?? Kit.defaultTimeoutMillis
  const clients = clientsOf(list(options.secretKey), {
    apiVersion,
    apiBase: options.apiBase ?? "https://api.stripe.com",
    timeoutMillis,
    maxNetworkRetries: options.maxNetworkRetries ?? 1
  })
  const secrets = list(options.webhookSecret)
  // Without keys of its own the adapter only serves merchants' accounts (D13), and needs no secret.
  if (secrets.length === 0 && clients.size > 0) throw new Error("A Stripe webhook secret (whsec_…) is needed to verify notifications")
  const a: Adapter = { clients, v: Kit.vendor({ provider: code, name: "Stripe", timeoutMillis, declines, errorOf }), options }
  const catalogue = methods([...clients.keys()], options.card ?? { countries: ["TH"], currencies: ["THB"] })
  const statusOf = (payment: ProviderPaymentRef) => status(a, payment)
  return {
    code,
    methods: catalogue,
    /** Stripe's request and answer for each method. */
    createPayment: Kit.createByMethod(code, catalogue, { [PROMPTPAY]: createPromptPay(a), [CARD_CHECKOUT]: createCardCheckout(a) }),
    confirmPayment: statusOf,
    getPaymentStatus: statusOf,
    submitReceipt: statusOf,
    cancelPayment: (payment) => cancelPayment(a, payment),
    refund: (r) => refund(a, r),
    parseNotification: parse(clients.values().next().value ?? new Stripe("sk_test_verify_only"), secrets),
    // A merchant's own account (D13): its key and signing secret alone; its door verifies with nothing else.
    accounts: Kit.accounts(AccountCredentials, (credentials, account) => {
      if (environmentOfKey(credentials.secret_key) !== account.environment) {
        throw new CredentialsRefused(
          "secret_key",
          `must be a ${account.environment} key (sk_${account.environment}_… or rk_${account.environment}_…) for a ${account.environment} account`
        )
      }
      return stripe({ ...options, secretKey: credentials.secret_key, webhookSecret: credentials.webhook_secret })
    })
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

const layers = Kit.layers(
  StripeProvider,
  stripe,
  Config.all({
    secretKey: Kit.configList("STRIPE_SECRET_KEY"),
    webhookSecret: Kit.configList("STRIPE_WEBHOOK_SECRET"),
    apiBase: Kit.configOptional(Config.string("STRIPE_API_BASE"))
  })
)

/** The adapter from options. @since 0.1.0 @category layers */
export const layer = layers.layer

/**
 * The adapter from configuration: `STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET` (each may list
 * several, comma-separated: a test and a live one) and `STRIPE_API_BASE` (optional).
 *
 * @since 0.1.0 @category layers
 */
export const layerConfig = layers.layerConfig
