import { assert, describe, it } from "@effect/vitest"
import { png } from "@tender/repo-test-support"
import { Effect, Layer, Schema, TestClock } from "effect"
import type { Provider } from "../src/index.js"
import { MemoryStorage, PaymentIntent, PaymentIntentCancel, PaymentIntents, Receipts, Refund, Refunds, Simulator, Storage, Task } from "../src/index.js"
import { asDemo, errorOf, events, json, type Key, keys, layer, login, work } from "./fixtures.js"

const promptpay = (amount = "150000") => ({
  amount,
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant" as const,
  payment_method: "th_promptpay",
  customer: { name: "Somchai Jaidee" }
})

const createIntent = (amount = "150000") =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpay(amount)))
    const r = yield* PaymentIntents.create({ principal, requestId: "req_pi" }, params)
    assert.strictEqual(r.status, 201, r.body)
    return json(r) as { id: string }
  })

/** A PNG the simulator accepts as any receipt. */
/** A payment intent the simulator paid: confirmed, or a bank transfer whose receipt it accepted. */
const paid = (amount = "150000", method: "th_promptpay" | "th_bank_transfer" = "th_promptpay") =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const body = method === "th_promptpay" ? promptpay(amount) : {
      ...promptpay(amount),
      payment_method: "th_bank_transfer",
      payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" }
    }
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(body))
    const intent = json(yield* PaymentIntents.create({ principal, requestId: "req_pi" }, params)) as { id: string }
    if (method === "th_promptpay") yield* PaymentIntents.confirm({ principal, requestId: "req_c" }, intent.id)
    else yield* Receipts.submit({ principal, requestId: "req_rc", idempotencyKey: crypto.randomUUID() }, intent.id, { _tag: "File", bytes: png() })
    yield* work
    assert.strictEqual((yield* PaymentIntents.retrieve(principal, intent.id)).status, "succeeded")
    return intent.id
  })

const refund = (body: Record<string, unknown>, key: Key = keys.demoTest, idempotencyKey?: string) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(Schema.decodeUnknown(Refund.CreateParams)(body))
    return yield* Refunds.create({ principal, requestId: "req_r", idempotencyKey }, params)
  })
const cancel = (id: string, body: Record<string, unknown> = {}, key: Key = keys.demoTest) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntentCancel.CancelParams)(body))
    return yield* PaymentIntentCancel.cancel({ principal, requestId: "req_x" }, id, params)
  })
const getIntent = asDemo(PaymentIntents.retrieve)
const getRefund = (id: string) => Effect.flatMap(login(keys.demoTest), (p) => Refunds.retrieve(p, id))
const listRefunds = (params: Refunds.ListParams) => Effect.flatMap(login(keys.demoTest), (p) => Refunds.list(p, params))

/** The simulator, counting the calls an adapter receives. */
const counting = () => {
  const sim = Simulator.make()
  const calls = { cancel: [] as Array<string>, refund: [] as Array<string> }
  const provider: Provider.PaymentProvider = {
    ...sim,
    cancelPayment: (p) => Effect.zipRight(Effect.sync(() => calls.cancel.push(p.paymentIntentId)), sim.cancelPayment!(p)),
    refund: (r) => Effect.zipRight(Effect.sync(() => calls.refund.push(r.refundId)), sim.refund!(r))
  }
  return { provider, calls }
}

