/**
 * The merchant directory (`Merchants`) implemented once, over `Storage` (issue 49): every store
 * holds the directory's tables (`directoryTables.ts`) as it holds any table, so an adapter
 * implements the storage port and nothing of the directory.
 */
import { Clock, Effect, Option } from "effect"
import type { Storage, WalkQuery } from "../../storage/Storage.js"
import { Write } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import type * as Table from "../../storage/Table.js"
import type { AccountOwner, ApiKey, Availability, AvailabilityTarget, Credentials, Merchant, ProviderAccount } from "./directoryTables.js"
import * as T from "./directoryTables.js"

/** A merchant as read back: what was put, the defaults left out (as a seed without them makes it). */
export const toMerchant = (r: T.MerchantRecord): Merchant => ({
  id: r.id,
  name: r.name,
  allowedCheckoutModes: r.allowedCheckoutModes as Merchant["allowedCheckoutModes"],
  routes: r.routes as Merchant["routes"],
  ...(Object.keys(r.fees).length === 0 ? {} : { fees: r.fees as NonNullable<Merchant["fees"]> }),
  ...(r.settlementDelayDays === 0 ? {} : { settlementDelayDays: r.settlementDelayDays }),
  ...(r.providerAccounts.length === 0 ? {} : { providerAccounts: r.providerAccounts as ReadonlyArray<ProviderAccount> })
})

const toApiKey = (r: T.ApiKeyRecord): ApiKey => ({
  id: r.id,
  merchantId: r.merchantId,
  environment: r.environment,
  publicKey: r.publicKey,
  secretHash: r.secretHash,
  revokedAt: r.revokedAt,
  createdAt: r.createdAt,
  ...(r.seeded ? { seeded: true as const } : {})
})

/** A key as stored, with the revocation already stored kept (revocation is permanent). */
const keyRecord = (k: ApiKey, stored: T.ApiKeyRecord | undefined, version: number): T.ApiKeyRecord => ({
  id: k.id,
  merchantId: k.merchantId,
  environment: k.environment,
  publicKey: k.publicKey,
  secretHash: k.secretHash,
  revokedAt: stored?.revokedAt ?? k.revokedAt,
  seeded: k.seeded === true,
  createdAt: k.createdAt,
  version
})

/**
 * What an unknown public key's credentials lookup reads as its merchant: an id no merchant holds
 * (a merchant id is never empty, docs/seed-format.md), yet one a store looks up as it looks up any
 * (an id holding U+0000 would be answered without a statement). An unknown key costs the two
 * lookups a known one costs (D2).
 */
const noMerchant = ""

/** How often a directory write is decided again after a racing write changed what it read. */
const attempts = 8

/**
 * Run `write` again when a racing write changed what it read (`StaleVersion`), and, when
 * `retryUnique` says so, after a `UniqueViolation` (two first writes of one record).
 */
const retrying = <A>(write: Effect.Effect<A, StorageError>, retryUnique: () => boolean = () => false): Effect.Effect<A, StorageError> => {
  const loop = (left: number): Effect.Effect<A, StorageError> =>
    Effect.catchIf(write, (e) => left > 1 && (e._tag === "StaleVersion" || (e._tag === "UniqueViolation" && retryUnique())), () => loop(left - 1))
  return loop(attempts)
}

