import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { Event, PayoutIntent, PayoutIntents, Simulator, Storage } from "../src/index.js"
import { asDemo, events, fund, json, type Key, keys, layer, login, refusal, scope, work } from "./fixtures.js"

const body = (overrides: Record<string, unknown> = {}) => ({
  amount: "500000",
  currency: "THB",
  merchant_reference: `payout-${crypto.randomUUID()}`,
  destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "Somchai Jaidee" },
  ...overrides
})

const decode = Schema.decodeUnknown(PayoutIntent.CreateParams)

/** A payout create, on a balance funded with its amount first (D12: a payout draws from the available balance). */
const create = (params: Record<string, unknown>, key: Key = keys.demoTest, idempotencyKey?: string) =>
  Effect.gen(function*() {
    // Test funding serves the test environment only; a live payout is refused before its balance is read.
    const amount = params["amount"]
    const currency = params["currency"]
    if (key.public.startsWith("pk_test_") && typeof amount === "string" && /^[1-9]\d{0,17}$/.test(amount) && (currency === "THB" || currency === "USD")) {
      yield* fund(key, amount, currency)
    }
    const principal = yield* login(key)
    return yield* PayoutIntents.create({ principal, requestId: "req_p", idempotencyKey }, yield* Effect.orDie(decode(params)))
  })
const cancel = (id: string, key: Key = keys.demoTest, idempotencyKey?: string) =>
  Effect.flatMap(login(key), (principal) => PayoutIntents.cancel({ principal, requestId: "req_x", idempotencyKey }, id))
const get = asDemo(PayoutIntents.retrieve)

