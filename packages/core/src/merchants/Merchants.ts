/**
 * Merchants, their API key pairs, team policy and configured routes (spec 5, D2). The directory
 * is implemented once, over `Storage` (`layer`): its records are tables like any other.
 *
 * @since 0.1.0
 */
import type { Option } from "effect"
import { Context, Effect, Layer } from "effect"
import { sha256 } from "../requests/Canonical.js"
import { randomBase62 } from "../resources/Ids.js"
import type { Environment } from "../resources/Schemas.js"
import * as MemoryStorage from "../storage/MemoryStorage.js"
import { Storage } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Directory from "./internal/directory.js"
import type { AccountOwner, ApiKey, Availability, AvailabilityTarget, Credentials, Merchant, ProviderAccount } from "./internal/directoryTables.js"
import * as Tables from "./internal/directoryTables.js"

export type { AccountOwner, ApiKey, Availability, AvailabilityTarget, Credentials, Merchant, ProviderAccount, Route } from "./internal/directoryTables.js"

/** A merchant's provider account `id`, if it holds one. @since 0.1.0 */
export const accountOf = (merchant: Merchant, id: string): ProviderAccount | undefined => merchant.providerAccounts?.find((a) => a.id === id)

/** A key pair in clear, returned once when created. @since 0.1.0 @category models */
export interface IssuedKeyPair {
  readonly apiKey: ApiKey
  readonly publicKey: string
  readonly secretKey: string
}

/** The merchant directory: a service over `Storage` (`layer`), never a port of an adapter. @since 0.1.0 @category tags */
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

/**
 * The directory's tables (issue 49): merchants (`table`), API keys (`apiKeyTable`, unique by
 * public key), the keys of provider accounts (`accountTable`, whose id is the account's: unique
 * across merchants, D13) and the host's word on routes and providers (`availabilityTable`). None
 * belongs to a merchant's scope (`Table.scoped` false). An adapter's schema holds them as it holds
 * every table (`tables`); the directory itself is implemented here, over `Storage`.
 *
 * @since 0.1.0 @category tables
 */
export const table = Tables.merchants
/** @since 0.1.0 @category tables */
export const apiKeyTable = Tables.apiKeys
/** @since 0.1.0 @category tables */
export const accountTable = Tables.accountKeys
/** @since 0.1.0 @category tables */
export const availabilityTable = Tables.availability
/** Every table of the directory. @since 0.1.0 @category tables */
export const tables = Tables.all

/** The directory over a store. @since 0.1.0 @category constructors */
export const make = (storage: Storage["Type"]): Merchants["Type"] => Merchants.of(Directory.make(storage))

/** The directory over the `Storage` provided: what every adapter's layer provides beside it. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Merchants, never, Storage> = Layer.effect(Merchants, Effect.map(Storage, make))

/**
 * A directory on a store of its own in memory, optionally pre-filled (through `putMerchant` and
 * `putApiKey`, so the same rules hold).
 *
 * @since 0.1.0 @category layers
 */
export const layerMemory = (initial: {
  readonly merchants?: ReadonlyArray<Merchant>
  readonly apiKeys?: ReadonlyArray<ApiKey>
} = {}): Layer.Layer<Merchants> =>
  Layer.effect(
    Merchants,
    Effect.gen(function*() {
      const merchants = make(MemoryStorage.make())
      yield* Effect.forEach(initial.merchants ?? [], merchants.putMerchant, { discard: true })
      yield* Effect.forEach(initial.apiKeys ?? [], merchants.putApiKey, { discard: true })
      return merchants
    }).pipe(Effect.orDie)
  )
