/**
 * Contract cases for the merchant directory (spec 5, D2): merchants, API keys, revocation.
 */
import { assert } from "@effect/vitest"
import type { Merchants as M } from "@tender/core"
import { Ids, Merchants, Storage, StorageError } from "@tender/core"
import { Cause, Effect, Exit, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { t0 } from "./fixtures.js"

const freshMerchant = (): M.Merchant => ({
  id: `mch_${Ids.randomBase62(16)}`,
  name: "ร้านทดสอบ \"Test\" Shop",
  allowedCheckoutModes: ["merchant"],
  routes: [
    { id: `rt_${Ids.randomBase62(8)}`, method: "th_promptpay", provider: "simulator", environments: ["test"], priority: 1 },
    { id: `rt_${Ids.randomBase62(8)}`, method: "th_bank_transfer", provider: "acme", environments: ["test", "live"], priority: 0 }
  ]
})

const freshKey = (merchantId: string, environment: "test" | "live" = "test"): M.ApiKey => ({
  id: `key_${Ids.randomBase62()}`,
  merchantId,
  environment,
  publicKey: `pk_${environment}_${Ids.randomBase62()}`,
  secretHash: Merchants.hashSecret(`sk_${environment}_${Ids.randomBase62(32)}`),
  revokedAt: null,
  createdAt: t0 + 7
})

/** The directory, and a fresh merchant put in it. */
const storedMerchant = Effect.gen(function*() {
  const merchants = yield* Merchants.Merchants
  const m = freshMerchant()
  yield* merchants.putMerchant(m)
  return { merchants, m }
})

/** A sealed-looking account (the store never opens it). */
const freshAccount = (): M.ProviderAccount => ({
  id: `acct_${Ids.randomBase62(12)}`,
  provider: "stripe",
  environment: "test",
  credentials: `tv1.k1.${Ids.randomBase62(16)}.${Ids.randomBase62(22)}.${Ids.randomBase62(40)}`
})

/** @internal */
export const merchantCases = (it: ContractIt, concurrency: number) => {
  it.effect(`D13 ${concurrency} merchants putting one provider account id at once: exactly one holds it, the others are refused with nothing written`, () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const account = freshAccount()
      const racers = Array.from({ length: concurrency }, () => ({ ...freshMerchant(), providerAccounts: [account] }))
      const exits = yield* Effect.forEach(racers, (m) => Effect.exit(merchants.putMerchant(m)), { concurrency: "unbounded" })
      const won = racers.filter((_, i) => Exit.isSuccess(exits[i]!))
      assert.strictEqual(won.length, 1, "one holder")
      for (const exit of exits.filter(Exit.isFailure)) {
        assert.deepStrictEqual(Exit.causeOption(exit).pipe(Option.flatMap(Cause.failureOption), Option.map((e) => e._tag)), Option.some("UniqueViolation"))
      }
      assert.deepStrictEqual((yield* merchants.findProviderAccount(account.id)).map((o) => o.merchant.id), [won[0]!.id])
      for (const lost of racers.filter((m) => m !== won[0])) assert.isTrue(Option.isNone(yield* merchants.findMerchant(lost.id)), `${lost.id} not written`)
      // The holder may write itself again; another merchant gets the id once the holder drops it.
      yield* merchants.putMerchant(won[0]!)
      yield* merchants.putMerchant({ ...won[0]!, providerAccounts: [] })
      const next = { ...freshMerchant(), providerAccounts: [account] }
      yield* merchants.putMerchant(next)
      assert.deepStrictEqual((yield* merchants.findProviderAccount(account.id)).map((o) => o.merchant.id), [next.id])
    }))

  it.effect("D13 a merchant's provider accounts round-trip; an account's id finds its merchant, and no other", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const a = { ...freshMerchant(), providerAccounts: [freshAccount(), freshAccount()] }
      const b = { ...freshMerchant(), providerAccounts: [freshAccount()] }
      yield* merchants.putMerchant(a)
      yield* merchants.putMerchant(b)
      assert.deepStrictEqual(yield* merchants.findMerchant(a.id), Option.some(a))
      const owners = yield* merchants.findProviderAccount(a.providerAccounts[1]!.id)
      assert.deepStrictEqual(owners.map((o) => [o.merchant.id, o.account]), [[a.id, a.providerAccounts[1]!]])
      assert.deepStrictEqual(yield* merchants.findProviderAccount(b.providerAccounts[0]!.id + "x"), [])
      // Replacing the merchant replaces its accounts: the dropped one finds nothing.
      yield* merchants.putMerchant({ ...a, providerAccounts: [a.providerAccounts[0]!] })
      assert.deepStrictEqual(yield* merchants.findProviderAccount(a.providerAccounts[1]!.id), [])
    }))

  it.effect("D13 listMerchants pages by id: every merchant once", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const put = [freshMerchant(), freshMerchant(), freshMerchant()]
      yield* Effect.forEach(put, merchants.putMerchant, { discard: true })
      const seen: Array<string> = []
      let after: string | null = null
      for (;;) {
        const page: ReadonlyArray<M.Merchant> = yield* merchants.listMerchants(after, 2)
        seen.push(...page.map((m) => m.id))
        if (page.length < 2) break
        after = page[page.length - 1]!.id
      }
      assert.strictEqual(new Set(seen).size, seen.length)
      for (const m of put) assert.include(seen, m.id)
    }))

  it.effect("5.4 a merchant round-trips with its team policy and routes; an unknown id is none", () =>
    Effect.gen(function*() {
      const { merchants, m } = yield* storedMerchant
      assert.deepStrictEqual(yield* merchants.findMerchant(m.id), Option.some(m))
      assert.isTrue(Option.isNone(yield* merchants.findMerchant(m.id + "x")))
      const changed = { ...m, allowedCheckoutModes: ["hosted", "merchant"] as const, routes: [] }
      yield* merchants.putMerchant(changed)
      assert.deepStrictEqual(yield* merchants.findMerchant(m.id), Option.some(changed))
    }))

  it.effect("D2 an API key round-trips by public key with only the hash of its secret", () =>
    Effect.gen(function*() {
      const { merchants, m } = yield* storedMerchant
      const test = freshKey(m.id)
      const live = freshKey(m.id, "live")
      yield* merchants.putApiKey(test)
      yield* merchants.putApiKey(live)
      assert.deepStrictEqual(yield* merchants.findKeyByPublicKey(test.publicKey), Option.some(test))
      assert.deepStrictEqual(yield* merchants.findKeyByPublicKey(live.publicKey), Option.some(live))
      assert.isTrue(Option.isNone(yield* merchants.findKeyByPublicKey(test.publicKey + "x")))
    }))

  it.effect("5.4 a key's credentials come with its merchant in one lookup; a key whose merchant is missing has none", () =>
    Effect.gen(function*() {
      const { merchants, m } = yield* storedMerchant
      const key = freshKey(m.id, "live")
      yield* merchants.putApiKey(key)
      assert.deepStrictEqual(yield* merchants.findCredentials(key.publicKey), Option.some({ apiKey: key, merchant: m }))
      yield* merchants.revokeApiKey(key.id, t0 + 1)
      const revoked = Option.getOrThrow(yield* merchants.findCredentials(key.publicKey))
      assert.strictEqual(revoked.apiKey.revokedAt, t0 + 1)
      const orphan = freshKey(`mch_${Ids.randomBase62(16)}`)
      yield* merchants.putApiKey(orphan)
      assert.isTrue(Option.isNone(yield* merchants.findCredentials(orphan.publicKey)))
      assert.isTrue(Option.isNone(yield* merchants.findCredentials(`pk_test_${Ids.randomBase62()}`)))
    }))

  it.effect("D2 a public key put again under a new key id (rotation by the seed) moves in one commit: a failure at any commit leaves the old key or the new one, never none", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      // Read through the store itself: no cache of a layer may answer for it.
      const direct = Merchants.make(storage)
      const { m } = yield* storedMerchant
      const old = freshKey(m.id)
      yield* direct.putApiKey(old)
      const renamed: M.ApiKey = { ...old, id: `key_${Ids.randomBase62()}`, seeded: true }
      /** The directory over `storage` whose commit number `failing` fails before writing anything (a crash there); the commits it counts. */
      const faulty = (failing: number) => {
        let commits = 0
        const wrapped: Storage.Storage["Type"] = {
          ...storage,
          commit: (writes) =>
            Effect.suspend(() =>
              ++commits === failing ? Effect.fail(new StorageError.StorageUnavailable({ message: "crash before this commit" })) : storage.commit(writes)
            )
        }
        return { merchants: Merchants.make(wrapped), commits: () => commits }
      }
      for (const failing of [1, 2]) {
        const f = faulty(failing)
        yield* Effect.exit(f.merchants.putApiKey(renamed))
        const found = yield* direct.findKeyByPublicKey(old.publicKey)
        assert.isTrue(Option.isSome(found), `a failure at commit ${failing} left the public key without its key`)
        assert.include([old.id, renamed.id], Option.getOrThrow(found).id)
      }
      const f = faulty(0)
      yield* f.merchants.putApiKey(renamed)
      assert.strictEqual(f.commits(), 1, "the move is one commit")
      assert.deepStrictEqual(yield* direct.findKeyByPublicKey(old.publicKey), Option.some(renamed))
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, old.id)), "the old key id is gone")
    }))

  it.effect("D2 a revoked key stays revoked: revoking twice keeps the first time, putting it again never clears it", () =>
    Effect.gen(function*() {
      const { merchants, m } = yield* storedMerchant
      const key = freshKey(m.id)
      yield* merchants.putApiKey(key)
      assert.isTrue(yield* merchants.revokeApiKey(key.id, t0 + 100))
      assert.isTrue(yield* merchants.revokeApiKey(key.id, t0 + 200))
      assert.isFalse(yield* merchants.revokeApiKey(`key_${Ids.randomBase62()}`, t0))
      assert.strictEqual(Option.getOrThrow(yield* merchants.findKeyByPublicKey(key.publicKey)).revokedAt, t0 + 100)
      yield* merchants.putApiKey(key)
      assert.strictEqual(Option.getOrThrow(yield* merchants.findKeyByPublicKey(key.publicKey)).revokedAt, t0 + 100)
    }))

  it.effect("Seed a seed-managed key the next seed leaves out is revoked; kept keys and keys issued at run time are untouched (docs/seed-format.md)", () =>
    Effect.gen(function*() {
      const { merchants, m } = yield* storedMerchant
      const kept: M.ApiKey = { ...freshKey(m.id), seeded: true }
      const removed: M.ApiKey = { ...freshKey(m.id, "live"), seeded: true }
      const issued = freshKey(m.id)
      for (const k of [kept, removed, issued]) yield* merchants.putApiKey(k)
      assert.deepStrictEqual(yield* merchants.findKeyByPublicKey(kept.publicKey), Option.some(kept))
      // The seed manages the whole directory: any other seed-managed key in a shared store would be
      // revoked too, so this case checks only its own keys.
      const revoked = yield* merchants.revokeSeededKeysExcept([kept.publicKey], t0 + 300)
      assert.include(revoked, removed.id)
      assert.notInclude(revoked, kept.id)
      assert.notInclude(revoked, issued.id)
      assert.strictEqual(Option.getOrThrow(yield* merchants.findKeyByPublicKey(removed.publicKey)).revokedAt, t0 + 300)
      assert.deepStrictEqual(yield* merchants.findKeyByPublicKey(kept.publicKey), Option.some(kept))
      assert.deepStrictEqual(yield* merchants.findKeyByPublicKey(issued.publicKey), Option.some(issued))
      // Already revoked: not revoked again, its first time kept.
      assert.notInclude(yield* merchants.revokeSeededKeysExcept([kept.publicKey], t0 + 400), removed.id)
      assert.strictEqual(Option.getOrThrow(yield* merchants.findKeyByPublicKey(removed.publicKey)).revokedAt, t0 + 300)
    }))

  it.effect("caches: a key's credentials read before its revocation are not answered after it, nor a merchant's before its change", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const m = freshMerchant()
      const k = freshKey(m.id)
      yield* merchants.putMerchant(m)
      yield* merchants.putApiKey(k)
      // Read twice: a store with a cache now holds it.
      yield* merchants.findCredentials(k.publicKey)
      const before = yield* merchants.findCredentials(k.publicKey)
      assert.strictEqual(Option.getOrThrow(before).apiKey.revokedAt, null)
      assert.isTrue(yield* merchants.revokeApiKey(k.id, t0 + 9))
      assert.strictEqual(Option.getOrThrow(yield* merchants.findCredentials(k.publicKey)).apiKey.revokedAt, t0 + 9)
      yield* merchants.putMerchant({ ...m, name: "Renamed" })
      assert.strictEqual(Option.getOrThrow(yield* merchants.findCredentials(k.publicKey)).merchant.name, "Renamed")
      // An unknown key asked twice is none both times, and none once it exists is not kept either.
      const later = freshKey(m.id)
      assert.isTrue(Option.isNone(yield* merchants.findCredentials(later.publicKey)))
      assert.isTrue(Option.isNone(yield* merchants.findCredentials(later.publicKey)))
      yield* merchants.putApiKey(later)
      assert.strictEqual(Option.getOrThrow(yield* merchants.findCredentials(later.publicKey)).apiKey.id, later.id)
    }))

  it.effect("route availability: the host's word on a route and on a provider is stored, a later word replaces it, and no word is absent", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const route = `rt_${Ids.randomBase62(8)}`
      const provider = `prov_${Ids.randomBase62(8)}`
      const before = yield* merchants.findAvailability
      assert.isFalse(before.routes.has(route))
      assert.isFalse(before.providers.has(provider))
      yield* merchants.setAvailability({ kind: "route", id: route }, false)
      yield* merchants.setAvailability({ kind: "provider", id: provider }, false)
      const down = yield* merchants.findAvailability
      assert.strictEqual(down.routes.get(route), false)
      assert.strictEqual(down.providers.get(provider), false)
      // A route and a provider may share an id: the kinds are apart.
      assert.isFalse(down.providers.has(route))
      yield* merchants.setAvailability({ kind: "route", id: route }, true)
      const up = yield* merchants.findAvailability
      assert.strictEqual(up.routes.get(route), true)
      assert.strictEqual(up.providers.get(provider), false)
    }))
}
