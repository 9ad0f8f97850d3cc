/**
 * Merchants, their API key pairs, team policy and configured routes (spec 5, D2).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import { sha256 } from "../requests/Canonical.js"
import { randomBase62 } from "../resources/Ids.js"
import type { CheckoutMode, Environment } from "../resources/Schemas.js"
import type { StorageError } from "../storage/StorageError.js"
import { UniqueViolation } from "../storage/StorageError.js"

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

/** A merchant's provider account `id`, if it holds one. @since 0.1.0 */
export const accountOf = (merchant: Merchant, id: string): ProviderAccount | undefined => merchant.providerAccounts?.find((a) => a.id === id)

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

/** A key pair in clear, returned once when created. @since 0.1.0 @category models */
export interface IssuedKeyPair {
  readonly apiKey: ApiKey
  readonly publicKey: string
  readonly secretKey: string
}

/** The merchant directory port. @since 0.1.0 @category tags */
export class Merchants extends Context.Tag("@tender/core/Merchants")<Merchants, {
  readonly findMerchant: (id: string) => Effect.Effect<Option.Option<Merchant>, StorageError>
  readonly findKeyByPublicKey: (publicKey: string) => Effect.Effect<Option.Option<ApiKey>, StorageError>
  /** The key and its merchant in one lookup, as authentication needs them on every request; none if either is missing. */
  readonly findCredentials: (publicKey: string) => Effect.Effect<Option.Option<Credentials>, StorageError>
  /**
   * The merchants holding a provider account `id` (D13): one, or none (the store keeps account
   * ids unique, `putMerchant`; a caller still treats more than one as none).
   */
  readonly findProviderAccount: (id: string) => Effect.Effect<ReadonlyArray<AccountOwner>, StorageError>
  /** Up to `limit` merchants with an id after `after` (null: from the first), by id: for host tools that walk them all. */
  readonly listMerchants: (after: string | null, limit: number) => Effect.Effect<ReadonlyArray<Merchant>, StorageError>
  /**
   * Insert or replace by id. Fails with `UniqueViolation`, writing nothing, when another merchant
   * holds one of its provider account ids (D13: an id names its account's notification door):
   * a unique constraint of the store, so of two racing writes one holds the id.
   */
  readonly putMerchant: (merchant: Merchant) => Effect.Effect<void, StorageError>
  /** Insert or replace by public key; a revocation already stored is kept (revocation is permanent). */
  readonly putApiKey: (key: ApiKey) => Effect.Effect<void, StorageError>
  /** Revoke by key id; false when there is no such key. Revoking twice keeps the first time. */
  readonly revokeApiKey: (keyId: string, at: number) => Effect.Effect<boolean, StorageError>
  /**
   * Revoke, at `at`, every seed-managed key (`seeded`) not yet revoked whose public key is not in
   * `keep`; the ids of the keys revoked now. Keys issued at run time are never touched.
   */
  readonly revokeSeededKeysExcept: (keep: ReadonlyArray<string>, at: number) => Effect.Effect<ReadonlyArray<string>, StorageError>
  /** Store the host's word on a route or provider, replacing its earlier word (`RouteHealth.layer` reads it). */
  readonly setAvailability: (target: AvailabilityTarget, available: boolean) => Effect.Effect<void, StorageError>
  /** Every stored word on routes and providers. */
  readonly findAvailability: Effect.Effect<Availability, StorageError>
}>() {}

/** The environment a key's prefix fixes (5.2, 5.3), or undefined for a malformed key. @since 0.1.0 */
export const environmentOfPublicKey = (publicKey: string): Environment | undefined =>
  publicKey.startsWith("pk_live_") ? "live" : publicKey.startsWith("pk_test_") ? "test" : undefined

/** @since 0.1.0 */
export const environmentOfSecretKey = (secretKey: string): Environment | undefined =>
  secretKey.startsWith("sk_live_") ? "live" : secretKey.startsWith("sk_test_") ? "test" : undefined

/** The stored form of a secret (D2). @since 0.1.0 */
export const hashSecret = (secretKey: string): string => sha256(secretKey)

/**
 * A new key pair for a merchant: random public and secret keys (the secret shown once),
 * stored with the secret hashed.
 *
 * @since 0.1.0 @category constructors
 */
