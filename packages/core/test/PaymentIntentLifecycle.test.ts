import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Schema, TestClock } from "effect"
import type { ApiResponse } from "../src/index.js"
import {
  Event,
  PaymentIntent,
  PaymentIntentLifecycle,
  PaymentIntents,
  Provider,
  Simulator,
  Storage,
  Task,
  Workers
} from "../src/index.js"
import { keys, layer, login } from "./fixtures.js"

type Key = { readonly public: string; readonly secret: string }
type Body = Record<string, unknown>

const decodeParams = Schema.decodeUnknown(PaymentIntent.CreateParams)
const json = (r: ApiResponse.ApiResponse) => JSON.parse(r.body)
const errorOf = (r: ApiResponse.ApiResponse) => json(r).error as { code: string; param?: string }

const create = (body: Body, key: Key = keys.demoTest) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(decodeParams(body))
    const r = yield* PaymentIntents.create({ principal, requestId: "req_test" }, params)
    assert.strictEqual(r.status, 201, r.body)
    return json(r) as { id: string; status: string }
  })

const confirm = (id: string, key: Key = keys.demoTest, idempotencyKey?: string) =>
  Effect.flatMap(login(key), (principal) => PaymentIntents.confirm({ principal, requestId: "req_confirm", idempotencyKey }, id))

const get = (id: string) => Effect.flatMap(login(keys.demoTest), (p) => PaymentIntents.retrieve(p, id))
const events = (id: string) =>
  Effect.map(Event.forResource({ merchantId: "mch_demo", environment: "test" }, id), (es) => es.map((e) => e.type))

const promptpay = (amount = "150000"): Body => ({
  amount,
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_promptpay",
  customer: { name: "Somchai Jaidee" }
})

/** Run every task due now, as a worker would. */
const work = Workers.drain({ owner: "test" })

