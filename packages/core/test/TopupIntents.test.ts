import { assert, describe, it } from "@effect/vitest"
import { png, promptpayNamed } from "@tender/repo-test-support"
import { Duration, Effect, Option, Schema, TestClock } from "effect"
import type { ApiResponse } from "../src/index.js"
import { Asset, Fx, PaymentIntents, Simulator, Storage, TopupIntent, TopupIntents } from "../src/index.js"
import { expiresAtShortExpiry } from "./expiry.js"
import { asDemo, events, json, type Key, keys, layer, login, scope, work } from "./fixtures.js"

const body = (overrides: Record<string, unknown> = {}) => ({
  destination_amount: "100000000",
  destination_currency: "USDT",
  source: { type: "test_funding" },
  ...overrides
})

const decode = Schema.decodeUnknown(TopupIntent.CreateParams)

const create = (params: Record<string, unknown>, key: Key = keys.demoTest, idempotencyKey: string = crypto.randomUUID()) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    return yield* TopupIntents.create({ principal, requestId: "req_t", idempotencyKey }, yield* Effect.orDie(decode(params)))
  })
const get = asDemo(TopupIntents.retrieve)

const receipt = (id: string, assetId: string, idempotencyKey?: string) =>
  Effect.flatMap(login(keys.demoTest), (principal) => TopupIntents.submitReceipt({ principal, requestId: "req_r", idempotencyKey }, id, assetId))
const uploadAsset = Effect.flatMap(
  login(keys.demoTest),
  (principal) => Effect.map(Asset.upload({ principal, requestId: "req_u", idempotencyKey: crypto.randomUUID() }, png()), (r) => JSON.parse(r.body).id as string)
)