export const issueKeyPair = (merchantId: string, environment: Environment) =>
  Effect.gen(function*() {
    const merchants = yield* Merchants
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const publicKey = `pk_${environment}_${randomBase62(24)}`
    const secretKey = `sk_${environment}_${randomBase62(32)}`
    const apiKey: ApiKey = {
      id: "key_" + randomBase62(),
      merchantId,
      environment,
      publicKey,
      secretHash: hashSecret(secretKey),
      revokedAt: null,
      createdAt: now
    }
    yield* merchants.putApiKey(apiKey)
    return { apiKey, publicKey, secretKey } satisfies IssuedKeyPair
  })

/** Rotation: issue a new pair and revoke the old one. @since 0.1.0 @category constructors */
export const rotateKeyPair = (old: ApiKey) =>
  Effect.gen(function*() {
    const issued = yield* issueKeyPair(old.merchantId, old.environment)
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    yield* (yield* Merchants).revokeApiKey(old.id, now)
    return issued
  })

/** An in-memory directory, optionally pre-filled. @since 0.1.0 @category layers */
export const layerMemory = (initial: {
  readonly merchants?: ReadonlyArray<Merchant>
  readonly apiKeys?: ReadonlyArray<ApiKey>
} = {}): Layer.Layer<Merchants> =>
  Layer.sync(Merchants, () => {
    const merchants = new Map((initial.merchants ?? []).map((m) => [m.id, m]))
    const keysByPublic = new Map((initial.apiKeys ?? []).map((k) => [k.publicKey, k]))
    const availability = { routes: new Map<string, boolean>(), providers: new Map<string, boolean>() }
    return {
      findMerchant: (id) => Effect.sync(() => Option.fromNullable(merchants.get(id))),
      findKeyByPublicKey: (pk) => Effect.sync(() => Option.fromNullable(keysByPublic.get(pk))),
      findCredentials: (pk) =>
        Effect.sync(() => {
          const apiKey = keysByPublic.get(pk)
          const merchant = apiKey === undefined ? undefined : merchants.get(apiKey.merchantId)
          return apiKey === undefined || merchant === undefined ? Option.none() : Option.some({ apiKey, merchant })
        }),
      findProviderAccount: (id) =>
        Effect.sync(() =>
          [...merchants.values()].flatMap((merchant) => {
            const account = accountOf(merchant, id)
            return account === undefined ? [] : [{ merchant, account }]
          })
        ),
      listMerchants: (after, limit) =>
        Effect.sync(() =>
          [...merchants.values()].filter((m) => after === null || m.id > after).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit)
        ),
      // Stored as every store reads it back: no accounts, no field.
      putMerchant: (m) =>
        Effect.suspend(() => {
          const { providerAccounts, ...rest } = m
          const taken = (providerAccounts ?? []).find((a) => [...merchants.values()].some((o) => o.id !== m.id && accountOf(o, a.id) !== undefined))
          if (taken !== undefined) return Effect.fail(new UniqueViolation({ message: `provider account ${JSON.stringify(taken.id)} is another merchant's` }))
          merchants.set(m.id, providerAccounts === undefined || providerAccounts.length === 0 ? rest : m)
          return Effect.void
        }),
      // Revocation is permanent: putting a key again never clears it (a seed cannot un-revoke).
      putApiKey: (k) =>
        Effect.sync(() => {
          const revokedAt = keysByPublic.get(k.publicKey)?.revokedAt ?? null
          keysByPublic.set(k.publicKey, revokedAt === null ? k : { ...k, revokedAt })
        }),
      revokeApiKey: (keyId, at) =>
        Effect.sync(() => {
          for (const [pk, k] of keysByPublic) {
            if (k.id === keyId) {
              if (k.revokedAt === null) keysByPublic.set(pk, { ...k, revokedAt: at })
              return true
            }
          }
          return false
        }),
      revokeSeededKeysExcept: (keep, at) =>
        Effect.sync(() => {
          const kept = new Set(keep)
          const revoked: Array<string> = []
          for (const [pk, k] of keysByPublic) {
            if (k.seeded === true && k.revokedAt === null && !kept.has(pk)) {
              keysByPublic.set(pk, { ...k, revokedAt: at })
              revoked.push(k.id)
            }
          }
          return revoked
        }),
      setAvailability: (target, available) =>
        Effect.sync(() => void (target.kind === "route" ? availability.routes : availability.providers).set(target.id, available)),
      findAvailability: Effect.sync(() => ({ routes: new Map(availability.routes), providers: new Map(availability.providers) }))
    }
  })