describe("cancel (D10)", () => {
  it.effect("D10 cancel: 200 canceled, next_action null, cancellation_reason set, payment_intent.canceled; every intent carries cancellation_reason and amount_refunded", () =>
    Effect.gen(function*() {
      const intent = yield* createIntent()
      const before = yield* getIntent(intent.id)
      assert.strictEqual(before.cancellation_reason, null)
      assert.strictEqual(before.amount_refunded, "0")
      const r = yield* cancel(intent.id, { cancellation_reason: "abandoned" })
      assert.strictEqual(r.status, 200, r.body)
      const canceled = json(r)
      assert.strictEqual(canceled.status, "canceled")
      assert.strictEqual(canceled.next_action, null)
      assert.strictEqual(canceled.cancellation_reason, "abandoned")
      assert.deepStrictEqual(yield* getIntent(intent.id), canceled)
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.canceled"])
      assert.isTrue(PaymentIntent.isTerminal("canceled"))
    }).pipe(Effect.provide(layer())))

  it.effect("D10 cancel only from requires_action: any other status is 409 payment_intent_unexpected_state; unknown or another merchant's id is 404", () =>
    Effect.gen(function*() {
      const succeeded = yield* paid()
      const r = yield* cancel(succeeded)
      assert.strictEqual(r.status, 409)
      assert.strictEqual(errorOf(r).code, "payment_intent_unexpected_state")
      const intent = yield* createIntent()
      assert.strictEqual((yield* cancel(intent.id)).status, 200)
      assert.strictEqual(errorOf(yield* cancel(intent.id)).code, "payment_intent_unexpected_state")
      assert.strictEqual(errorOf(yield* cancel(intent.id, {}, keys.otherTest)).code, "resource_not_found")
      assert.strictEqual(errorOf(yield* cancel("dord_" + "x".repeat(24))).code, "resource_not_found")
    }).pipe(Effect.provide(layer())))

  it.effect("D10 the provider is told durably: a task calls its cancel once the intent is canceled, and a pending confirm no longer pays it", () => {
    const { calls, provider } = counting()
    return Effect.gen(function*() {
      const intent = yield* createIntent()
      const principal = yield* login(keys.demoTest)
      yield* PaymentIntents.confirm({ principal, requestId: "req_c" }, intent.id)
      yield* cancel(intent.id)
      assert.deepStrictEqual(calls.cancel, [])
      yield* work
      assert.deepStrictEqual(calls.cancel, [intent.id])
      assert.strictEqual((yield* getIntent(intent.id)).status, "canceled")
    }).pipe(Effect.provide(layer({ providers: [provider] })))
  })

  it.effect(`D10 a payment the provider reports after the cancel (magic amount ${Simulator.magicAmounts.paidAfterCancel}) is never lost: the intent stays canceled and a late_payment refund gives it back`, () =>
    Effect.gen(function*() {
      const intent = yield* createIntent(Simulator.magicAmounts.paidAfterCancel)
      yield* cancel(intent.id)
      yield* work
      const after = yield* getIntent(intent.id)
      assert.strictEqual(after.status, "canceled")
      const refunds = yield* listRefunds({ payment_intent: intent.id })
      assert.lengthOf(refunds.data, 1)
      const late = refunds.data[0]!
      assert.strictEqual(late.reason, "late_payment")
      assert.strictEqual(late.amount, Simulator.magicAmounts.paidAfterCancel)
      assert.strictEqual(late.status, "succeeded")
      assert.strictEqual(after.amount_refunded, Simulator.magicAmounts.paidAfterCancel)
      assert.deepStrictEqual(yield* events(late.id), ["refund.created", "refund.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect("D10 Idempotency-Key is optional on cancel; retried with the same key it replays its 200", () =>
    Effect.gen(function*() {
      const intent = yield* createIntent()
      const principal = yield* login(keys.demoTest)
      const once = (key: string) => PaymentIntentCancel.cancel({ principal, requestId: "req_k", idempotencyKey: key }, intent.id, {})
      const first = yield* once("cancel-key-1")
      const again = yield* once("cancel-key-1")
      assert.strictEqual(first.status, 200)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.body, first.body)
      assert.strictEqual((yield* once("cancel-key-2")).status, 409)
    }).pipe(Effect.provide(layer())))
})

describe("refunds (D10)", () => {
  it.effect("D10 create: 201 pending with the D10 object and refund.created; the task refunds it at the provider and amount_refunded counts it", () =>
    Effect.gen(function*() {
      const id = yield* paid()
      const r = yield* refund({ payment_intent: id, amount: "50000", reason: "requested_by_customer", metadata: { order: "1042" } })
      assert.strictEqual(r.status, 201, r.body)
      const created = json(r)
      assert.deepStrictEqual(Object.keys(created).sort(), [
        "amount",
        "created_at",
        "currency",
        "destination",
        "environment",
        "failure_code",
        "failure_message",
        "id",
        "merchant_reference",
        "metadata",
        "object",
        "payment_intent",
        "reason",
        "status",
        "updated_at"
      ])
      assert.match(created.id, /^rfnd_[0-9A-Za-z]{24}$/)
      assert.strictEqual(created.object, "refund")
      assert.strictEqual(created.status, "pending")
      assert.strictEqual(created.currency, "THB")
      assert.strictEqual((yield* getIntent(id)).amount_refunded, "0")
      yield* work
      const done = yield* getRefund(created.id)
      assert.strictEqual(done.status, "succeeded")
      assert.strictEqual((yield* getIntent(id)).amount_refunded, "50000")
      assert.deepStrictEqual(yield* events(created.id), ["refund.created", "refund.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect("D10 amount defaults to what is still refundable; a refund that would pass it is 409 amount_exceeds_refundable", () =>
    Effect.gen(function*() {
      const id = yield* paid()
      assert.strictEqual((yield* refund({ payment_intent: id, amount: "100000" })).status, 201)
      const over = yield* refund({ payment_intent: id, amount: "50001" })
      assert.strictEqual(over.status, 409)
      assert.deepStrictEqual(errorOf(over), { ...errorOf(over), code: "amount_exceeds_refundable", param: "amount" })
      const rest = json(yield* refund({ payment_intent: id }))
      assert.strictEqual(rest.amount, "50000")
      assert.strictEqual(errorOf(yield* refund({ payment_intent: id })).code, "amount_exceeds_refundable")
      yield* work
      assert.strictEqual((yield* getIntent(id)).amount_refunded, "150000")
    }).pipe(Effect.provide(layer())))

  it.effect(`D10 a failed refund (magic amount ${Simulator.magicAmounts.refundFails}) gives its amount back to what is refundable`, () =>
    Effect.gen(function*() {
      const id = yield* paid()
      const failing = json(yield* refund({ payment_intent: id, amount: Simulator.magicAmounts.refundFails }))
      yield* work
      const failed = yield* getRefund(failing.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.failure_code, "refund_failed")
      assert.deepStrictEqual(yield* events(failing.id), ["refund.created", "refund.failed"])
      assert.strictEqual((yield* getIntent(id)).amount_refunded, "0")
      assert.strictEqual(json(yield* refund({ payment_intent: id })).amount, "150000")
    }).pipe(Effect.provide(layer())))

  it.effect(`D10 a slow refund (magic amount ${Simulator.magicAmounts.slowRefund}) stays pending until the provider settles it`, () =>
    Effect.gen(function*() {
      const id = yield* paid()
      const slow = json(yield* refund({ payment_intent: id, amount: Simulator.magicAmounts.slowRefund }))
      yield* work
      assert.strictEqual((yield* getRefund(slow.id)).status, "pending")
      yield* TestClock.adjust(Simulator.slowRefundMillis)
      yield* work
      yield* TestClock.adjust("10 seconds")
      yield* work
      assert.strictEqual((yield* getRefund(slow.id)).status, "succeeded")
      assert.strictEqual((yield* getIntent(id)).amount_refunded, Simulator.magicAmounts.slowRefund)
    }).pipe(Effect.provide(layer())))

  it.effect("D10 only a succeeded payment intent can be refunded (409 payment_intent_unexpected_state); unknown or another merchant's is 404", () =>
    Effect.gen(function*() {
      const pending = yield* createIntent()
      assert.strictEqual(errorOf(yield* refund({ payment_intent: pending.id })).code, "payment_intent_unexpected_state")
      const id = yield* paid()
      const other = yield* refund({ payment_intent: id }, keys.otherTest)
      assert.deepStrictEqual([other.status, errorOf(other).code], [404, "resource_not_found"])
      assert.strictEqual(errorOf(yield* refund({ payment_intent: "dord_" + "y".repeat(24) })).code, "resource_not_found")
    }).pipe(Effect.provide(layer())))

  it.effect("D10 an optional destination may name any bank discovery lists, not only the banks of the method paid with (a PromptPay payment lists none)", () =>
    Effect.gen(function*() {
      const id = yield* paid()
      for (const bank of ["KBANK", "BBL", "SCB"]) {
        const r = yield* refund({
          payment_intent: id,
          amount: "1",
          destination: { type: "bank_account", bank, account_number: "1234567890", account_name: "S" }
        })
        assert.strictEqual(r.status, 201, `${bank}: ${r.body}`)
      }
      const unknown = yield* refund({
        payment_intent: id,
        amount: "1",
        destination: { type: "bank_account", bank: "NOPE", account_number: "1234567890", account_name: "S" }
      })
      assert.deepStrictEqual([unknown.status, errorOf(unknown).param], [400, "destination.bank"])
      assert.match(errorOf(unknown).message, /Unknown bank "NOPE"/)
    }).pipe(Effect.provide(layer())))

  it.effect("D10 destination is required where the method cannot be refunded to its source (400 param destination), and shown masked", () =>
    Effect.gen(function*() {
      const id = yield* paid("150000", "th_bank_transfer")
      const without = yield* refund({ payment_intent: id })
      assert.deepStrictEqual([without.status, errorOf(without).code, errorOf(without).param], [400, "validation_failed", "destination"])
      const destination = { type: "bank_account", bank: "SCB", account_number: "0123456789", account_name: "Somchai Jaidee" }
      const unknownBank = yield* refund({ payment_intent: id, destination: { ...destination, bank: "NOPE" } })
      assert.deepStrictEqual([unknownBank.status, errorOf(unknownBank).param], [400, "destination.bank"])
      const r = yield* refund({ payment_intent: id, destination })
      assert.strictEqual(r.status, 201, r.body)
      assert.deepStrictEqual(json(r).destination, { ...destination, account_number: "******6789" })
      assert.notInclude(r.body, "0123456789")
      yield* work
      assert.strictEqual((yield* getRefund(json(r).id)).status, "succeeded")
    }).pipe(Effect.provide(layer())))

  it.effect("D10 live keys never reach the simulator: its refund and cancel refuse a live payment", () =>
    Effect.gen(function*() {
      const sim = Simulator.make()
      const payment = {
        paymentIntentId: "dord_" + "a".repeat(24),
        providerPaymentId: "sim_1",
        environment: "live" as const,
        amount: "150000",
        currency: "THB",
        createdAt: 0
      }
      const refunded = yield* Effect.flip(sim.refund!({ refundId: "rfnd_" + "a".repeat(24), payment, amount: "1000", destination: null, createdAt: 0 }))
      assert.strictEqual(refunded._tag, "ProviderUnavailable")
      assert.strictEqual((yield* Effect.flip(sim.cancelPayment!(payment)))._tag, "ProviderUnavailable")
    }))

  it.effect("D10 a provider that cannot refund the method answers 422 refund_not_supported, and nothing is reserved", () =>
    Effect.gen(function*() {
      const id = yield* paid()
      const r = yield* refund({ payment_intent: id })
      assert.deepStrictEqual([r.status, errorOf(r).code], [422, "refund_not_supported"])
      assert.lengthOf((yield* listRefunds({ payment_intent: id })).data, 0)
    }).pipe(Effect.provide(layer({ providers: [{ ...Simulator.make(), refund: undefined }] }))))

  it.effect("D10 merchant_reference: the same reference and fields return the original refund (200); a changed field is 409 idempotency_conflict", () =>
    Effect.gen(function*() {
      const id = yield* paid()
      const body = { payment_intent: id, amount: "1000", merchant_reference: "refund-1" }
      const first = yield* refund(body)
      assert.strictEqual(first.status, 201)
      const again = yield* refund(body)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(json(again).id, json(first).id)
      const changed = yield* refund({ ...body, amount: "1001" })
      assert.deepStrictEqual([changed.status, errorOf(changed).code, errorOf(changed).param], [409, "idempotency_conflict", "merchant_reference"])
      assert.lengthOf((yield* listRefunds({ merchant_reference: "refund-1" })).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("D10 concurrent refunds never add up to more than the payment: exactly the amount is reserved, the rest are 409 amount_exceeds_refundable", () => {
    // A store whose commits take a turn, as a database round trip does, so the racers all read
    // the payment before any of them commits; its task queue is the same store's.
    const memory = MemoryStorage.make()
    const slow = Layer.succeed(Storage.Storage, { ...memory, commit: (writes) => Effect.zipRight(Effect.yieldNow(), memory.commit(writes)) })
    return Effect.gen(function*() {
      const id = yield* paid("150000")
      const answers = yield* Effect.all(Array.from({ length: 24 }, () => refund({ payment_intent: id, amount: "10000" })), { concurrency: "unbounded" })
      const statuses = answers.map((a) => a.status)
      assert.strictEqual(statuses.filter((s) => s === 201).length, 15, JSON.stringify(statuses))
      assert.strictEqual(statuses.filter((s) => s === 409).length, 9)
      yield* work
      assert.strictEqual((yield* getIntent(id)).amount_refunded, "150000")
    }).pipe(Effect.provideService(Task.Tasks, memory.tasks), Effect.provide(layer({ storage: slow })))
  })

  it.effect("D10 list: the D6 envelope, filters payment_intent, status and merchant_reference, newest first", () =>
    Effect.gen(function*() {
      const a = yield* paid()
      const b = yield* paid()
      const r1 = json(yield* refund({ payment_intent: a, amount: "1000" }))
      yield* TestClock.adjust(1)
      const r2 = json(yield* refund({ payment_intent: a, amount: Simulator.magicAmounts.refundFails }))
      yield* TestClock.adjust(1)
      const r3 = json(yield* refund({ payment_intent: b, amount: "1000", merchant_reference: "ref-b" }))
      yield* work
      const ids = (page: { data: ReadonlyArray<{ id: string }> }) => page.data.map((r) => r.id)
      assert.deepStrictEqual(ids(yield* listRefunds({ payment_intent: a })), [r2.id, r1.id])
      assert.deepStrictEqual(ids(yield* listRefunds({ status: "failed" })), [r2.id])
      assert.deepStrictEqual(ids(yield* listRefunds({ merchant_reference: "ref-b" })), [r3.id])
      assert.deepStrictEqual(ids(yield* listRefunds({ created_after: r2.created_at, created_before: r3.created_at })), [r2.id])
      const first = yield* listRefunds({ limit: "2" })
      assert.deepStrictEqual(ids(first), [r3.id, r2.id])
      assert.deepStrictEqual(ids(yield* listRefunds({ limit: "2", cursor: first.next_cursor! })), [r1.id])
    }).pipe(Effect.provide(layer())))

  it("D10 late_payment is Tender's own reason: a merchant cannot send it", () => {
    const decoded = Schema.decodeUnknownEither(Refund.CreateParams)({ payment_intent: "dord_" + "a".repeat(24), reason: "late_payment" })
    assert.isTrue(decoded._tag === "Left")
  })
})