/** The directory on `storage`: the service of `Merchants.layer`. */
export const make = (storage: Storage["Type"]) => {
  const now = Clock.currentTimeMillis
  /** Every record of `table` matching `where`, walked page by page. */
  const walkAll = <A extends Table.BaseRecord>(table: Table.Table<A>, where: WalkQuery<A>["where"]) =>
    Effect.gen(function*() {
      const out: Array<A> = []
      for (let after: string | null = null;;) {
        const page: ReadonlyArray<A> = yield* storage.walk(table, { where, after, limit: 500 })
        out.push(...page)
        if (page.length < 500) return out
        after = page[page.length - 1]!.id
      }
    })
  const findMerchant = (id: string) => Effect.map(storage.find(T.merchants, id), Option.map(toMerchant))

  const putMerchant = (m: Merchant) => {
    let inserting = false
    return retrying(
      Effect.gen(function*() {
        const stored = yield* storage.find(T.merchants, m.id)
        const held = yield* walkAll(T.accountKeys, { merchantId: m.id })
        const at = yield* now
        inserting = Option.isNone(stored)
        const accounts = m.providerAccounts ?? []
        const record: T.MerchantRecord = {
          id: m.id,
          name: m.name,
          allowedCheckoutModes: m.allowedCheckoutModes,
          routes: m.routes,
          fees: m.fees ?? {},
          settlementDelayDays: m.settlementDelayDays ?? 0,
          providerAccounts: accounts,
          createdAt: Option.isSome(stored) ? stored.value.createdAt : at,
          version: Option.isSome(stored) ? stored.value.version + 1 : 1
        }
        const ids = new Set(accounts.map((a) => a.id))
        const heldIds = new Set(held.map((k) => k.id))
        // D13: an account id another merchant holds fails the key's insert (`UniqueViolation`),
        // and the whole commit writes nothing.
        yield* storage.commit([
          Option.isSome(stored) ? Write.update(T.merchants, record, stored.value.version) : Write.insert(T.merchants, record),
          ...held.filter((k) => !ids.has(k.id)).map((k) => Write.delete(T.accountKeys, k)),
          ...[...ids].filter((id) => !heldIds.has(id)).map((id) => Write.insert(T.accountKeys, { id, merchantId: m.id, createdAt: at, version: 1 }))
        ])
      }),
      // A racing first put of the same merchant: decide again as an update. An account another
      // merchant holds fails again, and that failure is the answer.
      () => inserting
    )
  }

  const putApiKey = (k: ApiKey) =>
    retrying(
      Effect.gen(function*() {
        const stored = Option.getOrUndefined(yield* storage.findBy(T.apiKeys, "publicKey", k.publicKey))
        if (stored === undefined) return yield* storage.commit([Write.insert(T.apiKeys, keyRecord(k, undefined, 1))])
        if (stored.id === k.id) return yield* storage.commit([Write.update(T.apiKeys, keyRecord(k, stored, stored.version + 1), stored.version)])
        // The public key put under another id: the stored key makes way for the new one in the
        // same commit (a Delete frees its public key for an Insert after it), so no moment, and
        // no crash between two writes, leaves the public key without its key (D2).
        yield* storage.commit([Write.delete(T.apiKeys, stored), Write.insert(T.apiKeys, keyRecord(k, stored, 1))])
      }),
      () => true
    )

  const revoke = (r: T.ApiKeyRecord, at: number) => Write.update(T.apiKeys, { ...r, revokedAt: at, version: r.version + 1 }, r.version)

  return {
    findMerchant,
    findKeyByPublicKey: (publicKey: string): Effect.Effect<Option.Option<ApiKey>, StorageError> =>
      Effect.map(storage.findBy(T.apiKeys, "publicKey", publicKey), Option.map(toApiKey)),
    // D2, timing: the key and its merchant are two index lookups whether or not the key exists
    // (an unknown key looks up a merchant no one is), so the time of a 401 does not tell which
    // keys exist; authentication then hashes and compares on either path.
    findCredentials: (publicKey: string): Effect.Effect<Option.Option<Credentials>, StorageError> =>
      Effect.gen(function*() {
        const key = yield* storage.findBy(T.apiKeys, "publicKey", publicKey)
        const merchant = yield* storage.find(T.merchants, Option.isSome(key) ? key.value.merchantId : noMerchant)
        return Option.isSome(key) && Option.isSome(merchant)
          ? Option.some<Credentials>({ apiKey: toApiKey(key.value), merchant: toMerchant(merchant.value) })
          : Option.none()
      }),
    findProviderAccount: (id: string): Effect.Effect<ReadonlyArray<AccountOwner>, StorageError> =>
      Effect.gen(function*() {
        const key = yield* storage.find(T.accountKeys, id)
        if (Option.isNone(key)) return []
        const merchant = yield* findMerchant(key.value.merchantId)
        const account = Option.isSome(merchant) ? merchant.value.providerAccounts?.find((a) => a.id === id) : undefined
        return account === undefined || Option.isNone(merchant) ? [] : [{ merchant: merchant.value, account }]
      }),
    listMerchants: (after: string | null, limit: number): Effect.Effect<ReadonlyArray<Merchant>, StorageError> =>
      Effect.map(storage.walk(T.merchants, { after, limit }), (rs) => rs.map(toMerchant)),
    putMerchant,
    putApiKey,
    revokeApiKey: (keyId: string, at: number): Effect.Effect<boolean, StorageError> =>
      retrying(Effect.gen(function*() {
        const stored = yield* storage.find(T.apiKeys, keyId)
        if (Option.isNone(stored)) return false
        // Revoking twice keeps the first time.
        if (stored.value.revokedAt === null) yield* storage.commit([revoke(stored.value, at)])
        return true
      })),
    revokeSeededKeysExcept: (keep: ReadonlyArray<string>, at: number): Effect.Effect<ReadonlyArray<string>, StorageError> =>
      retrying(Effect.gen(function*() {
        const kept = new Set(keep)
        const seeded = yield* walkAll(T.apiKeys, { seeded: true })
        const doomed = seeded.filter((k) => k.revokedAt === null && !kept.has(k.publicKey))
        if (doomed.length > 0) yield* storage.commit(doomed.map((k) => revoke(k, at)))
        return doomed.map((k) => k.id)
      })),
    setAvailability: (target: AvailabilityTarget, available: boolean): Effect.Effect<void, StorageError> =>
      retrying(
        Effect.gen(function*() {
          const id = `${target.kind}:${target.id}`
          const stored = yield* storage.find(T.availability, id)
          const at = yield* now
          yield* storage.commit([
            Option.isSome(stored)
              ? Write.update(T.availability, { ...stored.value, available, updatedAt: at, version: stored.value.version + 1 }, stored.value.version)
              : Write.insert(T.availability, { id, kind: target.kind, target: target.id, available, createdAt: at, updatedAt: at, version: 1 })
          ])
        }),
        () => true
      ),
    findAvailability: Effect.map(walkAll(T.availability, undefined), (words): Availability => {
      const routes = new Map<string, boolean>()
      const providers = new Map<string, boolean>()
      for (const w of words) (w.kind === "route" ? routes : providers).set(w.target, w.available)
      return { routes, providers }
    })
  }
}
