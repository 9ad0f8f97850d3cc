/**
 * The one way a provider's word reaches a payment intent (`PaymentIntentLifecycle.applyUpdate`):
 * whatever the source (confirm, poll, receipt, cancel, notification), the same D11 guard, D10
 * late payment and follow-up policy hold. The simulator stands in for the provider, with one of
 * its answers changed to report what a provider might: another amount or currency paid.
 */
import { assert, describe, it } from "@effect/vitest"
import { png } from "@tender/repo-test-support"
import { Duration, Effect, Layer, Option, TestClock } from "effect"
import {
  Asset,
  PaymentIntent,
  PaymentIntentCancel,
  PaymentIntentLifecycle,
  PaymentIntents,
  ProviderNotification,
  ProviderNotifications,
  Receipts,
  Refunds,
  Simulator,
  Storage,
  Task
} from "../src/index.js"
import type { Provider } from "../src/index.js"
import { type Body, decodeParams, events, json, keys, layer, login, quiet, scope, work } from "./fixtures.js"

const create = (body: Body) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const r = yield* PaymentIntents.create({ principal, requestId: "req_test" }, yield* Effect.orDie(decodeParams(body)))
    assert.strictEqual(r.status, 201, r.body)
    return json(r) as { id: string; status: string }
  })

const merchant = (method: string, amount: string, options?: Record<string, string>): Body => ({
  amount,
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: method,
  customer: { name: "Somchai Jaidee" },
  ...(options === undefined ? {} : { payment_method_options: options })
})
const promptpay = (amount = "150000") => merchant("th_promptpay", amount)
const bankTransfer = () => merchant("th_bank_transfer", "150000", { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" })

const stored = (id: string) => Effect.map(Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, scope, id)), Option.getOrThrow)
const principal = login(keys.demoTest)
const confirm = (id: string) => Effect.flatMap(principal, (p) => PaymentIntents.confirm({ principal: p, requestId: "req_confirm" }, id))

/** A success of one minor unit more than the payment's: what a provider reporting another amount says. */
const otherAmount = (payment: Provider.ProviderPaymentRef): Provider.ProviderPaymentUpdate => ({
  _tag: "Succeeded",
  amount: String(BigInt(payment.amount) + 1n),
  currency: payment.currency
})

const sim = Simulator.make()
const with_ = (override: Partial<Provider.PaymentProvider>) => layer({ providers: [{ ...sim, ...override }] }).pipe(Layer.provideMerge(quiet))

/** The simulator's signed notification, received at Tender's door as a provider's would be. */
const notify = (event: Simulator.SimulatorEvent) =>
  Effect.gen(function*() {
    const request = yield* sim.payerNotification(event)
    yield* ProviderNotifications.receive(Simulator.code, request)
  })

