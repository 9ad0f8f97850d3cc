/**
 * The Promise API's types: what `tender.payments`, `tender.payouts`, `tender.merchants`…
 * take and answer. Bodies and answers are the wire JSON of the HTTP API (snake_case, amounts
 * as strings of minor units), so a host moves between the two without translating.
 *
 * Operations on a merchant's resources name the merchant and environment in their options,
 * as Stripe's SDK names a connected account (`{ merchant, environment }`): the host acts as
 * that merchant's key pair would, under the same rules.
 *
 * @since 0.1.0
 */
import type {
  Merchants,
  PaymentIntent,
  PaymentIntentCancel,
  PaymentIntents,
  PayoutIntent,
  PayoutIntents,
  Refund,
  Refunds,
  Seed,
  WebhookEndpoint
} from "@tender/core"

/** @since 0.1.0 @category models */
export type Environment = "test" | "live"

/** Which merchant's resources, in which environment. @since 0.1.0 @category options */
export interface MerchantScope {
  readonly merchant: string
  readonly environment: Environment
}

/**
 * A POST's options: the merchant, and an `Idempotency-Key` as the HTTP API takes it (4.9, D5):
 * the same key with the same body answers the first result again; with another body, 409
 * `idempotency_conflict`.
 *
 * @since 0.1.0 @category options
 */
export interface WriteOptions extends MerchantScope {
  readonly idempotencyKey?: string | undefined
}