describe("top-up intents (2.5, 3.2, 4.7, 4.8)", () => {
  it.effect("2.5 create: 201 requires_payment with every field of 2.5, fee_mode absorbed, credited 0 until paid, topup_intent.created", () =>
    Effect.gen(function*() {
      const r = yield* create(body({ source: { type: "provider_gateway", currency: "USDT" }, destination_currency: "THB", destination_amount: "362500" }))
      assert.strictEqual(r.status, 201, r.body)
      const t = json(r)
      assert.deepStrictEqual(Object.keys(t).sort(), [
        "country",
        "created_at",
        "destination",
        "environment",
        "expires_at",
        "failure_code",
        "failure_message",
        "fx",
        "id",
        "merchant_reference",
        "next_action",
        "object",
        "receipt",
        "source",
        "status",
        "updated_at"
      ])
      assert.match(t.id, /^tuin_[0-9A-Za-z]{24}$/)
      assert.strictEqual(t.object, "topup_intent")
      assert.strictEqual(t.status, "requires_payment")
      assert.deepStrictEqual(t.destination, { amount: "362500", credited_amount: "0", currency: "THB", merchant_id: "mch_demo" })
      // 3625.00 THB at 36.25 THB per USDT is exactly 100 USDT; 0.5 % spread, 1 % gateway fee (Fx.staticFees).
      assert.deepStrictEqual(t.fx, { source_currency: "USDT", destination_currency: "THB", rate: "36.25", spread_amount: "500000" })
      assert.deepStrictEqual(t.source, {
        type: "provider_gateway",
        amount: "101500000",
        currency: "USDT",
        expires_at: t.expires_at,
        fee_amount: "1000000",
        fee_mode: "absorbed",
        provider: "simulator"
      })
      assert.deepStrictEqual(Object.keys(t.next_action).sort(), ["address", "amount", "currency", "expires_at", "network", "type"])
      assert.strictEqual(t.next_action.type, "display_crypto_payment_instructions")
      assert.strictEqual(t.next_action.network, "tron")
      assert.strictEqual(t.next_action.amount, "101500000")
      assert.strictEqual(t.next_action.currency, "USDT")
      assert.strictEqual(t.expires_at, new Date(Date.parse(t.created_at) + Duration.toMillis(TopupIntents.paymentWindow)).toISOString())
      assert.isNull(t.failure_code)
      assert.isNull(t.failure_message)
      assert.deepStrictEqual(yield* events(t.id), ["topup_intent.created"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.2 a crypto deposit seen by the provider: succeeded through the durable poll task, credited exactly destination.amount, topup_intent.succeeded", () =>
    Effect.gen(function*() {
      const t = json(
        yield* create(
          body({ source: { type: "provider_gateway", provider: "simulator", currency: "ETH" }, destination_currency: "THB", destination_amount: "1" })
        )
      )
      // 0.01 THB of ETH at 118034.5 THB per ETH: an 18-digit token, rounded up to a whole wei.
      assert.strictEqual(t.fx.rate, "118034.5")
      assert.strictEqual(t.next_action.network, "ethereum")
      assert.match(t.next_action.address, /^0x[0-9a-f]{40}$/)
      yield* work
      const after = yield* get(t.id)
      assert.strictEqual(after.status, "succeeded")
      assert.strictEqual(after.destination.credited_amount, "1")
      assert.isNull(after.next_action)
      assert.deepStrictEqual(yield* events(t.id), ["topup_intent.created", "topup_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.2 test_funding succeeds at the first look, in the destination currency with no conversion (rate 1, no spread, no fee)", () =>
    Effect.gen(function*() {
      const t = json(yield* create(body({ destination_currency: "THB", destination_amount: "50000" })))
      assert.strictEqual(t.source.currency, "THB")
      assert.deepStrictEqual(t.fx, { source_currency: "THB", destination_currency: "THB", rate: "1", spread_amount: "0" })
      assert.strictEqual(t.source.amount, "50000")
      assert.isNull(t.next_action)
      yield* work
      assert.strictEqual((yield* get(t.id)).destination.credited_amount, "50000")
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.declineOnConfirm}: the provider fails the top-up (failed, payment_declined, topup_intent.failed)`, () =>
    Effect.gen(function*() {
      const t = json(yield* create(body({ destination_currency: "THB", destination_amount: Simulator.magicAmounts.declineOnConfirm })))
      yield* work
      const after = yield* get(t.id)
      assert.strictEqual(after.status, "failed")
      assert.strictEqual(after.failure_code, "payment_declined")
      assert.strictEqual(after.destination.credited_amount, "0")
      assert.deepStrictEqual(yield* events(t.id), ["topup_intent.created", "topup_intent.failed"])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.expireSoon}: never paid, expired at expires_at by its durable task (topup_intent.expired), not a moment before`, () =>
    Effect.gen(function*() {
      const t = json(yield* create(body({ source: { type: "provider_gateway" }, destination_amount: Simulator.magicAmounts.expireSoon })))
      assert.strictEqual(Date.parse(t.expires_at) - Date.parse(t.created_at), Simulator.shortExpiryMillis)
      yield* work
      yield* expiresAtShortExpiry(get(t.id), "requires_payment")
      assert.deepStrictEqual(yield* events(t.id), ["topup_intent.created", "topup_intent.expired"])
    }).pipe(Effect.provide(layer())))

  it.effect("manual_receipt: bank instructions, a receipt (an uploaded asset) makes it processing, the provider's acceptance succeeds it", () =>
    Effect.gen(function*() {
      const t = json(yield* create(body({ source: { type: "manual_receipt" }, destination_currency: "THB", destination_amount: "200000" })))
      assert.strictEqual(t.next_action.type, "display_bank_transfer_instructions")
      assert.strictEqual(t.next_action.amount, "200000")
      assert.deepStrictEqual(t.receipt, { status: "required" })
      yield* work
      assert.strictEqual((yield* get(t.id)).status, "requires_payment")
      const asset = yield* uploadAsset
      const r = yield* receipt(t.id, asset, "receipt-key")
      assert.strictEqual(r.status, 200, r.body)
      assert.strictEqual(json(r).status, "processing")
      assert.isNull(json(r).next_action)
      const again = yield* receipt(t.id, asset, "receipt-key")
      assert.isTrue(again.replayed)
      const twice = yield* receipt(t.id, asset)
      assert.strictEqual(twice.status, 409)
      assert.strictEqual(json(twice).error.code, "topup_intent_unexpected_state")
      yield* work
      const after = yield* get(t.id)
      assert.strictEqual(after.status, "succeeded")
      assert.deepStrictEqual(after.receipt, { status: "accepted" })
      assert.strictEqual(after.destination.credited_amount, "200000")
      // A receipt under review does not expire.
      assert.deepStrictEqual(yield* events(t.id), ["topup_intent.created", "topup_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect(`manual_receipt magic amount ${Simulator.magicAmounts.rejectReceipt}: the receipt is rejected and the top-up failed; a crypto top-up takes no receipt`, () =>
    Effect.gen(function*() {
      const t = json(
        yield* create(body({ source: { type: "manual_receipt" }, destination_currency: "THB", destination_amount: Simulator.magicAmounts.rejectReceipt }))
      )
      yield* receipt(t.id, yield* uploadAsset)
      yield* work
      const after = yield* get(t.id)
      assert.strictEqual(after.status, "failed")
      assert.strictEqual(after.failure_code, "receipt_rejected")
      assert.deepStrictEqual(after.receipt, { status: "rejected" })
      const crypto = json(yield* create(body({ source: { type: "provider_gateway" } })))
      const refused = yield* receipt(crypto.id, yield* uploadAsset)
      assert.strictEqual(refused.status, 409)
      assert.strictEqual(json(refused).error.code, "topup_intent_unexpected_state")
      const unknownAsset = yield* receipt(t.id, "asst_000000000000000000000000")
      assert.strictEqual(unknownAsset.status, 409)
    }).pipe(Effect.provide(layer())))

  it.effect("4.7 refusals name their param: unknown provider 400 source.provider, a currency no one converts 400, no rate 422, live 422", () =>
    Effect.gen(function*() {
      const expect = (r: ApiResponse.ApiResponse, status: number, code: string, param: string) => {
        assert.strictEqual(r.status, status, r.body)
        assert.strictEqual(json(r).error.code, code)
        assert.strictEqual(json(r).error.param, param)
      }
      expect(yield* create(body({ source: { type: "test_funding", provider: "nope" } })), 400, "validation_failed", "source.provider")
      expect(yield* create(body({ destination_currency: "ABCD" })), 400, "validation_failed", "destination_currency")
      expect(yield* create(body({ destination_currency: "JPY" })), 422, "payment_configuration_unavailable", "destination_currency")
      expect(yield* create(body({ source: { type: "provider_gateway", currency: "BTC" } })), 422, "payment_configuration_unavailable", "source.currency")
      expect(yield* create(body(), keys.demoLive), 422, "payment_configuration_unavailable", "source.type")
      expect(yield* create(body({ destination_amount: Simulator.magicAmounts.unavailable })), 422, "routing_unavailable", undefined as never)
    }).pipe(Effect.provide(layer())))

  it.effect("D5 the fingerprint includes the route: one Idempotency-Key on POST /payment_intents, then on POST /topup_intents, is 409", () =>
    Effect.gen(function*() {
      const principal = yield* login(keys.demoTest)
      const pay = yield* PaymentIntents.create({ principal, requestId: "req_p", idempotencyKey: "shared-key" }, promptpayNamed as never)
      assert.strictEqual(pay.status, 201, pay.body)
      const t = yield* create(body(), keys.demoTest, "shared-key")
      assert.strictEqual(t.status, 409)
      assert.strictEqual(json(t).error.code, "idempotency_conflict")
      assert.strictEqual(json(t).error.param, "Idempotency-Key")
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 the same Idempotency-Key and body replays byte for byte; a changed body is 409", () =>
    Effect.gen(function*() {
      const first = yield* create(body(), keys.demoTest, "topup-key")
      const again = yield* create(body(), keys.demoTest, "topup-key")
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
      const changed = yield* create(body({ destination_amount: "2" }), keys.demoTest, "topup-key")
      assert.strictEqual(changed.status, 409)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 merchant_reference: a repeat with the same fields returns the original (200, nothing new); changed fields 409", () =>
    Effect.gen(function*() {
      const params = body({ merchant_reference: "topup-1" })
      const first = json(yield* create(params))
      const again = yield* create(params)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(json(again).id, first.id)
      const changed = yield* create({ ...params, destination_amount: "7" })
      assert.strictEqual(changed.status, 409)
      assert.strictEqual(json(changed).error.param, "merchant_reference")
    }).pipe(Effect.provide(layer())))

  it.effect("4.2 another merchant's or environment's top-up is the same 404 as an unknown id; a malformed id is 400 id", () =>
    Effect.gen(function*() {
      const t = json(yield* create(body()))
      for (const key of [keys.otherTest, keys.demoLive]) {
        const e = yield* Effect.flip(TopupIntents.retrieve(yield* login(key), t.id))
        assert.strictEqual(e._tag, "ResourceNotFound")
      }
      const unknown = yield* Effect.flip(get("tuin_000000000000000000000000"))
      assert.strictEqual(unknown._tag, "ResourceNotFound")
      const bad = yield* Effect.flip(get("nope"))
      assert.strictEqual(bad._tag, "ValidationFailed")
    }).pipe(Effect.provide(layer())))

  it.effect("4.8 lists newest first with every filter (country, currency, merchant_reference, status, source_type single and comma-separated) and D6 keyset pages", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const a = json(yield* create(body({ country: "TH", merchant_reference: "r-a" })))
      yield* TestClock.adjust(Duration.millis(1))
      const b = json(yield* create(body({ source: { type: "provider_gateway" }, destination_currency: "THB" })))
      yield* TestClock.adjust(Duration.millis(1))
      const c = json(yield* create(body({ source: { type: "manual_receipt" }, destination_currency: "THB", country: "SG" })))
      const ids = (page: { data: ReadonlyArray<{ id: string }> }) => page.data.map((x) => x.id)
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, {})), [c.id, b.id, a.id])
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, { country: "TH" })), [a.id])
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, { currency: "THB" })), [c.id, b.id])
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, { merchant_reference: "r-a" })), [a.id])
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, { source_type: "manual_receipt" })), [c.id])
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, { source_type: "manual_receipt,test_funding" })), [c.id, a.id])
      assert.deepStrictEqual(ids(yield* TopupIntents.list(who, { status: "requires_payment" })), [c.id, b.id, a.id])
      const first = yield* TopupIntents.list(who, { limit: "2" })
      assert.deepStrictEqual(ids(first), [c.id, b.id])
      assert.isTrue(first.has_more)
      const second = yield* TopupIntents.list(who, { limit: "2", cursor: first.next_cursor! })
      assert.deepStrictEqual(ids(second), [a.id])
      assert.isFalse(second.has_more)
      assert.isNull(second.next_cursor)
      const badType = yield* Effect.flip(TopupIntents.list(who, { source_type: "card" }))
      assert.strictEqual(badType._tag === "ValidationFailed" && badType.param, "source_type")
      const badCursor = yield* Effect.flip(TopupIntents.list(who, { cursor: "nope" }))
      assert.strictEqual(badCursor._tag === "ValidationFailed" && badCursor.param, "cursor")
      // Another merchant sees none of them.
      assert.lengthOf((yield* TopupIntents.list(yield* login(keys.otherTest), {})).data, 0)
    }).pipe(Effect.provide(layer())))

  it.effect("FX port: the host's rates are used as given (a rate from the host's layer reaches fx.rate and the source amount)", () =>
    Effect.gen(function*() {
      const t = json(yield* create(body({ source: { type: "provider_gateway" }, destination_currency: "THB", destination_amount: "100" })))
      // 1.00 THB at 40 THB per USDT = 0.025 USDT = 25000 units; + 0.5 % spread (125) + 1 % fee (250).
      assert.strictEqual(t.fx.rate, "40")
      assert.strictEqual(t.source.amount, "25375")
      const stored = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.get(TopupIntent.table, scope, t.id)))
      assert.strictEqual(stored.convertedAmount, "25000")
    }).pipe(Effect.provide(layer({ fxRates: Fx.layerStatic({ rates: { "USDT/THB": "40" } }) }))))

  it.effect("4.9 twenty creates racing on one merchant_reference (each its own key) leave exactly one top-up; the rest answer it or 409", () =>
    Effect.gen(function*() {
      const params = body({ merchant_reference: "race-topup" })
      const answers = yield* Effect.all(Array.from({ length: 20 }, () => create(params)), { concurrency: "unbounded" })
      const ids = new Set(answers.filter((r) => r.status < 300).map((r) => json(r).id))
      assert.strictEqual(ids.size, 1)
      assert.strictEqual(answers.filter((r) => r.status === 201).length, 1)
      for (const r of answers) assert.include([200, 201, 409], r.status)
      const listed = yield* TopupIntents.list(yield* login(keys.demoTest), { merchant_reference: "race-topup" })
      assert.lengthOf(listed.data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.6 twenty creates racing on one Idempotency-Key leave exactly one top-up; the rest replay it or are 409 in flight", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.all(Array.from({ length: 20 }, () => create(body(), keys.demoTest, "race-key")), { concurrency: "unbounded" })
      assert.strictEqual(answers.filter((r) => r.status === 201 && !r.replayed).length, 1)
      for (const r of answers) assert.include([201, 409], r.status)
      assert.lengthOf((yield* TopupIntents.list(yield* login(keys.demoTest), {})).data, 1)
    }).pipe(Effect.provide(layer())))
})
