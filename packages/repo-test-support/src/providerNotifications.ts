/**
 * The rules of D11 for provider notifications, as one suite every store runs: core runs it on
 * the in-memory store, @tender/postgres on PostgreSQL. Notices arrive as the simulator signs
 * them (docs/test-environment.md) and go through `ProviderNotifications.receive`, the same call
 * the HTTP route makes; workers apply them (`Workers.drain`).
 */
import { assert, describe, it } from "@effect/vitest"
import {
  BalanceTransaction,
  PaymentIntentCancel,
  PaymentIntentLifecycle,
  PayoutIntent,
  PayoutIntents,
  ProviderNotification,
  ProviderNotifications,
  Refund,
  Refunds,
  Simulator,
  Storage,
  Task
} from "@tender/core"
import type { Layer } from "effect"
import { Effect, Option, Schema, TestClock } from "effect"

import {
  applyTasks,
  context,
  counted,
  createIntent,
  eventId,
  eventTypes,
  intent,
  notify,
  paymentEvent,
  pushCode,
  pushScope,
  scope,
  services,
  signed,
  stored,
  work
} from "./providerNotificationWorld.js"

export { counted, createIntent, eventId, intent, notify, paymentEvent, seed, services, signed, stored, work } from "./providerNotificationWorld.js"

