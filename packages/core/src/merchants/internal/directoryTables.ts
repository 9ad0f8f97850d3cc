/**
 * The merchant directory as tables of `Storage` (issue 49): merchants, their API keys, the keys
 * of their provider accounts and the host's word on routes and providers. None belongs to a
 * merchant's scope (`Table.makeUnscoped`), so each is read by id, by its one unique field and in
 * id order, and an adapter stores them as it stores every table: from the fields.
 */
import { Schema } from "effect"
import type { CheckoutMode } from "../../resources/Schemas.js"
import { Environment } from "../../resources/Schemas.js"
import * as Table from "../../storage/Table.js"

/** A configured route: this merchant's method `method` executes at provider `provider`. @since 0.1.0 @category models */
export interface Route {
  readonly id: string
  readonly method: string
  readonly provider: string
  readonly environments: ReadonlyArray<Environment>
  /** Lower first. */
  readonly priority: number
  /**
   * The merchant's own provider account this route executes on (D13): one of the merchant's
   * `providerAccounts`, of the route's provider and environment. Absent or null: the
   * deployment's own account for the provider.
   */
  readonly providerAccount?: string | null | undefined
}

/**
 * A merchant's own account at a provider (D13). `credentials` is sealed
 * (`CredentialVault`): what the provider's adapter declared it needs, encrypted under the
 * host's key, never held in clear by a stored merchant.
 *
 * @since 0.1.0 @category models
 */
export interface ProviderAccount {
  /** Unique among every merchant's accounts: it names the account's notification door. */
  readonly id: string
  readonly provider: string
  readonly environment: Environment
  /** The sealed credentials (`CredentialVault.Vault.seal`). */
  readonly credentials: string
}

/** An account with the merchant that holds it. @since 0.1.0 @category models */
export interface AccountOwner {
  readonly merchant: Merchant
  readonly account: ProviderAccount
}

/** A merchant and its team policy. @since 0.1.0 @category models */
export interface Merchant {
  readonly id: string
  readonly name: string
  /** Team policy: the checkout modes this merchant may use (4.1.5). */
  readonly allowedCheckoutModes: ReadonlyArray<CheckoutMode>
  readonly routes: ReadonlyArray<Route>
  /** The platform's fee per payment method code (D12); a method not named here pays none. */
  readonly fees?: Readonly<Record<string, { readonly rateBps: number; readonly fixedAmount: string }>> | undefined
  /** Days a payment stays pending before it is available (D12, 0 to 30); absent: 0. */
  readonly settlementDelayDays?: number | undefined
  /** The merchant's own provider accounts (D13); absent: none. */
  readonly providerAccounts?: ReadonlyArray<ProviderAccount> | undefined
}

/** A stored key pair: the secret only as its SHA-256 (D2). @since 0.1.0 @category models */
export interface ApiKey {
  readonly id: string
  readonly merchantId: string
  readonly environment: Environment
  readonly publicKey: string
  readonly secretHash: string
  readonly revokedAt: number | null
  readonly createdAt: number
  /**
   * Present on a key a seed declared (`Seed.apply`): the seed manages it, so a later start on a
   * seed without it revokes it (docs/seed-format.md). Absent on keys issued at run time.
   */
  readonly seeded?: true
}

/** A stored key with the merchant it belongs to. @since 0.1.0 @category models */
export interface Credentials {
  readonly apiKey: ApiKey
  readonly merchant: Merchant
}

/** What the host can take out of service: one configured route, or every route to a provider. @since 0.1.0 @category models */
export interface AvailabilityTarget {
  readonly kind: "route" | "provider"
  readonly id: string
}

/**
 * The host's stored word on routes and providers (docs/performance.md, "Caches across
 * processes"): `false` out of service, `true` back in service (over a seed's `healthy: false`);
 * a route or provider absent here has no word from the host.
 *
 * @since 0.1.0 @category models
 */
export interface Availability {
  readonly routes: ReadonlyMap<string, boolean>
  readonly providers: ReadonlyMap<string, boolean>
}

const base = { createdAt: Table.Millis, version: Table.Integer }

/**
 * A merchant as stored: its team policy, routes, D12 balance settings and its provider accounts
 * with their sealed credentials (D13). `fees` `{}`, `settlementDelayDays` 0 and
 * `providerAccounts` `[]` are a merchant put without them (`Merchants.Merchant` leaves them out).
 */
export const MerchantRecord = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  allowedCheckoutModes: Schema.Array(Schema.String),
  routes: Schema.Array(Schema.Unknown),
  fees: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  settlementDelayDays: Table.Integer,
  providerAccounts: Schema.Array(Schema.Unknown),
  ...base
})
export type MerchantRecord = typeof MerchantRecord.Type

/** The merchants, by id. */
export const merchants = Table.makeUnscoped({ name: "merchants", idPrefix: "", record: MerchantRecord })

/** An API key as stored: the secret only as its SHA-256 (D2); `seeded` a key a seed manages. */
export const ApiKeyRecord = Schema.Struct({
  id: Schema.String,
  merchantId: Schema.String,
  environment: Environment,
  publicKey: Schema.String,
  secretHash: Schema.String,
  revokedAt: Schema.NullOr(Table.Millis),
  seeded: Schema.Boolean,
  ...base
})
export type ApiKeyRecord = typeof ApiKeyRecord.Type

/** The API keys: by id, and by public key, unique across every merchant (authentication's one lookup, D2). */
export const apiKeys = Table.makeUnscoped({
  name: "api_keys",
  idPrefix: "key_",
  record: ApiKeyRecord,
  unique: [{ name: "public_key", fields: ["publicKey"] }]
})

/**
 * A provider account's id with the merchant holding it (D13). The id is the record's: the store's
 * primary key holds account ids unique across merchants, so of two racing merchants one holds it.
 */
export const AccountKeyRecord = Schema.Struct({ id: Schema.String, merchantId: Schema.String, ...base })
export type AccountKeyRecord = typeof AccountKeyRecord.Type

/** The keys of every merchant's provider accounts, walked by `merchantId` for one merchant's. */
export const accountKeys = Table.makeUnscoped({ name: "provider_accounts", idPrefix: "", record: AccountKeyRecord })

/** The host's word on one route or provider: the id is `route:<id>` or `provider:<code>`. */
export const AvailabilityRecord = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("route", "provider"),
  target: Schema.String,
  available: Schema.Boolean,
  createdAt: Table.Millis,
  updatedAt: Table.Millis,
  version: Table.Integer
})
export type AvailabilityRecord = typeof AvailabilityRecord.Type

/** The host's words on routes and providers. */
export const availability = Table.makeUnscoped({ name: "route_availability", idPrefix: "", record: AvailabilityRecord })

/** Every table of the directory, for an adapter's schema. */
export const all: ReadonlyArray<Table.Table<any>> = [merchants, apiKeys, accountKeys, availability]