describe("payment intent lifecycle (3.1, 4.5, D7, D9)", () => {
  it.effect("D7 create writes payment_intent.created and the event of its status, each with the intent as created", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const stored = yield* Event.forResource({ merchantId: "mch_demo", environment: "test" }, intent.id)
      assert.deepStrictEqual(stored.map((e) => e.type), ["payment_intent.created", "payment_intent.requires_action"])
      const got = yield* get(intent.id)
      for (const e of stored) {
        assert.deepStrictEqual(e.data, got as unknown as Record<string, unknown>)
        const envelope = Event.toEnvelope(e)
        assert.deepStrictEqual(Object.keys(envelope), ["object", "id", "type", "environment", "created_at", "data"])
        assert.match(envelope.id, /^evt_[0-9A-Za-z]{24}$/)
        assert.strictEqual(envelope.created_at, got.updated_at)
      }
    }).pipe(Effect.provide(layer())))

  it.effect("4.5 confirm answers 200 with the intent as it is; the durable task moves it to succeeded, with payment_intent.succeeded", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const r = yield* confirm(intent.id)
      assert.strictEqual(r.status, 200, r.body)
      assert.strictEqual(json(r).status, "requires_action")
      assert.strictEqual(json(r).id, intent.id)
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      assert.strictEqual(yield* work, 1)
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "succeeded")
      assert.isNull(after.next_action)
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.declineOnConfirm}: confirm fails the payment with payment_declined`, () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.declineOnConfirm))
      yield* confirm(intent.id)
      yield* work
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "failed")
      assert.strictEqual(after.failure_code, "payment_declined")
      assert.isString(after.failure_message)
      assert.isNull(after.next_action)
      assert.deepStrictEqual((yield* events(intent.id)).slice(-1), ["payment_intent.failed"])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.slowConfirmation}: processing first (no next_action, processing_reason asynchronous), then succeeded`, () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.slowConfirmation))
      yield* confirm(intent.id)
      yield* work
      const processing = yield* get(intent.id)
      assert.strictEqual(processing.status, "processing")
      assert.isNull(processing.next_action)
      assert.strictEqual(processing.processing_reason, "asynchronous")
      // The provider settles it slowConfirmationMillis after create; polls back off until then.
      for (let i = 0; i < 10 && (yield* get(intent.id)).status === "processing"; i++) {
        yield* TestClock.adjust(Duration.seconds(2))
        yield* work
      }
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "succeeded")
      assert.isNull(after.processing_reason)
      assert.deepStrictEqual(yield* events(intent.id), [
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.processing",
        "payment_intent.succeeded"
      ])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.expireSoon}: the payer action expires after ${Simulator.shortExpiryMillis} ms and the intent is expired`, () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.expireSoon))
      // Confirming changes nothing: the payer never pays.
      yield* confirm(intent.id)
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      yield* TestClock.adjust(Duration.millis(Simulator.shortExpiryMillis - 1))
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      yield* TestClock.adjust(Duration.millis(1))
      yield* work
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "expired")
      assert.isNull(after.next_action)
      assert.deepStrictEqual((yield* events(intent.id)).slice(-1), ["payment_intent.expired"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.1 never after a terminal status: the expiry timer of a payment that succeeded changes nothing", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      yield* work
      yield* TestClock.adjust(Duration.hours(2))
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "succeeded")
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.succeeded"])
      // Every task is done: nothing is left due, ever.
      assert.isUndefined(yield* Effect.flatMap(Task.Tasks, (t) => t.nextDue))
    }).pipe(Effect.provide(layer())))

  it.effect("4.5 a terminal intent cannot be confirmed: 409 payment_intent_unexpected_state, and nothing is recorded", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.declineOnCreate))
      assert.strictEqual(intent.status, "failed")
      const r = yield* confirm(intent.id)
      assert.strictEqual(r.status, 409)
      assert.strictEqual(errorOf(r).code, "payment_intent_unexpected_state")
      assert.strictEqual(yield* work, 0)
    }).pipe(Effect.provide(layer())))

  it.effect("4.5 a hosted intent with no payment at a provider yet cannot be confirmed: 409 payment_intent_unexpected_state", () =>
    Effect.gen(function*() {
      const intent = yield* create({ amount: "150000", currency: "THB", country: "TH", customer: {} })
      const r = yield* confirm(intent.id)
      assert.strictEqual(r.status, 409)
      assert.strictEqual(errorOf(r).code, "payment_intent_unexpected_state")
    }).pipe(Effect.provide(layer())))

  it.effect("4.2 confirm of an unknown id, another merchant's or another environment's: the same 404; a malformed id: 400", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      for (const [key, id] of [[keys.demoTest, "dord_000000000000000000000000"], [keys.otherTest, intent.id], [keys.demoLive, intent.id]] as const) {
        const r = yield* confirm(id, key)
        assert.strictEqual(r.status, 404)
        assert.strictEqual(errorOf(r).code, "resource_not_found")
      }
      const bad = yield* confirm("nope")
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(errorOf(bad).param, "id")
      assert.strictEqual(yield* work, 0)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 a confirm retried with its Idempotency-Key replays its answer and records one task", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const first = yield* confirm(intent.id, keys.demoTest, "confirm-key")
      const again = yield* confirm(intent.id, keys.demoTest, "confirm-key")
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
      assert.strictEqual(yield* work, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("3.1.6 a provider unavailable at confirm is asked again with back-off until it answers; nothing is lost", () => {
    let failures = 2
    const sim = Simulator.make()
    const provider: Provider.PaymentProvider = {
      ...sim,
      confirmPayment: (ref) =>
        Effect.suspend(() =>
          failures-- > 0 ? Effect.fail(new Provider.ProviderUnavailable({ provider: "simulator", reason: "down" })) : sim.confirmPayment(ref)
        )
    }
    return Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      const waiting = (yield* Effect.flatMap(Task.Tasks, (t) => t.nextDue))!
      const now = yield* TestClock.currentTimeMillis
      assert.isAbove(waiting, now)
      for (let i = 0; i < 5 && (yield* get(intent.id)).status !== "succeeded"; i++) {
        yield* TestClock.adjust(Duration.minutes(1))
        yield* work
      }
      assert.strictEqual((yield* get(intent.id)).status, "succeeded")
    }).pipe(Effect.provide(layer({ providers: [provider] })))
  })

  it.effect("D7 a task's change applies once: the same claimed task run twice writes one event", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      const now = yield* TestClock.currentTimeMillis
      const [task] = yield* Effect.flatMap(Task.Tasks, (t) => t.claim({ now, owner: "a", leaseMillis: 60_000, limit: 10 }))
      assert.isTrue(yield* Workers.runTask(task!))
      assert.isFalse(yield* Workers.runTask(task!))
      assert.deepStrictEqual((yield* events(intent.id)).filter((e) => e === "payment_intent.succeeded"), ["payment_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.1 every write goes through the transitions: a change out of a terminal status is a defect, never written", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.declineOnCreate))
      const record = Option.getOrThrow(
        yield* Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, { merchantId: "mch_demo", environment: "test" }, intent.id))
      )
      const exit = yield* Effect.exit(PaymentIntentLifecycle.change(record, { status: "succeeded", failureCode: null, failureMessage: null }, record.updatedAt))
      assert.isTrue(exit._tag === "Failure")
    }).pipe(Effect.provide(layer())))

  it.live("workers as a layer wake on new work: a confirm is applied without waiting for the poll interval", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      for (let i = 0; i < 100 && (yield* get(intent.id)).status !== "succeeded"; i++) yield* Effect.sleep(Duration.millis(20))
      assert.strictEqual((yield* get(intent.id)).status, "succeeded")
    }).pipe(
      Effect.provide(Workers.layer({ pollMillis: 60_000 }).pipe(Layer.provideMerge(layer()))),
      Effect.scoped
    ))
})