describe("payout intents (2.7, 3.3, 4.10, D8)", () => {
  it.effect("D8 create: 201 requires_approval, the D8 object with the account number masked to its last 4, and payout_intent.created", () =>
    Effect.gen(function*() {
      const r = yield* create(body())
      assert.strictEqual(r.status, 201, r.body)
      const p = json(r)
      assert.deepStrictEqual(Object.keys(p).sort(), [
        "amount",
        "created_at",
        "currency",
        "description",
        "destination",
        "environment",
        "failure_code",
        "failure_message",
        "id",
        "merchant_reference",
        "object",
        "status",
        "updated_at"
      ])
      assert.match(p.id, /^pout_[0-9A-Za-z]{24}$/)
      assert.strictEqual(p.object, "payout_intent")
      assert.strictEqual(p.status, "requires_approval")
      assert.strictEqual(p.environment, "test")
      assert.deepStrictEqual(p.destination, { type: "bank_account", bank: "KBANK", account_number: "******6789", account_name: "Somchai Jaidee" })
      assert.deepStrictEqual(yield* events(p.id), ["payout_intent.created"])
      // Stored in full; shown nowhere in full, events included.
      const stored = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.get(PayoutIntent.table, scope, p.id)))
      assert.strictEqual(stored.destination.account_number, "0123456789")
      const [created] = yield* Event.forResource(scope, p.id)
      assert.notInclude(JSON.stringify(created), "0123456789")
      assert.notInclude(r.body, "0123456789")
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 merchant_reference rule 5: a repeat with the same fields returns the original and creates nothing; with a changed field, 409 idempotency_conflict", () =>
    Effect.gen(function*() {
      const params = body()
      const first = json(yield* create(params))
      const again = yield* create(params)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(json(again).id, first.id)
      const changed = yield* create({ ...params, amount: "500001" })
      assert.deepStrictEqual(refusal(changed), { status: 409, code: "idempotency_conflict" })
      assert.strictEqual(json(changed).error.param, "merchant_reference")
      const listed = yield* Effect.flatMap(login(keys.demoTest), (p) => PayoutIntents.list(p, { merchant_reference: params.merchant_reference }))
      assert.lengthOf(listed.data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("3.3 cancel from requires_approval: 200 canceled with payout_intent.canceled; any other status is 409 payout_not_cancelable", () =>
    Effect.gen(function*() {
      const p = json(yield* create(body()))
      const r = yield* cancel(p.id)
      assert.strictEqual(r.status, 200, r.body)
      assert.strictEqual(json(r).status, "canceled")
      assert.deepStrictEqual(yield* events(p.id), ["payout_intent.created", "payout_intent.canceled"])
      const twice = yield* cancel(p.id)
      assert.deepStrictEqual(refusal(twice), { status: 409, code: "payout_not_cancelable" })
      // Approved payouts are processing and cannot be canceled through the API (3.3).
      const q = json(yield* create(body()))
      assert.strictEqual(yield* PayoutIntents.approve(scope, q.id), "approved")
      const late = yield* cancel(q.id)
      assert.deepStrictEqual(refusal(late), { status: 409, code: "payout_not_cancelable" })
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 a cancel retried with the same Idempotency-Key replays its 200", () =>
    Effect.gen(function*() {
      const p = json(yield* create(body()))
      const first = yield* cancel(p.id, keys.demoTest, "cancel-key")
      const again = yield* cancel(p.id, keys.demoTest, "cancel-key")
      assert.strictEqual(again.status, 200)
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
    }).pipe(Effect.provide(layer())))

  it.effect("D8 approval (a back-office operation) makes it processing; the provider's outcome, through a durable task, succeeded", () =>
    Effect.gen(function*() {
      const p = json(yield* create(body()))
      assert.strictEqual(yield* PayoutIntents.approve(scope, p.id), "approved")
      assert.strictEqual((yield* get(p.id)).status, "processing")
      assert.strictEqual(yield* PayoutIntents.approve(scope, p.id), "not_awaiting_approval")
      assert.strictEqual(yield* PayoutIntents.approve({ ...scope, merchantId: "mch_other" }, p.id), "not_found")
      yield* work
      assert.strictEqual((yield* get(p.id)).status, "succeeded")
      assert.deepStrictEqual(yield* events(p.id), ["payout_intent.created", "payout_intent.processing", "payout_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.payoutFails}: an approved payout fails with account_closed`, () =>
    Effect.gen(function*() {
      const p = json(yield* create(body({ amount: Simulator.magicAmounts.payoutFails })))
      yield* PayoutIntents.approve(scope, p.id)
      yield* work
      const after = yield* get(p.id)
      assert.strictEqual(after.status, "failed")
      assert.strictEqual(after.failure_code, "account_closed")
      assert.deepStrictEqual((yield* events(p.id)).slice(-1), ["payout_intent.failed"])
    }).pipe(Effect.provide(layer())))

  it.effect("D8 the bank must be one the provider catalogue knows (400 destination.bank); no provider pays out in live (422)", () =>
    Effect.gen(function*() {
      const unknown = yield* create(body({ destination: { ...body().destination, bank: "NOPE" } }))
      assert.strictEqual(unknown.status, 400)
      assert.strictEqual(json(unknown).error.param, "destination.bank")
      const live = yield* create(body(), keys.demoLive)
      assert.deepStrictEqual(refusal(live), { status: 422, code: "payment_configuration_unavailable" })
    }).pipe(Effect.provide(layer())))

  it.effect("4.2 another merchant's or environment's payout is the same 404 as an unknown id, for get and cancel", () =>
    Effect.gen(function*() {
      const p = json(yield* create(body()))
      for (const key of [keys.otherTest, keys.demoLive]) {
        const who = yield* login(key)
        const e = yield* Effect.flip(PayoutIntents.retrieve(who, p.id))
        assert.strictEqual(e._tag, "ResourceNotFound")
        const c = yield* cancel(p.id, key)
        assert.strictEqual(c.status, 404)
      }
      assert.strictEqual((yield* get(p.id)).status, "requires_approval")
    }).pipe(Effect.provide(layer())))

  it.effect("D6 lists newest first with status, currency and merchant_reference filters", () =>
    Effect.gen(function*() {
      const a = json(yield* create(body()))
      const b = json(yield* create(body({ currency: "USD" })))
      yield* cancel(a.id)
      const who = yield* login(keys.demoTest)
      const canceled = yield* PayoutIntents.list(who, { status: "canceled" })
      assert.isTrue(canceled.data.some((x) => x.id === a.id))
      assert.isFalse(canceled.data.some((x) => x.id === b.id))
      const usd = yield* PayoutIntents.list(who, { currency: "USD" })
      assert.deepStrictEqual(usd.data.map((x) => x.id), [b.id])
      const bad = yield* Effect.flip(PayoutIntents.list(who, { status: "paid" }))
      assert.strictEqual(bad._tag, "ValidationFailed")
    }).pipe(Effect.provide(layer())))
})
