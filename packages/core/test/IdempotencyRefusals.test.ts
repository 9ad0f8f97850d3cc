/**
 * D5: which refusals an `Idempotency-Key` keeps. A 404 (an unknown id, or another tenant's) or
 * a 400 for a malformed path id, found by an operation that runs under `Operation.run`, says
 * the request named nothing to run on: the key is released, not stored, so a retry under the
 * same key once the resource exists runs instead of replaying the 404.
 */
import { assert, describe, it } from "@effect/vitest"
import { png, promptpay } from "@tender/repo-test-support"
import { Effect, Option, Schema } from "effect"
import type { Table } from "../src/index.js"
import { Asset, Ids, PaymentIntent, PaymentIntents, PayoutIntent, PayoutIntents, Receipts, Storage } from "../src/index.js"
import { fundedPayout, json, type Key, keys, layer, login, scope } from "./fixtures.js"

const customer = { name: "Somchai Jaidee" }

const createIntent = (payment_method: string) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const params = yield* Effect.orDie(
      Schema.decodeUnknown(PaymentIntent.CreateParams)({
        ...promptpay,
        payment_method,
        customer,
        ...(payment_method === "th_bank_transfer"
          ? { payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" } }
          : {})
      })
    )
    const r = yield* PaymentIntents.create({ principal, requestId: "req_c" }, params)
    assert.strictEqual(r.status, 201, r.body)
    return json(r).id as string
  })

const createPayout = Effect.gen(function*() {
  const r = yield* fundedPayout(`payout-${crypto.randomUUID()}`)
  assert.strictEqual(r.status, 201, r.body)
  return json(r).id as string
})

/**
 * A resource that exists from now on under an id a request named before: a copy of `id`'s
 * record under a fresh id of the same kind (the only way a test can know an id before it exists).
 */
const appearsLater = <A extends Table.StoredRecord & { readonly merchantReference: string | null }>(table: Table.Table<A>, id: string) =>
  Effect.gen(function*() {
    const storage = yield* Storage.Storage
    const record = Option.getOrThrow(yield* storage.get(table, scope, id))
    const later = `${table.idPrefix}${Ids.randomBase62()}`
    return {
      id: later,
      appear: storage.commit([
        Storage.Write.insert(table, { ...record, id: later, merchantReference: record.merchantReference === null ? null : `${record.merchantReference}-later` })
      ])
    }
  })

const as = (key: Key, idempotencyKey: string) => Effect.map(login(key), (principal) => ({ principal, requestId: "req_r", idempotencyKey }))

describe("D5 refusals before the operation can run are not stored on the Idempotency-Key", () => {
  it.effect("D5 confirm: a 404 for an id that does not exist yet is not replayed; the same key runs once the intent exists", () =>
    Effect.gen(function*() {
      const { appear, id } = yield* appearsLater(PaymentIntent.table, yield* createIntent("th_promptpay"))
      const missing = yield* PaymentIntents.confirm(yield* as(keys.demoTest, "confirm-later"), id)
      assert.strictEqual(missing.status, 404, missing.body)
      yield* appear
      const retried = yield* PaymentIntents.confirm(yield* as(keys.demoTest, "confirm-later"), id)
      assert.strictEqual(retried.status, 200, retried.body)
      assert.isFalse(retried.replayed === true)
      assert.strictEqual(json(retried).id, id)
      // The 200 is stored: the key now replays it.
      const again = yield* PaymentIntents.confirm(yield* as(keys.demoTest, "confirm-later"), id)
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, retried.body)
    }).pipe(Effect.provide(layer())))

  it.effect("D5 confirm: another merchant's id (404) leaves the key free; a malformed id (400) too: the corrected request runs under it", () =>
    Effect.gen(function*() {
      const mine = yield* createIntent("th_promptpay")
      const foreign = yield* PaymentIntents.confirm(yield* as(keys.otherTest, "k-foreign"), mine)
      assert.strictEqual(foreign.status, 404)
      // Stored, the key would answer 409 idempotency_conflict for a request on another id; freed, it runs.
      const other = yield* createIntentAs(keys.otherTest)
      const ran = yield* PaymentIntents.confirm(yield* as(keys.otherTest, "k-foreign"), other)
      assert.strictEqual(ran.status, 200, ran.body)

      const malformed = yield* PaymentIntents.confirm(yield* as(keys.demoTest, "k-malformed"), "dord_nope")
      assert.strictEqual(malformed.status, 400)
      assert.strictEqual(json(malformed).error.param, "id")
      const corrected = yield* PaymentIntents.confirm(yield* as(keys.demoTest, "k-malformed"), mine)
      assert.strictEqual(corrected.status, 200, corrected.body)
      assert.isFalse(corrected.replayed === true)
    }).pipe(Effect.provide(layer())))

  it.effect("D5 receipt: a 404 for an intent that does not exist yet is not replayed; the same key submits once it exists", () =>
    Effect.gen(function*() {
      const { appear, id } = yield* appearsLater(PaymentIntent.table, yield* createIntent("th_bank_transfer"))
      const principal = yield* login(keys.demoTest)
      const asset = json(yield* Asset.upload({ principal, requestId: "req_u", idempotencyKey: "asset-1" }, png()))
      const evidence = { _tag: "AssetId", assetId: asset.id } as const
      const missing = yield* Receipts.submit(yield* as(keys.demoTest, "receipt-later"), id, evidence)
      assert.strictEqual(missing.status, 404, missing.body)
      const malformed = yield* Receipts.submit(yield* as(keys.demoTest, "receipt-later-2"), "not-an-id", evidence)
      assert.strictEqual(malformed.status, 400, malformed.body)
      yield* appear
      const retried = yield* Receipts.submit(yield* as(keys.demoTest, "receipt-later"), id, evidence)
      assert.strictEqual(retried.status, 200, retried.body)
      assert.strictEqual(json(retried).receipt.status, "submitted")
      assert.isFalse(retried.replayed === true)
    }).pipe(Effect.provide(layer())))

  it.effect("D5 payout cancel: a 404 for a payout that does not exist yet is not replayed; the same key cancels once it exists", () =>
    Effect.gen(function*() {
      const { appear, id } = yield* appearsLater(PayoutIntent.table, yield* createPayout)
      const missing = yield* PayoutIntents.cancel(yield* as(keys.demoTest, "cancel-later"), id)
      assert.strictEqual(missing.status, 404, missing.body)
      const malformed = yield* PayoutIntents.cancel(yield* as(keys.demoTest, "cancel-later-2"), "pout_x")
      assert.strictEqual(malformed.status, 400, malformed.body)
      yield* appear
      const retried = yield* PayoutIntents.cancel(yield* as(keys.demoTest, "cancel-later"), id)
      assert.strictEqual(retried.status, 200, retried.body)
      assert.strictEqual(json(retried).status, "canceled")
      assert.isFalse(retried.replayed === true)
      // A 409 decided by the operation on the resource itself is still stored and replayed.
      const refused = yield* PayoutIntents.cancel(yield* as(keys.demoTest, "cancel-again"), id)
      assert.strictEqual(refused.status, 409)
      const replayed = yield* PayoutIntents.cancel(yield* as(keys.demoTest, "cancel-again"), id)
      assert.isTrue(replayed.replayed)
      assert.strictEqual(replayed.body, refused.body)
    }).pipe(Effect.provide(layer())))
})

const createIntentAs = (key: Key) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)({ ...promptpay, customer }))
    const r = yield* PaymentIntents.create({ principal, requestId: "req_c" }, params)
    assert.strictEqual(r.status, 201, r.body)
    return json(r).id as string
  })