/** The D11 suite on the services `layer` gives (one store for the whole suite; every test makes its own objects). */
export const suite = <E>(store: string, layer: Layer.Layer<Layer.Layer.Success<ReturnType<typeof services>>, E>) =>
  describe(`D11 provider notifications (${store})`, () => {
    it.layer(layer, { timeout: 60_000 })((it) => {
      it.effect("D11 a verified payment notice moves the intent as the provider's answer to a confirm does, with its event", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          const event = paymentEvent("payment.succeeded", p)
          const answer = yield* notify(event)
          assert.deepStrictEqual(answer, { status: 200, contentType: "application/json", body: "{\"received\":true}" })
          // Stored before the answer, with the task that applies it; nothing applied yet.
          assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "received")
          assert.strictEqual((yield* intent(p.id)).status, "requires_action")
          yield* work
          assert.strictEqual((yield* intent(p.id)).status, "succeeded")
          assert.deepStrictEqual(yield* eventTypes(p.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.succeeded"])
          const record = Option.getOrThrow(yield* stored(event.id))
          assert.deepStrictEqual([record.status, record.resourceId, record.eventId], ["applied", p.id, event.id])
        }))

      it.effect("D11 a repeat of the same provider event id answers the same and does nothing twice", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          const event = paymentEvent("payment.succeeded", p)
          const first = yield* notify(event)
          yield* work
          const again = yield* notify(event)
          yield* work
          assert.deepStrictEqual(again, first)
          assert.strictEqual((yield* applyTasks(event.id)).length, 1)
          assert.deepStrictEqual((yield* eventTypes(p.id)).filter((t) => t === "payment_intent.succeeded"), ["payment_intent.succeeded"])
        }))

      it.effect("D11 the same notification received many times at once is stored once, with one task", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          const event = paymentEvent("payment.succeeded", p)
          const answers = yield* Effect.all(Array.from({ length: 8 }, () => notify(event)), { concurrency: "unbounded" })
          assert.strictEqual(new Set(answers.map((a) => JSON.stringify(a))).size, 1)
          assert.strictEqual((yield* applyTasks(event.id)).length, 1)
          yield* work
          assert.deepStrictEqual((yield* eventTypes(p.id)).filter((t) => t === "payment_intent.succeeded"), ["payment_intent.succeeded"])
        }))

      it.effect("D11 a notification the adapter cannot verify fails, and nothing is stored", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          const event = paymentEvent("payment.succeeded", p)
          const request = yield* signed(event, "not-the-simulator-secret")
          const refused = yield* Effect.flip(ProviderNotifications.receive(Simulator.code, request))
          assert.strictEqual(refused._tag, "NotificationUnverified")
          const good = yield* signed(event)
          const tampered = { ...good, body: new TextEncoder().encode(JSON.stringify({ ...event, data: { ...event.data, amount: "1" } })) }
          assert.strictEqual((yield* Effect.flip(ProviderNotifications.receive(Simulator.code, tampered)))._tag, "NotificationUnverified")
          assert.isTrue(Option.isNone(yield* stored(event.id)))
          assert.strictEqual((yield* Effect.flip(ProviderNotifications.receive("no_such_provider", good)))._tag, "UnknownNotificationProvider")
        }))

      it.effect("D11 a terminal object never moves: failed or processing after succeeded changes nothing", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          yield* notify(paymentEvent("payment.succeeded", p))
          yield* work
          const late = [paymentEvent("payment.failed", p), paymentEvent("payment.processing", p)]
          for (const event of late) yield* notify(event)
          yield* work
          const after = yield* intent(p.id)
          assert.deepStrictEqual([after.status, after.failureCode], ["succeeded", null])
          for (const event of late) assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "unchanged")
          assert.strictEqual((yield* eventTypes(p.id)).length, 3)
        }))

      it.effect("D11 a succeeded notice with another amount or currency does not mark the intent succeeded; it is counted", () =>
        Effect.gen(function*() {
          const before = yield* counted("PaymentSucceeded", "mismatch")
          const p = yield* createIntent()
          const amount = paymentEvent("payment.succeeded", p, { amount: "149999" })
          const currency = paymentEvent("payment.succeeded", p, { currency: "USD" })
          yield* notify(amount)
          yield* notify(currency)
          yield* work
          assert.strictEqual((yield* intent(p.id)).status, "requires_action")
          for (const event of [amount, currency]) {
            const record = Option.getOrThrow(yield* stored(event.id))
            assert.deepStrictEqual([record.status, record.resourceId], ["mismatch", p.id])
          }
          assert.strictEqual((yield* counted("PaymentSucceeded", "mismatch")) - before, 2)
          // The provider's own word with the right amount still moves it.
          yield* notify(paymentEvent("payment.succeeded", p))
          yield* work
          assert.strictEqual((yield* intent(p.id)).status, "succeeded")
        }))

      it.effect("D11 a notice for a payment Tender does not know is answered as received and recorded as unmatched", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          const unknown = paymentEvent("payment.succeeded", { id: "dord_000000000000000000000000", providerPaymentId: "sim_x", amount: "100" })
          const noId = paymentEvent("payment.succeeded", { ...p, id: "" }, { payment_intent: undefined })
          const otherPayment = paymentEvent("payment.succeeded", { ...p, providerPaymentId: "sim_forged" })
          const live = { ...paymentEvent("payment.succeeded", p), livemode: true }
          for (const event of [unknown, noId, otherPayment, live]) {
            assert.deepStrictEqual((yield* notify(event)).status, 200)
          }
          yield* work
          for (const event of [unknown, noId, otherPayment, live]) {
            assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "unmatched", event.id)
          }
          assert.strictEqual((yield* intent(p.id)).status, "requires_action")
        }))

      it.effect("D11 a stored notice in a form this version does not read ends unusable, its task done, nothing moved", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          const event = paymentEvent("payment.succeeded", p)
          yield* notify(event)
          // As a later version (a notice type this one lacks) or a hand edit of the row leaves it.
          const record = Option.getOrThrow(yield* stored(event.id))
          const later = { _tag: "PaymentDisputed", eventId: event.id, paymentIntentId: p.id } as unknown as ProviderNotification.ProviderNotice
          yield* Effect.flatMap(Storage.Storage, (s) =>
            s.commit([Storage.Write.update(ProviderNotification.table, { ...record, notice: later, version: record.version + 1 }, record.version)]))
          const before = yield* counted("unknown", "unusable")
          yield* work
          const ended = Option.getOrThrow(yield* stored(event.id))
          assert.deepStrictEqual([ended.status, ended.detail], ["unusable", "the stored notice is not one this version reads"])
          assert.deepStrictEqual(
            (yield* applyTasks(event.id)).map((t) =>
              t.status
            ),
            ["done"]
          )
          assert.strictEqual((yield* counted("unknown", "unusable")) - before, 1)
          assert.strictEqual((yield* intent(p.id)).status, "requires_action")
        }))

      it.effect("D11 a payment reported for a canceled intent leaves it canceled and becomes D10's late_payment refund, once", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          yield* PaymentIntentCancel.cancel(yield* context("req_cancel"), p.id, {})
          yield* work
          yield* notify(paymentEvent("payment.succeeded", p))
          yield* notify(paymentEvent("payment.succeeded", p))
          yield* work
          assert.strictEqual((yield* intent(p.id)).status, "canceled")
          const refunds = yield* Effect.flatMap(Storage.Storage, (s) => s.list(Refund.table, { ...scope, where: { paymentIntentId: p.id }, limit: 10 }))
          assert.deepStrictEqual(refunds.map((r) => [r.reason, r.amount, r.status]), [["late_payment", p.amount, "succeeded"]])
        }))

      it.effect(
        "D10 a payment processing at a provider that cannot be polled, expired at its payer action's expiry, then reported paid by the provider's notice stays expired and becomes D10's late_payment refund at that provider, once",
        () =>
          Effect.gen(function*() {
            const p = yield* createIntent("150000", "push")
            const expiresAt = PaymentIntentLifecycle.actionExpiry(yield* intent(p.id))!
            yield* notify(paymentEvent("payment.processing", p), pushCode)
            yield* work
            assert.strictEqual((yield* intent(p.id)).status, "processing")
            // The provider says nothing more before the payer action's expiry: the intent expires.
            yield* TestClock.setTime(expiresAt)
            yield* work
            assert.strictEqual((yield* intent(p.id)).status, "expired")
            // Then the provider reports it paid (twice, as providers retry): the money goes back, once.
            const paid = [paymentEvent("payment.succeeded", p), paymentEvent("payment.succeeded", p)]
            for (const event of paid) yield* notify(event, pushCode)
            yield* work
            const after = yield* intent(p.id)
            assert.deepStrictEqual([after.status, after.amountRefunded, after.refundsPending], ["expired", p.amount, "0"])
            // Whichever is applied first refunds; the other finds the amount reserved.
            const outcomes: Array<string> = []
            for (const event of paid) outcomes.push(Option.getOrThrow(yield* stored(event.id, pushCode)).status)
            assert.deepStrictEqual(outcomes.sort(), ["applied", "unchanged"])
            const refunds = yield* Effect.flatMap(Storage.Storage, (s) => s.list(Refund.table, { ...pushScope, where: { paymentIntentId: p.id }, limit: 10 }))
            assert.deepStrictEqual(refunds.map((r) => [r.reason, r.amount, r.status, r.providerCode]), [["late_payment", p.amount, "succeeded", pushCode]])
            assert.deepStrictEqual(yield* eventTypes(p.id, pushScope), [
              "payment_intent.created",
              "payment_intent.requires_action",
              "payment_intent.processing",
              "payment_intent.expired"
            ])
            assert.deepStrictEqual(yield* eventTypes(refunds[0]!.id, pushScope), ["refund.created", "refund.succeeded"])
            // D12: the money was received, then given back; the merchant's balance keeps none of it.
            const ledger = yield* Effect.flatMap(Storage.Storage, (s) => s.list(BalanceTransaction.table, { ...pushScope, limit: 10 }))
            assert.deepStrictEqual(ledger.map((t) => [t.type, t.amount]).sort(), [["payment", "150000"], ["refund", "-150000"]])
          })
      )

      it.effect("D11 a processing notice moves a payment to processing and leaves a poll as the fallback", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          yield* notify(paymentEvent("payment.processing", p))
          yield* work
          assert.strictEqual((yield* intent(p.id)).status, "processing")
          const polls = yield* Effect.flatMap(Storage.Storage, (s) =>
            s.list(Task.table, { ...scope, where: { resourceId: p.id, kind: "payment_intent.poll" }, limit: 10 }))
          assert.strictEqual(
            polls.filter((t) =>
              t.status === "pending"
            ).length,
            1
          )
          yield* notify(paymentEvent("payment.failed", p, { failure_code: "payment_declined", failure_message: "Declined." }))
          yield* work
          assert.deepStrictEqual([(yield* intent(p.id)).status, (yield* intent(p.id)).failureCode], ["failed", "payment_declined"])
        }))

      it.effect("D11 a refund notice settles a pending refund once; a later one changes nothing", () =>
        Effect.gen(function*() {
          const p = yield* createIntent()
          yield* notify(paymentEvent("payment.succeeded", p))
          yield* work
          // A slow refund (D9 magic amount): the provider's send answers pending.
          const params = yield* Effect.orDie(Schema.decodeUnknown(Refund.CreateParams)({ payment_intent: p.id, amount: Simulator.magicAmounts.slowRefund }))
          const refundId = (JSON.parse((yield* Refunds.create(yield* context("req_refund"), params)).body) as { id: string }).id
          yield* work
          const find = Effect.flatMap(Storage.Storage, (s) => s.find(Refund.table, refundId)).pipe(Effect.map(Option.getOrThrow))
          assert.strictEqual((yield* find).status, "pending")
          const refundEvent = (type: string) => ({
            id: eventId(),
            type,
            data: { refund: refundId, provider_refund_id: `re_${refundId}`, provider_payment_id: p.providerPaymentId }
          })
          yield* notify(refundEvent("refund.succeeded"))
          yield* work
          assert.strictEqual((yield* find).status, "succeeded")
          assert.strictEqual((yield* intent(p.id)).amountRefunded, Simulator.magicAmounts.slowRefund)
          const late = refundEvent("refund.failed")
          yield* notify(late)
          yield* work
          assert.strictEqual((yield* find).status, "succeeded")
          assert.strictEqual(Option.getOrThrow(yield* stored(late.id)).status, "unchanged")
          assert.deepStrictEqual((yield* eventTypes(refundId)).filter((t) => t !== "refund.created"), ["refund.succeeded"])
        }))

      it.effect("D11 a payout notice settles a processing payout; one awaiting approval does not move", () =>
        Effect.gen(function*() {
          const params = yield* Effect.orDie(
            Schema.decodeUnknown(PayoutIntent.CreateParams)({
              amount: "50000",
              currency: "THB",
              merchant_reference: `po_${eventId()}`,
              destination: { type: "bank_account", bank: "KBANK", account_number: "0471234567", account_name: "Somchai Jaidee" }
            })
          )
          const payoutId = (JSON.parse((yield* PayoutIntents.create(yield* context("req_po"), params)).body) as { id: string }).id
          const find = Effect.flatMap(Storage.Storage, (s) => s.find(PayoutIntent.table, payoutId)).pipe(Effect.map(Option.getOrThrow))
          const payoutEvent = (type: string) => ({ id: eventId(), type, data: { payout_intent: payoutId, provider_payout_id: `po_${payoutId}` } })
          const early = payoutEvent("payout.succeeded")
          yield* notify(early)
          yield* work
          assert.strictEqual((yield* find).status, "requires_approval")
          assert.strictEqual(Option.getOrThrow(yield* stored(early.id)).status, "unchanged")
          assert.strictEqual(yield* PayoutIntents.approve(scope, payoutId), "approved")
          // Applied before the send task runs: the notice settles it, the send task finds it final.
          const failed = payoutEvent("payout.failed")
          yield* notify(failed)
          // The apply task gives its writes; committed here as the worker commits them, before the send task runs.
          const applied = yield* ProviderNotifications.run({ resourceId: ProviderNotification.recordId(Simulator.code, failed.id) } as Task.TaskRecord)
          if (applied._tag === "Done") yield* Effect.flatMap(Storage.Storage, (s) => s.commit(applied.writes))
          yield* work
          assert.deepStrictEqual([(yield* find).status, (yield* find).failureCode], ["failed", "payment_declined"])
        }))

      it.effect("D11 an event type Tender does not act on is answered, stored for dedupe, and has no task", () =>
        Effect.gen(function*() {
          const event = { id: eventId(), type: "charge.dispute.created", data: {} }
          assert.strictEqual((yield* notify(event)).status, 200)
          assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "ignored")
          assert.strictEqual((yield* applyTasks(event.id, "live")).length + (yield* applyTasks(event.id)).length, 0)
        }))
    })
  })
