/**
 * Lost provider answers (docs/reliability.md "Lost provider answers"): a create whose answer was
 * lost after the provider acted on it is remembered before the create fails over, canceled at
 * that provider by a durable task, and a payment the payer made of it anyway is D10's late
 * payment of its intent, refunded at that provider, never an unmatched notice. The provider here
 * keeps its payments by idempotency key, as Stripe and Adyen do, and can lose its answers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import {
  BalanceTransaction,
  PaymentIntent,
  PaymentIntents,
  PayoutIntent,
  PayoutIntents,
  Provider,
  ProviderAttempt,
  ProviderKit,
  ProviderNotification,
  ProviderNotifications,
  Refund,
  Simulator,
  Storage,
  type Table,
  Task
} from "../src/index.js"
import { decodeParams, events, fundedPayout, json, keys, layer, login, quiet, scope, work } from "./fixtures.js"
import { promptpay } from "./paymentIntentHelpers.js"

interface Held {
  readonly id: string
  status: "open" | "paid" | "canceled"
}

/** A provider that keeps its payments by idempotency key and, while `lose` is set, acts on a create and loses the answer. */
const lossy = (code: string) => {
  const sim = Simulator.make()
  const payments = new Map<string, Held>()
  const refunds = new Map<string, { readonly paymentId: string; readonly amount: string }>()
  const state = { lose: true, creates: 0, cancels: 0 }
  const byId = (id: string) => [...payments.values()].find((p) => p.id === id)!
  const provider: Provider.PaymentProvider = {
    ...sim,
    code,
    createPayment: (request) =>
      Effect.suspend(() => {
        state.creates++
        const held = payments.get(request.paymentIntentId) ?? { id: `pay_${code}_${payments.size + 1}`, status: "open" as const }
        payments.set(request.paymentIntentId, held)
        if (state.lose) return Effect.fail(new Provider.ProviderUnavailable({ provider: code, reason: "timed out" }))
        return Effect.map(sim.createPayment(request), (r) => ({ ...r, providerPaymentId: held.id }) as Provider.ProviderPaymentResult)
      }),
    cancelPayment: (ref) =>
      Effect.sync((): Provider.ProviderCancelResult => {
        state.cancels++
        const held = byId(ref.providerPaymentId)
        if (held.status === "paid") return { _tag: "Succeeded" }
        held.status = "canceled"
        return { _tag: "Canceled" }
      }),
    refund: (r) =>
      Effect.sync((): Provider.ProviderRefundStatus => {
        refunds.set(r.refundId, { paymentId: r.payment.providerPaymentId, amount: r.amount })
        return { _tag: "Succeeded" }
      }),
    parseNotification: (request) =>
      Effect.succeed({
        notices: [JSON.parse(new TextDecoder().decode(request.body)) as ProviderNotification.ProviderNotice],
        answer: { status: 200, contentType: "text/plain", body: "ok" }
      })
  }
  /** The payer pays the payment the provider holds for intent `intentId` (its answer never reached Tender). */
  const pay = (intentId: string) => {
    const held = payments.get(intentId)!
    held.status = "paid"
    return held
  }
  return { provider, payments, refunds, state, pay }
}

const routes = [
  { id: "r_lossy", method: "th_promptpay", provider: "psp_lossy", environments: ["test" as const], priority: 0 },
  { id: "r_up", method: "th_promptpay", provider: "simulator", environments: ["test" as const], priority: 1 }
]

const createThroughLoss = Effect.gen(function*() {
  const who = yield* login(keys.demoTest)
  const principal = { ...who, merchant: { ...who.merchant, routes } }
  const r = yield* PaymentIntents.create({ principal, requestId: "req_t" }, yield* Effect.orDie(decodeParams(promptpay)))
  assert.strictEqual(r.status, 201, r.body)
  return json(r) as { id: string; amount: string }
})

const noticeOf = (intentId: string, providerPaymentId: string, amount: string): ProviderNotification.ProviderNotice => ({
  _tag: "PaymentSucceeded",
  eventId: `evt_${providerPaymentId}`,
  providerPaymentId,
  paymentIntentId: intentId,
  amount,
  currency: "THB",
  environment: "test"
})

const tell = (notice: ProviderNotification.ProviderNotice) =>
  ProviderNotifications.receive("psp_lossy", { headers: {}, body: new TextEncoder().encode(JSON.stringify(notice)) })

const stored = <A extends Table.StoredRecord>(table: Table.Table<A>, id: string) =>
  Effect.flatMap(Storage.Storage, (s) => s.get(table, scope, id)).pipe(Effect.map(Option.getOrThrow))

const refundsOf = (intentId: string) =>
  Effect.flatMap(Storage.Storage, (s) => s.list(Refund.table, { ...scope, where: { paymentIntentId: intentId }, limit: 100 }))

