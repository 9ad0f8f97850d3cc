/**
 * Provider attempts whose intent was never stored (docs/reliability.md "Lost provider answers"):
 * the attempt is stored before the provider is called, so a payment the provider made is
 * remembered when the intent's commit fails; a payment of it with no intent to come is refunded
 * at that provider on its own; and a same-key retry after the 503 (4.9.7) sends the provider the
 * same idempotency key, so it never holds two live payments for one create.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import {
  PaymentIntent,
  PaymentIntents,
  ProviderAttempt,
  type ProviderNotification,
  ProviderNotifications,
  Simulator,
  Storage,
  StorageError,
  type Table
} from "../src/index.js"
import { decodeParams, json, keys, layer, login, quiet, scope, work } from "./fixtures.js"
import { lossy } from "./lossyProvider.js"
import { promptpay } from "./paymentIntentHelpers.js"

const lossyRoute = { id: "r_lossy", method: "th_promptpay", provider: "psp_lossy", environments: ["test" as const], priority: 0 }
const upRoute = { id: "r_up", method: "th_promptpay", provider: "simulator", environments: ["test" as const], priority: 1 }

const create = (routes: ReadonlyArray<typeof lossyRoute>, idempotencyKey?: string) =>
  Effect.gen(function*() {
    const who = yield* login(keys.demoTest)
    const principal = { ...who, merchant: { ...who.merchant, routes } }
    return yield* PaymentIntents.create({ principal, requestId: "req_o", idempotencyKey }, yield* Effect.orDie(decodeParams(promptpay)))
  })

/** A store whose commits storing a payment intent fail as unreachable while `down.now`. */
const intentCommitsFail = (down: { now: boolean }) => (store: Storage.Storage["Type"]): Partial<Storage.Storage["Type"]> => ({
  commit: (writes) =>
    down.now && writes.some((w) => w._tag === "Insert" && w.table === PaymentIntent.table)
      ? Effect.fail(new StorageError.StorageUnavailable({ message: "connection reset" }))
      : store.commit(writes)
})

const stored = <A extends Table.StoredRecord>(table: Table.Table<A>, id: string) => Effect.flatMap(Storage.Storage, (s) => s.get(table, scope, id))

const tell = (notice: ProviderNotification.ProviderNotice) =>
  ProviderNotifications.receive("psp_lossy", { headers: {}, body: new TextEncoder().encode(JSON.stringify(notice)) })

/** Past the time a create may still commit its intent: the attempts' own cancel tasks are due. */
const later = Effect.zipRight(TestClock.adjust(ProviderAttempt.orphanAfterMillis + 1_000), work)

describe("provider attempts whose intent was never stored", () => {
  it.effect("47.1 a provider's answer whose intent commit failed is remembered: its attempt's task cancels the payment at that provider", () => {
    const psp = lossy("psp_lossy")
    psp.state.lose = false
    const down = { now: true }
    return Effect.gen(function*() {
      const failed = yield* create([lossyRoute])
      assert.strictEqual(failed.status, 503, failed.body)
      assert.strictEqual(psp.payments.size, 1, "the provider made the payment; its answer reached Tender")
      const [intentId, held] = [...psp.payments.entries()][0]!
      assert.isTrue(Option.isNone(yield* stored(PaymentIntent.table, intentId)))
      down.now = false
      yield* later
      assert.strictEqual(held.status, "canceled")
      const attempt = Option.getOrThrow(yield* stored(ProviderAttempt.table, ProviderAttempt.idOf(intentId, "psp_lossy", null)))
      assert.deepInclude(attempt, { state: "canceled", providerPaymentId: held.id })
    }).pipe(Effect.provide(layer({ providers: [psp.provider], storeFaults: intentCommitsFail(down) })), Effect.provide(quiet))
  })

  it.effect("47.1 D10 an attempt paid whose intent was never stored (its create's commit failed) is recorded and refunded at that provider, once", () => {
    const psp = lossy("psp_lossy")
    const down = { now: true }
    return Effect.gen(function*() {
      // The lossy route's answer is lost, the other answers, and the intent's commit fails.
      const failed = yield* create([lossyRoute, upRoute])
      assert.strictEqual(failed.status, 503, failed.body)
      const [intentId] = [...psp.payments.keys()]
      const held = psp.pay(intentId!)
      down.now = false
      psp.state.lose = false
      // Its paid notice, before and after the create could have committed: never left held.
      const notice = {
        _tag: "PaymentSucceeded" as const,
        eventId: `evt_${held.id}`,
        providerPaymentId: held.id,
        paymentIntentId: intentId!,
        amount: promptpay.amount as string,
        currency: "THB",
        environment: "test" as const
      }
      yield* tell(notice)
      yield* work
      yield* later
      yield* tell({ ...notice, eventId: "evt_again" })
      yield* later
      assert.deepStrictEqual([...psp.refunds.values()], [{ paymentId: held.id, amount: promptpay.amount as string }])
      const attempt = Option.getOrThrow(yield* stored(ProviderAttempt.table, ProviderAttempt.idOf(intentId!, "psp_lossy", null)))
      assert.strictEqual(attempt.state, "paid")
      assert.strictEqual(attempt.refundId, [...psp.refunds.keys()][0])
      assert.match(attempt.detail!, /never stored: refunded at psp_lossy/)
    }).pipe(Effect.provide(layer({ providers: [psp.provider, Simulator.make()], storeFaults: intentCommitsFail(down) })), Effect.provide(quiet))
  })

  it.effect("4.9.7 47.1 a same-key retry after a 503 sends the provider the same idempotency key: one payment there, the intent's own, never canceled", () => {
    const psp = lossy("psp_lossy")
    psp.state.lose = false
    const down = { now: true }
    return Effect.gen(function*() {
      assert.strictEqual((yield* create([lossyRoute], "order-42")).status, 503)
      down.now = false
      const retried = yield* create([lossyRoute], "order-42")
      assert.strictEqual(retried.status, 201, retried.body)
      const intent = json(retried) as { id: string }
      assert.deepStrictEqual([...psp.payments.keys()], [intent.id], "one payment at the provider, under the intent's id")
      assert.strictEqual(psp.state.creates, 2)
      const attempt = Option.getOrThrow(yield* stored(ProviderAttempt.table, ProviderAttempt.idOf(intent.id, "psp_lossy", null)))
      assert.strictEqual(attempt.state, "adopted")
      yield* later
      assert.strictEqual(psp.payments.get(intent.id)!.status, "open", "the intent's own payment is left to its payer")
      // Another key is another create: another intent, another payment.
      const other = json(yield* create([lossyRoute], "order-43")) as { id: string }
      assert.notStrictEqual(other.id, intent.id)
    }).pipe(Effect.provide(layer({ providers: [psp.provider], storeFaults: intentCommitsFail(down) })), Effect.provide(quiet))
  })
})
