/**
 * The Promise API's types: what `tender.paymentIntents`, `tender.payoutIntents`,
 * `tender.merchants`… take and answer. Bodies and answers are the wire JSON of the HTTP API (snake_case, amounts
 * as strings of minor units), so a host moves between the two without translating.
 *
 * Operations on a merchant's resources name the merchant and environment in their options,
 * as Stripe's SDK names a connected account (`{ merchant, environment }`): the host acts as
 * that merchant's key pair would, under the same rules.
 *
 * @since 0.1.0
 */
import { ProviderAccounts } from "@tender/core"
import type {
  BalanceTransaction,
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
import type * as Endpoints from "./internal/endpoints.js"
import type { Query } from "./internal/rows.js"
import type { Environment, ListPage, MerchantScope, WriteOptions } from "./internal/scope.js"

export type { Environment, ListPage, MerchantScope, WriteOptions }

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

/**
 * The merchant API's methods, one per endpoint of the HTTP API under the same group and endpoint
 * names (`tender.paymentIntents.create` is `POST /payment_intents`, `paymentIntents.create` in
 * `/openapi.json`, `client.paymentIntents.create` in `@tender/client`). Each takes, in order, the
 * resource id, the body or list query, and the options naming the merchant; it answers the
 * endpoint's JSON. docs/server.md lists them.
 *
 * @since 0.1.0 @category api
 */
export type MerchantApi = Endpoints.Methods

/** Payment intents (4.1-4.5, D10). @since 0.1.0 @category api */
export type PaymentIntentsApi = MerchantApi["paymentIntents"]
/** Assets: files for later receipts (4.4). @since 0.1.0 @category api */
export type AssetsApi = MerchantApi["assets"]
/** Refunds (D10). @since 0.1.0 @category api */
export type RefundsApi = MerchantApi["refunds"]
/** Top-up intents (4.7, 4.8): `create` requires `idempotencyKey`, as its route requires the header. @since 0.1.0 @category api */
export type TopupIntentsApi = MerchantApi["topupIntents"]
/** Webhook endpoints (6, D3): `create` answers the `secret` this once. @since 0.1.0 @category api */
export type WebhookEndpointsApi = MerchantApi["webhookEndpoints"]
/** Events (D7). @since 0.1.0 @category api */
export type EventsApi = MerchantApi["events"]
/** The balance (D12): `retrieve(options)`. @since 0.1.0 @category api */
export type BalanceApi = MerchantApi["balance"]
/** Balance transactions (D12): `retrieve`, `list`. @since 0.1.0 @category api */
export type BalanceTransactionsApi = MerchantApi["balanceTransactions"]
/** Discovery (4.6): `options(query, scope)`. @since 0.1.0 @category api */
export type PaymentMethodsApi = MerchantApi["paymentMethods"]
/** The webhook event type catalogue (4.11). @since 0.1.0 @category api */
export type WebhookEventTypesApi = MerchantApi["webhookEventTypes"]

/** Payout intents (D8): the merchant API's methods, and approval, which is the host's. @since 0.1.0 @category api */
export type PayoutIntentsApi = MerchantApi["payoutIntents"] & {
  /**
   * Approve a payout awaiting approval (D8): it becomes `processing` and a durable task sends it
   * to its provider. Another status rejects with 409 `payout_not_approvable` (nothing changes).
   */
  readonly approve: (id: string, options: MerchantScope) => Promise<PayoutIntentResource>
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
    /** The merchant's own account the route executes on (D13); null: the deployment's. */
    readonly provider_account: string | null
  }>
  /** The platform's fee per payment method code (D12). */
  readonly fees: Readonly<Record<string, { readonly rate_bps: number; readonly fixed_amount: string }>>
  /** Days a payment stays pending before it is available (D12). */
  readonly settlement_delay_days: number
  /** The merchant's own provider accounts (D13), without their credentials, which are never read back. */
  readonly provider_accounts: ReadonlyArray<{ readonly id: string; readonly provider: string; readonly environment: Environment }>
}

/**
 * Merchants (spec 5): onboarding is the host's. A merchant may hold provider accounts (D13,
 * docs/provider-accounts.md): `provider_accounts: [{ id, provider, environment, credentials }]`,
 * credentials checked by the provider's adapter and stored sealed; a bad credential rejects with
 * 400 `validation_failed` naming the field (`provider_accounts.0.credentials.secret_key`), never
 * its value. Credentials are never answered back.
 *
 * @since 0.1.0 @category api
 */
export interface MerchantsApi {
  /** A new merchant; an id taken already rejects with 400 `validation_failed` (`param: "id"`). */
  readonly create: (params: MerchantParams) => Promise<MerchantResource>
  readonly retrieve: (id: string) => Promise<MerchantResource>
  /** Replace a merchant's name, checkout modes, routes and provider accounts (credentials given again: they are never read back). */
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
  routes: m.routes.map((r) => ({
    id: r.id,
    method: r.method,
    provider: r.provider,
    environments: r.environments,
    priority: r.priority,
    provider_account: r.providerAccount ?? null
  })),
  fees: Object.fromEntries(Object.entries(m.fees ?? {}).map(([method, f]) => [method, { rate_bps: f.rateBps, fixed_amount: f.fixedAmount }])),
  settlement_delay_days: m.settlementDelayDays ?? 0,
  provider_accounts: (m.providerAccounts ?? []).map(ProviderAccounts.publicView)
})

/** A balance transaction as the API shows it (D12). @since 0.1.0 @category models */
export type BalanceTransactionResource = BalanceTransaction.Resource

/** What the host gives to adjust a merchant's balance (D12). @since 0.1.0 @category models */
export interface AdjustParams {
  /** Signed, non-zero, minor units: `"-500"` takes 5.00 off. */
  readonly amount: string
  readonly currency: string
  readonly description: string
  /** The same key again answers the adjustment it made. */
  readonly idempotency_key: string
}

/**
 * Balances, the host's side (D12): adjust a merchant's balance (an `adjustment` transaction, which
 * may take it below zero), and the platform's fee revenue per currency in an environment.
 *
 * @since 0.1.0 @category api
 */
export interface BalancesApi {
  readonly adjust: (params: AdjustParams, options: MerchantScope) => Promise<BalanceTransactionResource>
  readonly feeRevenue: (environment: Environment) => Promise<ReadonlyArray<{ readonly currency: string; readonly amount: string }>>
}