describe("lost provider answers (ProviderAttempt)", () => {
  it.effect("D10 a create whose answer was lost fails over only once the attempt is remembered; its cancel task cancels it at that provider", () => {
    const lossyPsp = lossy("psp_lossy")
    return Effect.gen(function*() {
      const intent = yield* createThroughLoss
      const held = lossyPsp.payments.get(intent.id)!
      assert.strictEqual(held.status, "open", "the provider acted on the create whose answer was lost")
      const attempt = yield* stored(ProviderAttempt.table, ProviderAttempt.idOf(intent.id, "psp_lossy", null))
      assert.strictEqual(attempt.state, "open")
      assert.strictEqual(attempt.idempotencyKey, intent.id)
      // The intent is the other provider's: one provider per intent.
      assert.strictEqual((yield* stored(PaymentIntent.table, intent.id)).providerCode, "simulator")
      lossyPsp.state.lose = false
      yield* work
      assert.strictEqual(held.status, "canceled")
      const done = yield* stored(ProviderAttempt.table, attempt.id)
      assert.deepInclude(done, { state: "canceled", providerPaymentId: held.id })
      assert.strictEqual(lossyPsp.state.creates, 2, "sent once more with the same key, to learn the payment")
      assert.lengthOf(yield* refundsOf(intent.id), 0)
    }).pipe(Effect.provide(layer({ providers: [lossyPsp.provider, Simulator.make()] })), Effect.provide(quiet))
  })

  it.effect("D10 a lost create's cancel task asks again with back-off while the provider still loses answers; it never gives the attempt up", () => {
    const lossyPsp = lossy("psp_lossy")
    return Effect.gen(function*() {
      const intent = yield* createThroughLoss
      yield* work
      const id = ProviderAttempt.idOf(intent.id, "psp_lossy", null)
      const tasks = yield* Effect.flatMap(Storage.Storage, (s) => s.list(Task.table, { ...scope, where: { resourceId: id }, limit: 10 }))
      assert.lengthOf(tasks, 1)
      assert.deepInclude(tasks[0]!, { kind: "provider_attempt.cancel", status: "pending", attempts: 1, lastError: "timed out" })
      assert.strictEqual((yield* stored(ProviderAttempt.table, id)).state, "open")
    }).pipe(Effect.provide(layer({ providers: [lossyPsp.provider, Simulator.make()] })), Effect.provide(quiet))
  })

  it.effect(
    "D10 paid anyway at the first provider: its signed notice is the intent's late payment, refunded there once with its events and D12 transactions, never unmatched",
    () => {
      const lossyPsp = lossy("psp_lossy")
      return Effect.gen(function*() {
        const intent = yield* createThroughLoss
        const held = lossyPsp.pay(intent.id)
        // Told twice, and the cancel task learns it too: one refund.
        yield* tell(noticeOf(intent.id, held.id, intent.amount))
        yield* tell({ ...noticeOf(intent.id, held.id, intent.amount), eventId: "evt_again" })
        lossyPsp.state.lose = false
        yield* work
        const notices = yield* Effect.forEach(
          [`evt_${held.id}`, "evt_again"],
          (eventId) =>
            Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, ProviderNotification.recordId("psp_lossy", eventId))).pipe(
              Effect.map(Option.getOrThrow)
            )
        )
        // The first applied is the late payment, the second finds it refunded already: neither is unmatched.
        assert.deepStrictEqual(notices.map((n) => n.status).sort(), ["applied", "unchanged"])
        assert.deepStrictEqual(notices.map((n) => n.resourceId), [intent.id, intent.id])
        const refunds = yield* refundsOf(intent.id)
        assert.lengthOf(refunds, 1)
        assert.deepInclude(refunds[0]!, { reason: "late_payment", status: "succeeded", providerCode: "psp_lossy", amount: intent.amount })
        assert.deepStrictEqual([...lossyPsp.refunds.values()], [{ paymentId: held.id, amount: intent.amount }])
        assert.deepStrictEqual(yield* events(refunds[0]!.id), ["refund.created", "refund.succeeded"])
        // The intent's own payment is untouched: still awaiting its payer at the other provider.
        const own = yield* stored(PaymentIntent.table, intent.id)
        assert.deepInclude(own, { status: "requires_action", amountRefunded: "0", refundsPending: "0" })
        assert.strictEqual((yield* stored(ProviderAttempt.table, ProviderAttempt.idOf(intent.id, "psp_lossy", null))).state, "paid")
        // D12: the money came in at that provider and went back out there.
        const txns = yield* Effect.flatMap(Storage.Storage, (s) => s.list(BalanceTransaction.table, { ...scope, limit: 100 }))
        const mine = txns.filter((t) => t.source === intent.id || t.source === refunds[0]!.id)
        assert.deepStrictEqual(mine.map((t) => [t.type, t.amount]).sort(), [["payment", intent.amount], ["refund", `-${intent.amount}`]])
        assert.isTrue(mine.every((t) => t.postings.some((p) => p.account === "provider:psp_lossy")))
      }).pipe(Effect.provide(layer({ providers: [lossyPsp.provider, Simulator.make()] })), Effect.provide(quiet))
    }
  )

  it.effect("D10 paid before its cancel: the cancel's answer is the late payment, refunded at that provider once", () => {
    const lossyPsp = lossy("psp_lossy")
    return Effect.gen(function*() {
      const intent = yield* createThroughLoss
      const held = lossyPsp.pay(intent.id)
      lossyPsp.state.lose = false
      yield* work
      assert.strictEqual(lossyPsp.state.cancels, 1)
      const refunds = yield* refundsOf(intent.id)
      assert.lengthOf(refunds, 1)
      assert.deepInclude(refunds[0]!, { reason: "late_payment", status: "succeeded", providerCode: "psp_lossy" })
      assert.deepStrictEqual([...lossyPsp.refunds.values()], [{ paymentId: held.id, amount: intent.amount }])
      // Its notice, later: the same payment, refunded already.
      yield* tell(noticeOf(intent.id, held.id, intent.amount))
      yield* work
      assert.lengthOf(yield* refundsOf(intent.id), 1)
    }).pipe(Effect.provide(layer({ providers: [lossyPsp.provider, Simulator.make()] })), Effect.provide(quiet))
  })

  it.effect("4.1 a failure before the request was sent (a refused connection) fails over without remembering anything", () => {
    const refused = {
      ...Simulator.make(),
      code: "psp_lossy",
      createPayment: () => Effect.fail(new Provider.ProviderUnavailable({ provider: "psp_lossy", reason: "ECONNREFUSED", ambiguous: false }))
    }
    return Effect.gen(function*() {
      const intent = yield* createThroughLoss
      const found = yield* Effect.flatMap(Storage.Storage, (s) => s.find(ProviderAttempt.table, ProviderAttempt.idOf(intent.id, "psp_lossy", null)))
      assert.isTrue(Option.isNone(found))
    }).pipe(Effect.provide(layer({ providers: [refused, Simulator.make()] })), Effect.provide(quiet))
  })

  it("4.1 neverSent tells a refused connection (wrapped as SDKs wrap it) from a timeout or a reset", () => {
    const refused = Object.assign(new Error("connect"), { code: "ECONNREFUSED" })
    assert.isTrue(ProviderKit.neverSent({ detail: refused }))
    assert.isTrue(ProviderKit.neverSent(new Error("fetch failed", { cause: Object.assign(new Error("dns"), { code: "ENOTFOUND" }) })))
    assert.isFalse(ProviderKit.neverSent(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })))
    assert.isFalse(ProviderKit.neverSent(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })))
    assert.isFalse(ProviderKit.neverSent("unknown"))
  })

  it.effect("D8 a payout whose answer is lost is sent again with the same key: the provider pays once, and it succeeds once", () => {
    const sim = Simulator.make()
    const sent: Array<string> = []
    const paid = new Set<string>()
    const lossyPayouts: Provider.PaymentProvider = {
      ...sim,
      sendPayout: (payout) =>
        Effect.suspend(() => {
          sent.push(payout.payoutIntentId)
          // The provider pays once per key, whatever it answers.
          const first = !paid.has(payout.payoutIntentId)
          paid.add(payout.payoutIntentId)
          return first
            ? Effect.fail(new Provider.ProviderUnavailable({ provider: sim.code, reason: "socket hang up" }))
            : Effect.succeed<Provider.ProviderPaymentStatus>({ _tag: "Succeeded" })
        })
    }
    return Effect.gen(function*() {
      const payout = json(yield* fundedPayout("payout-lost-answer")) as { id: string }
      assert.strictEqual(yield* PayoutIntents.approve(scope, payout.id), "approved")
      yield* work
      assert.strictEqual((yield* stored(PayoutIntent.table, payout.id)).status, "processing")
      yield* TestClock.adjust("2 seconds")
      yield* work
      assert.strictEqual((yield* stored(PayoutIntent.table, payout.id)).status, "succeeded")
      assert.deepStrictEqual(sent, [payout.id, payout.id])
      assert.strictEqual(paid.size, 1)
      // One terminal state: its task is done, nothing sends it again later.
      yield* TestClock.adjust("1 hour")
      yield* work
      assert.deepStrictEqual(sent, [payout.id, payout.id])
      assert.deepStrictEqual(yield* events(payout.id), ["payout_intent.created", "payout_intent.processing", "payout_intent.succeeded"])
    }).pipe(Effect.provide(layer({ providers: [lossyPayouts] })), Effect.provide(quiet))
  })
})