/** A page of a list, newest first (D6): pass `next_cursor` as `cursor` for the next page. @since 0.1.0 @category models */
export interface ListPage<T> {
  readonly data: ReadonlyArray<T>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/** A list query's values as in the URL; numbers and arrays are accepted and written as the URL would. */
type Query<Q> = { readonly [K in keyof Q]?: Q[K] | number | ReadonlyArray<string> | undefined }

/** @since 0.1.0 @category models */
export type PaymentIntentCreateParams = typeof PaymentIntent.CreateParams.Encoded
/** @since 0.1.0 @category models */
export type PaymentIntentResource = typeof PaymentIntent.PaymentIntent.Type
/** @since 0.1.0 @category models */
export type PaymentIntentCreated = typeof PaymentIntent.PaymentIntentCreated.Type
/** @since 0.1.0 @category models */
export type PaymentIntentListQuery = Query<typeof PaymentIntents.ListParams.Encoded>
/** @since 0.1.0 @category models */
export type PaymentIntentCancelParams = typeof PaymentIntentCancel.CancelParams.Encoded
/** @since 0.1.0 @category models */
export type RefundCreateParams = typeof Refund.CreateParams.Encoded
/** @since 0.1.0 @category models */
export type RefundResource = typeof Refund.Refund.Type
/** @since 0.1.0 @category models */
export type RefundListQuery = Query<typeof Refunds.ListParams.Encoded>
/** @since 0.1.0 @category models */
export type PayoutIntentCreateParams = typeof PayoutIntent.CreateParams.Encoded
/** @since 0.1.0 @category models */
export type PayoutIntentResource = typeof PayoutIntent.PayoutIntent.Type
/** @since 0.1.0 @category models */
export type PayoutIntentListQuery = Query<typeof PayoutIntents.ListParams.Encoded>
/** @since 0.1.0 @category models */
export type WebhookEndpointCreateParams = typeof WebhookEndpoint.CreateParams.Encoded
/** @since 0.1.0 @category models */
export type WebhookEndpointResource = typeof WebhookEndpoint.WebhookEndpoint.Type
/** @since 0.1.0 @category models */
export type WebhookEndpointCreated = typeof WebhookEndpoint.WebhookEndpointCreated.Type
/** @since 0.1.0 @category models */
export type WebhookEndpointDeleted = typeof WebhookEndpoint.WebhookEndpointDeleted.Type

/** Payment intents (4.1-4.5, D10). @since 0.1.0 @category api */
export interface PaymentsApi {
  readonly create: (params: PaymentIntentCreateParams, options: WriteOptions) => Promise<PaymentIntentCreated>
  readonly get: (id: string, options: MerchantScope) => Promise<PaymentIntentResource>
  readonly list: (query: PaymentIntentListQuery | undefined, options: MerchantScope) => Promise<ListPage<PaymentIntentResource>>
  readonly confirm: (id: string, options: WriteOptions) => Promise<PaymentIntentResource>
  readonly cancel: (id: string, params: PaymentIntentCancelParams | undefined, options: WriteOptions) => Promise<PaymentIntentResource>
  /** Refund all (no `amount`) or part of a succeeded payment (D10): `refunds.create` with `payment_intent: id`. */
  readonly refund: (id: string, params: Omit<RefundCreateParams, "payment_intent"> | undefined, options: WriteOptions) => Promise<RefundResource>
}

/** Refunds (D10). @since 0.1.0 @category api */
export interface RefundsApi {
  readonly create: (params: RefundCreateParams, options: WriteOptions) => Promise<RefundResource>
  readonly get: (id: string, options: MerchantScope) => Promise<RefundResource>
  readonly list: (query: RefundListQuery | undefined, options: MerchantScope) => Promise<ListPage<RefundResource>>
}

/** Payout intents (D8): approval is the host's, the rest is the merchant's API too. @since 0.1.0 @category api */
export interface PayoutsApi {
  readonly create: (params: PayoutIntentCreateParams, options: WriteOptions) => Promise<PayoutIntentResource>
  readonly get: (id: string, options: MerchantScope) => Promise<PayoutIntentResource>
  readonly list: (query: PayoutIntentListQuery | undefined, options: MerchantScope) => Promise<ListPage<PayoutIntentResource>>
  readonly cancel: (id: string, options: WriteOptions) => Promise<PayoutIntentResource>
  /**
   * Approve a payout awaiting approval (D8): it becomes `processing` and a durable task sends it
   * to its provider. Another status rejects with 409 `payout_not_approvable` (nothing changes).
   */
  readonly approve: (id: string, options: MerchantScope) => Promise<PayoutIntentResource>
}

/** Webhook endpoints (6, D3). @since 0.1.0 @category api */
export interface WebhookEndpointsApi {
  /** The answer carries the endpoint's `secret`, this once. */
  readonly create: (params: WebhookEndpointCreateParams, options: WriteOptions) => Promise<WebhookEndpointCreated>
  readonly get: (id: string, options: MerchantScope) => Promise<WebhookEndpointResource>
  readonly list: (query: { readonly limit?: number | string; readonly cursor?: string } | undefined, options: MerchantScope) => Promise<ListPage<WebhookEndpointResource>>
  readonly delete: (id: string, options: WriteOptions) => Promise<WebhookEndpointDeleted>
  /** A new secret, returned this once; the old one keeps signing beside it for `graceMillis` (default 24 h, from 0 to 7 days). */
  readonly rotateSecret: (id: string, options: MerchantScope & { readonly graceMillis?: number }) => Promise<{ readonly secret: string }>
}

/** A merchant as the seed format writes it (docs/seed-format.md), without key pairs. @since 0.1.0 @category models */
export type MerchantParams = Omit<typeof Seed.SeedMerchant.Encoded, "api_keys">

/** A stored merchant. @since 0.1.0 @category models */
export interface MerchantResource {
  readonly id: string
  readonly name: string
  readonly allowed_checkout_modes: ReadonlyArray<"hosted" | "merchant">
  readonly routes: ReadonlyArray<{
    readonly id: string
    readonly method: string
    readonly provider: string
    readonly environments: ReadonlyArray<Environment>
    readonly priority: number
  }>
}

/** Merchants (spec 5): onboarding is the host's. @since 0.1.0 @category api */
export interface MerchantsApi {
  /** A new merchant; an id taken already rejects with 400 `validation_failed` (`param: "id"`). */
  readonly create: (params: MerchantParams) => Promise<MerchantResource>
  readonly get: (id: string) => Promise<MerchantResource>
  /** Replace a merchant's name, checkout modes and routes. */
  readonly update: (id: string, params: Omit<MerchantParams, "id">) => Promise<MerchantResource>
}

/** A key pair in clear: the secret is shown this once and stored only as its hash (D2). @since 0.1.0 @category models */
export interface IssuedKeyPair {
  readonly id: string
  readonly merchant: string
  readonly environment: Environment
  readonly public_key: string
  readonly secret_key: string
}

/** API key pairs (spec 5, D2). @since 0.1.0 @category api */
export interface KeysApi {
  readonly issue: (merchant: string, environment: Environment) => Promise<IssuedKeyPair>
  /** Issue a new pair in the key's merchant and environment and revoke the old one. */
  readonly rotate: (publicKey: string) => Promise<IssuedKeyPair>
  /** Revoke for good: the pair authenticates no more requests. Revoking twice is a no-op. */
  readonly revoke: (publicKey: string) => Promise<void>
}

/**
 * Route health, the host's word (spec 2.3): a route or provider taken out of service is skipped
 * by routing until put back. Held by this process (RouteHealth): every process of a deployment
 * is told.
 *
 * @since 0.1.0 @category api
 */
export interface RoutesApi {
  readonly setAvailable: (routeId: string, available: boolean) => Promise<void>
  readonly setProviderAvailable: (provider: string, available: boolean) => Promise<void>
}

/** The stored merchant, as the Promise API shows it. */
export const merchantResource = (m: Merchants.Merchant): MerchantResource => ({
  id: m.id,
  name: m.name,
  allowed_checkout_modes: m.allowedCheckoutModes,
  routes: m.routes.map((r) => ({ id: r.id, method: r.method, provider: r.provider, environments: r.environments, priority: r.priority }))
})
