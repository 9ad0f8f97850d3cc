/**
 * Contract cases for the port's reads and writes of unscoped tables (issue 49): `findBy` on a
 * field unique across the table, `walk` in id order, and the `Delete` write. They use the
 * directory's own tables (`Merchants.apiKeyTable`, `Merchants.accountTable`), which every
 * store's schema holds.
 */
import { assert } from "@effect/vitest"
import { Ids, Merchants, Storage } from "@tender/core"
import { Cause, Effect, Exit, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, ids, t0 } from "./fixtures.js"

type KeyRecord = typeof Merchants.apiKeyTable.record.Type
type AccountKey = typeof Merchants.accountTable.record.Type

const keyRecord = (merchantId: string, overrides: Partial<KeyRecord> = {}): KeyRecord => ({
  id: `key_${Ids.randomBase62()}`,
  merchantId,
  environment: "test",
  publicKey: `pk_test_${Ids.randomBase62()}`,
  secretHash: Merchants.hashSecret(Ids.randomBase62(32)),
  revokedAt: null,
  seeded: false,
  createdAt: t0,
  version: 1,
  ...overrides
})

/** The tag of the error an exit failed with, "success", or "defect". */
const failureTag = <A, E extends { readonly _tag: string }>(exit: Exit.Exit<A, E>): string =>
  Exit.isSuccess(exit) ? "success" : Option.match(Cause.failureOption(exit.cause), { onNone: () => "defect", onSome: (e) => e._tag })