describe("one way in: every provider update goes through applyUpdate (D10, D11)", () => {
  it.effect("D11 a confirm reporting another amount leaves the intent as it is", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      yield* work
      const after = yield* stored(intent.id)
      assert.strictEqual(after.status, "requires_action")
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action"])
    }).pipe(Effect.provide(with_({ confirmPayment: (ref) => Effect.succeed(otherAmount(ref)) }))))

  it.effect("D11 a poll reporting another amount leaves the intent as it is", () =>
    Effect.gen(function*() {
      // Confirm answers processing (the slow magic amount); the poll that follows reports another amount.
      const intent = yield* create(promptpay(Simulator.magicAmounts.slowConfirmation))
      yield* confirm(intent.id)
      yield* work
      assert.strictEqual((yield* stored(intent.id)).status, "processing")
      for (let i = 0; i < 4; i++) {
        yield* TestClock.adjust(Duration.minutes(1))
        yield* work
      }
      assert.strictEqual((yield* stored(intent.id)).status, "processing")
      assert.notInclude(yield* events(intent.id), "payment_intent.succeeded")
    }).pipe(Effect.provide(with_({ getPaymentStatus: (ref) => Effect.succeed(otherAmount(ref)) }))))

  it.effect("D11 a receipt's verdict reporting another currency leaves the intent as it is, its receipt still submitted", () =>
    Effect.gen(function*() {
      const intent = yield* create(bankTransfer())
      const p = yield* principal
      const asset = json(yield* Asset.upload({ principal: p, requestId: "req_upload", idempotencyKey: "slip" }, png()))
      const r = yield* Receipts.submit({ principal: p, requestId: "req_receipt" }, intent.id, { _tag: "AssetId", assetId: asset.id })
      assert.strictEqual(r.status, 200, r.body)
      yield* work
      const after = yield* stored(intent.id)
      assert.strictEqual(after.status, "processing")
      assert.strictEqual(after.receipt?.status, "submitted")
    }).pipe(Effect.provide(with_({ submitReceipt: (ref) => Effect.succeed({ _tag: "Succeeded", amount: ref.amount, currency: "USD" }) }))))

  it.effect("D11 D10 a cancel's answer of a payment of another amount refunds nothing and leaves the intent canceled", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const p = yield* principal
      assert.strictEqual((yield* PaymentIntentCancel.cancel({ principal: p, requestId: "req_cancel" }, intent.id, {})).status, 200)
      yield* work
      assert.strictEqual((yield* stored(intent.id)).status, "canceled")
      assert.lengthOf((yield* Refunds.list(p, { payment_intent: intent.id })).data, 0)
    }).pipe(Effect.provide(with_({ cancelPayment: (ref) => Effect.succeed(otherAmount(ref)) }))))

  it.effect("D11 a notification reporting another amount leaves the intent as it is, and its notice is stored as a mismatch", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const record = yield* stored(intent.id)
      const event = {
        id: "evt_other_amount",
        type: "payment.succeeded",
        data: { payment_intent: intent.id, provider_payment_id: record.providerPaymentId!, amount: "150001", currency: "THB" }
      }
      yield* notify(event)
      yield* work
      assert.strictEqual((yield* stored(intent.id)).status, "requires_action")
      const notice = yield* Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, ProviderNotification.recordId(Simulator.code, event.id)))
      assert.strictEqual(Option.getOrThrow(notice).status, "mismatch")
      // The same amount, said by the same door, moves it: the guard is about the amount alone.
      yield* notify({ ...event, id: "evt_same_amount", data: { ...event.data, amount: "150000" } })
      yield* work
      assert.strictEqual((yield* stored(intent.id)).status, "succeeded")
    }).pipe(Effect.provide(with_({}))))

  it.effect("D10 a payment reported for a canceled intent by notification refunds it once, however often it is repeated", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const p = yield* principal
      yield* PaymentIntentCancel.cancel({ principal: p, requestId: "req_cancel" }, intent.id, {})
      yield* work
      const record = yield* stored(intent.id)
      const paid = (id: string) =>
        notify({
          id,
          type: "payment.succeeded",
          data: { payment_intent: intent.id, provider_payment_id: record.providerPaymentId!, amount: "150000", currency: "THB" }
        })
      yield* paid("evt_late_1")
      yield* paid("evt_late_2")
      yield* work
      yield* paid("evt_late_3")
      yield* work
      const refunds = yield* Refunds.list(p, { payment_intent: intent.id })
      assert.deepStrictEqual(refunds.data.map((r) => [r.reason, r.amount, r.status]), [["late_payment", "150000", "succeeded"]])
      assert.strictEqual((yield* stored(intent.id)).status, "canceled")
    }).pipe(Effect.provide(with_({}))))

  it.effect("D10 a payment reported for an intent whose payer action expired (requires_action to expired) stays expired and is refunded once, as a late payment", () =>
    Effect.gen(function*() {
      const amount = Simulator.magicAmounts.expireSoon
      const intent = yield* create(promptpay(amount))
      yield* TestClock.adjust(Duration.millis(Simulator.shortExpiryMillis))
      yield* work
      const record = yield* stored(intent.id)
      assert.strictEqual(record.status, "expired")
      const paid = (id: string) =>
        notify({ id, type: "payment.succeeded", data: { payment_intent: intent.id, provider_payment_id: record.providerPaymentId!, amount, currency: "THB" } })
      yield* paid("evt_expired_late_1")
      yield* work
      yield* paid("evt_expired_late_2")
      yield* work
      const refunds = yield* Refunds.list(yield* principal, { payment_intent: intent.id })
      assert.deepStrictEqual(refunds.data.map((r) => [r.reason, r.amount, r.status]), [["late_payment", amount, "succeeded"]])
      assert.deepStrictEqual([(yield* stored(intent.id)).status, (yield* stored(intent.id)).amountRefunded], ["expired", amount])
      assert.deepStrictEqual((yield* events(intent.id)).filter((t) => t.startsWith("payment_intent.")).slice(-1), ["payment_intent.expired"])
    }).pipe(Effect.provide(with_({}))))

  it.effect("one follow-up policy per source: a poll after a confirm's processing in 2 s, after a notification's in 30 s", () =>
    Effect.gen(function*() {
      const polls = (id: string) =>
        Effect.map(Effect.flatMap(Storage.Storage, (s) => s.list(Task.table, { ...scope, where: { resourceId: id }, limit: 100 })), (page) =>
          page.filter((t) => t.kind === "payment_intent.poll" && t.resourceId === id && t.status === "pending").map((t) => t.dueAt - t.createdAt))
      const confirmed = yield* create(promptpay(Simulator.magicAmounts.slowConfirmation))
      yield* confirm(confirmed.id)
      yield* work
      assert.deepStrictEqual(yield* polls(confirmed.id), [2_000])
      const told = yield* create(promptpay())
      const record = yield* stored(told.id)
      yield* notify({ id: "evt_processing", type: "payment.processing", data: { payment_intent: told.id, provider_payment_id: record.providerPaymentId! } })
      yield* work
      assert.deepStrictEqual(yield* polls(told.id), [30_000])
      // The same update applied again moves nothing and asks nothing again.
      const again = yield* PaymentIntentLifecycle.applyUpdate(yield* stored(told.id), { _tag: "Processing" }, { _tag: "notification" }, 0)
      assert.strictEqual(again.outcome, "unchanged")
      assert.lengthOf(again.writes, 0)
    }).pipe(Effect.provide(with_({}))))
})