/** @internal */
export const unscopedCases = (it: ContractIt) => {
  it.effect("issue 49 findBy: a record by the one field of a unique constraint across the table, whatever its merchant; none for an unknown value", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const a = keyRecord(`mch_${Ids.randomBase62(12)}`)
      const b = keyRecord(`mch_${Ids.randomBase62(12)}`, { environment: "live", revokedAt: t0 + 1, seeded: true })
      yield* commit([Storage.Write.insert(Merchants.apiKeyTable, a), Storage.Write.insert(Merchants.apiKeyTable, b)])
      assert.deepStrictEqual(Option.getOrUndefined(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", a.publicKey)), a)
      const found = Option.getOrThrow(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", b.publicKey))
      assert.deepStrictEqual(found, b)
      assert.isTrue(Object.isFrozen(found), "records handed back are frozen (the rule of reads)")
      assert.isTrue(Option.isNone(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", a.publicKey + "x")))
      assert.isTrue(Option.isNone(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", "pk_test_\u0000")))
    }))

  it.effect("issue 49 a unique field of an unscoped table is unique across merchants: a second record holding it is refused and the commit writes nothing", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const a = keyRecord(`mch_${Ids.randomBase62(12)}`)
      yield* commit([Storage.Write.insert(Merchants.apiKeyTable, a)])
      const bystander = keyRecord(`mch_${Ids.randomBase62(12)}`)
      const twin = keyRecord(`mch_${Ids.randomBase62(12)}`, { publicKey: a.publicKey, environment: "live" })
      const exit = yield* Effect.exit(commit([Storage.Write.insert(Merchants.apiKeyTable, bystander), Storage.Write.insert(Merchants.apiKeyTable, twin)]))
      assert.strictEqual(failureTag(exit), "UniqueViolation")
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, bystander.id)), "nothing written")
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, twin.id)))
    }))

  it.effect("issue 49 walk: ascending by id, strictly after `after`, at most `limit`, matching `where`; every record once across pages", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const merchantId = `mch_${Ids.randomBase62(12)}`
      const other = `mch_${Ids.randomBase62(12)}`
      const prefix = `acct_${Ids.randomBase62(8)}_`
      const mine: Array<AccountKey> = ["b", "a", "d", "c", "e"].map((s) => ({ id: prefix + s, merchantId, createdAt: t0, version: 1 }))
      const theirs: AccountKey = { id: prefix + "bb", merchantId: other, createdAt: t0, version: 1 }
      yield* commit([...mine, theirs].map((r) => Storage.Write.insert(Merchants.accountTable, r)))
      const seen: Array<string> = []
      for (let after: string | null = null;;) {
        const page: ReadonlyArray<AccountKey> = yield* storage.walk(Merchants.accountTable, { where: { merchantId }, after, limit: 2 })
        seen.push(...ids(page))
        if (page.length < 2) break
        after = page[page.length - 1]!.id
      }
      assert.deepStrictEqual(seen, ["a", "b", "c", "d", "e"].map((s) => prefix + s))
      const rest = yield* storage.walk(Merchants.accountTable, { where: { merchantId }, after: prefix + "c", limit: 10 })
      assert.deepStrictEqual(ids(rest), [prefix + "d", prefix + "e"])
      assert.isTrue(rest.every((r) => Object.isFrozen(r)))
      const seeded = keyRecord(merchantId, { seeded: true })
      yield* commit([Storage.Write.insert(Merchants.apiKeyTable, seeded), Storage.Write.insert(Merchants.apiKeyTable, keyRecord(merchantId))])
      const flagged = yield* storage.walk(Merchants.apiKeyTable, { where: { merchantId, seeded: true }, after: null, limit: 10 })
      assert.deepStrictEqual(ids(flagged), [seeded.id], "a boolean field matches by value")
    }))

  it.effect("issue 49 walk orders ids by code point (their UTF-8 bytes) in every store: a character past U+FFFF after U+FFFD, whatever JavaScript's `<` says", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const merchantId = `mch_${Ids.randomBase62(12)}`
      const prefix = `acct_${Ids.randomBase62(8)}_`
      // Seed ids (merchants, routes) may hold any character: "z" < "é" < U+FFFD < U+1F600.
      const order = ["z", "\u00e9", "\ufffd", "\u{1f600}", "\u{1f600}z"].map((s) => prefix + s)
      yield* commit([...order].reverse().map((id) => Storage.Write.insert(Merchants.accountTable, { id, merchantId, createdAt: t0, version: 1 })))
      assert.deepStrictEqual(ids(yield* storage.walk(Merchants.accountTable, { where: { merchantId }, after: null, limit: 10 })), order)
      assert.deepStrictEqual(ids(yield* storage.walk(Merchants.accountTable, { where: { merchantId }, after: order[2]!, limit: 10 })), order.slice(3))
      assert.deepStrictEqual(ids(yield* storage.walk(Merchants.accountTable, { where: { merchantId }, after: order[0]!, limit: 2 })), order.slice(1, 3))
    }))

  it.effect("issue 49 Delete: removes the record of the expected version and frees its unique values; a stale or missing record fails StaleVersion and the commit writes nothing", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const merchantId = `mch_${Ids.randomBase62(12)}`
      const a = keyRecord(merchantId)
      yield* commit([Storage.Write.insert(Merchants.apiKeyTable, a)])
      const updated = { ...a, revokedAt: t0 + 5, version: 2 }
      yield* commit([Storage.Write.update(Merchants.apiKeyTable, updated, 1)])
      const bystander = keyRecord(merchantId)
      const stale = yield* Effect.exit(commit([Storage.Write.insert(Merchants.apiKeyTable, bystander), Storage.Write.delete(Merchants.apiKeyTable, a)]))
      assert.strictEqual(failureTag(stale), "StaleVersion")
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, bystander.id)), "nothing written")
      assert.deepStrictEqual(Option.getOrUndefined(yield* storage.find(Merchants.apiKeyTable, a.id)), updated)
      yield* commit([Storage.Write.delete(Merchants.apiKeyTable, updated)])
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, a.id)))
      assert.isTrue(Option.isNone(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", a.publicKey)))
      const missing = yield* Effect.exit(commit([Storage.Write.delete(Merchants.apiKeyTable, updated)]))
      assert.strictEqual(failureTag(missing), "StaleVersion")
      // The public key is free again for a later commit.
      const again = keyRecord(merchantId, { publicKey: a.publicKey })
      yield* commit([Storage.Write.insert(Merchants.apiKeyTable, again)])
      assert.deepStrictEqual(Option.getOrUndefined(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", a.publicKey)), again)
    }))
  it.effect("issue 49 Delete then Insert in one commit: the insert takes the unique value and the id the delete frees; a stale delete fails StaleVersion and writes neither", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const merchantId = `mch_${Ids.randomBase62(12)}`
      const a = keyRecord(merchantId)
      yield* commit([Storage.Write.insert(Merchants.apiKeyTable, a)])
      // The public key under a new id (what `putApiKey` does when a key is put again under a new id).
      const moved = keyRecord(merchantId, { publicKey: a.publicKey })
      yield* commit([Storage.Write.delete(Merchants.apiKeyTable, a), Storage.Write.insert(Merchants.apiKeyTable, moved)])
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, a.id)))
      assert.deepStrictEqual(Option.getOrUndefined(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", a.publicKey)), moved)
      // The same id written again: a record replaced whole.
      const again = { ...moved, secretHash: Merchants.hashSecret(Ids.randomBase62(32)) }
      yield* commit([Storage.Write.delete(Merchants.apiKeyTable, moved), Storage.Write.insert(Merchants.apiKeyTable, again)])
      assert.deepStrictEqual(Option.getOrUndefined(yield* storage.find(Merchants.apiKeyTable, moved.id)), again)
      // A delete of a version not stored: nothing written, and the error is the delete's.
      const late = keyRecord(merchantId, { publicKey: a.publicKey })
      const stale = yield* Effect.exit(
        commit([Storage.Write.delete(Merchants.apiKeyTable, { ...again, version: again.version + 1 }), Storage.Write.insert(Merchants.apiKeyTable, late)])
      )
      assert.strictEqual(failureTag(stale), "StaleVersion")
      assert.isTrue(Option.isNone(yield* storage.find(Merchants.apiKeyTable, late.id)), "nothing written")
      assert.deepStrictEqual(Option.getOrUndefined(yield* storage.findBy(Merchants.apiKeyTable, "publicKey", a.publicKey)), again)
    }))
}
