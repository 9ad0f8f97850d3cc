import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option, TestClock } from "effect"
import { parse } from "promptparse"
import { HostedPayment, PaymentIntent, PaymentIntents, ProviderNotification, Simulator, SimulatorPayer, Storage } from "../src/index.js"
import { type Body, decodeParams, events, json, keys, layer, login, work } from "./fixtures.js"

const create = (body: Body, key = keys.demoTest) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(decodeParams({ amount: "150000", currency: "THB", country: "TH", customer: {}, ...body }))
    return yield* PaymentIntents.create({ principal, requestId: "req_test" }, params)
  })

const hosted = (body: Body = {}) =>
  Effect.gen(function*() {
    const r = yield* create(body)
    assert.strictEqual(r.status, 201, r.body)
    return Option.getOrThrow(yield* HostedPayment.load(json(r).id))
  })

describe("hosted payment: the payer's side of a hosted intent (4.1.1, 4.1.2, D7, D9)", () => {
  it.effect("4.1.1 paying on the page freezes the payer's choice in one versioned change, with payment_intent.requires_action (D7)", () =>
    Effect.gen(function*() {
      const intent = yield* hosted()
      assert.isNull(intent.paymentMethod)
      const methods = yield* HostedPayment.methodsFor(yield* HostedPayment.principalOf(intent), intent)
      assert.deepStrictEqual(methods.map((m) => m.code), ["th_promptpay", "th_bank_transfer", "th_online_banking"])
      const paid = yield* HostedPayment.pay(intent, "th_promptpay", { customer_name: "Somchai Jaidee" })
      assert.strictEqual(paid.version, intent.version + 1)
      assert.strictEqual(paid.paymentMethod, "th_promptpay")
      assert.strictEqual(paid.customer.name, "Somchai Jaidee")
      assert.strictEqual(paid.providerCode, "simulator")
      assert.strictEqual(paid.hostedAction?.type, "display_qr_code")
      // 2.3: the merchant still sees the page's redirect_to_url; the provider's action stays inside the page.
      assert.deepStrictEqual(paid.nextAction, intent.nextAction)
      const stored = Option.getOrThrow(yield* HostedPayment.reload(intent))
      assert.deepStrictEqual(stored, paid)
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.requires_action"])
      // Frozen: the page cannot choose again.
      const again = yield* Effect.either(HostedPayment.pay(paid, "th_bank_transfer", {}))
      assert.isTrue(Either.isLeft(again) && again.left._tag === "PaymentIntentUnexpectedState")
    }).pipe(Effect.provide(layer())))

  it.effect("7 the route's payer fields are checked as a merchant-mode create checks them: same params, same messages", () =>
    Effect.gen(function*() {
      const intent = yield* hosted()
      const onPage = yield* Effect.flip(HostedPayment.pay(intent, "th_bank_transfer", { bank: "KBANK" }))
      const viaApi = yield* create({ checkout_mode: "merchant", payment_method: "th_bank_transfer", payment_method_options: { bank: "KBANK" } })
      assert.strictEqual(viaApi.status, 400)
      assert.strictEqual(onPage._tag, "ValidationFailed")
      assert.deepStrictEqual((onPage as { details?: unknown }).details, json(viaApi).error.details)
      const unknownBank = yield* Effect.flip(HostedPayment.pay(intent, "th_online_banking", { bank: "NOPE", customer_phone: "+66812345678" }))
      assert.deepInclude(unknownBank, { param: "payment_method_options.bank" })
      // Nothing was written: the intent awaits its payer as before.
      assert.deepStrictEqual(Option.getOrThrow(yield* HostedPayment.reload(intent)), intent)
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.2 a method given at create is the only one the page takes", () =>
    Effect.gen(function*() {
      const intent = yield* hosted({ payment_method: "th_promptpay" })
      const methods = yield* HostedPayment.methodsFor(yield* HostedPayment.principalOf(intent), intent)
      assert.deepStrictEqual(methods.map((m) => m.code), ["th_promptpay"])
      const other = yield* Effect.flip(HostedPayment.pay(intent, "th_bank_transfer", {}))
      assert.deepInclude(other, { param: "payment_method" })
      const paid = yield* HostedPayment.pay(intent, "th_promptpay", {})
      assert.strictEqual(paid.hostedAction?.type, "display_qr_code")
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 two payers racing on one intent (two tabs) leave exactly one frozen choice and one event", () =>
    Effect.gen(function*() {
      const intent = yield* hosted()
      const [a, b] = yield* Effect.all([
        HostedPayment.pay(intent, "th_promptpay", {}),
        HostedPayment.pay(intent, "th_online_banking", { bank: "SCB", customer_phone: "+66812345678" })
      ], { concurrency: 2 })
      const stored = Option.getOrThrow(yield* HostedPayment.reload(intent))
      assert.strictEqual(stored.version, intent.version + 1)
      assert.deepStrictEqual(a, stored)
      assert.deepStrictEqual(b, stored)
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.requires_action"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.1 a hosted intent expires when its payer action at the provider expires, before its link does", () =>
    Effect.gen(function*() {
      const intent = yield* hosted({ amount: Simulator.magicAmounts.expireSoon })
      const paid = yield* HostedPayment.pay(intent, "th_promptpay", {})
      assert.strictEqual(paid.status, "requires_action")
      yield* TestClock.adjust(Simulator.shortExpiryMillis + 1)
      yield* work
      const expired = Option.getOrThrow(yield* HostedPayment.reload(intent))
      assert.strictEqual(expired.status, "expired")
      assert.isNull(expired.hostedAction)
      assert.isNull(expired.nextAction)
    }).pipe(Effect.provide(layer())))

  it.effect("D9 a provider decline at pay fails the intent at once (magic amount 40001)", () =>
    Effect.gen(function*() {
      const intent = yield* hosted({ amount: Simulator.magicAmounts.declineOnCreate })
      const paid = yield* HostedPayment.pay(intent, "th_promptpay", {})
      assert.strictEqual(paid.status, "failed")
      assert.strictEqual(paid.failureCode, "payment_declined")
      assert.isNull(paid.nextAction)
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.failed"])
    }).pipe(Effect.provide(layer())))

  it.effect("D9 D11 the simulated payer: a scan and a bank's answer reach Tender as the simulator's signed notifications, a transfer uploads a slip; test environment only", () =>
    Effect.gen(function*() {
      const qr = yield* HostedPayment.pay(yield* hosted(), "th_promptpay", {})
      assert.deepStrictEqual(SimulatorPayer.actionsFor(qr), ["scan_done"])
      assert.deepStrictEqual(SimulatorPayer.actionsFor({ ...qr, environment: "live" }), [])
      assert.isTrue(yield* SimulatorPayer.act(qr, "scan_done"))
      // Stored as the provider's notification, and applied by its task.
      const notice = yield* Effect.flatMap(
        Storage.Storage,
        (s) => s.find(ProviderNotification.table, ProviderNotification.recordId(Simulator.code, `evt_payer_${qr.id}_scan_done`))
      )
      assert.strictEqual(Option.getOrThrow(notice).status, "received")
      assert.strictEqual(Option.getOrThrow(yield* HostedPayment.reload(qr)).status, "requires_action")
      yield* work
      assert.strictEqual(Option.getOrThrow(yield* HostedPayment.reload(qr)).status, "succeeded")

      const transfer = yield* HostedPayment.pay(yield* hosted(), "th_bank_transfer", {
        customer_name: "Somchai Jaidee",
        account_name: "Somchai Jaidee",
        name_th: "สมชาย ใจดี",
        bank: "KBANK"
      })
      assert.deepStrictEqual(SimulatorPayer.actionsFor(transfer), ["transfer_made"])
      assert.isFalse(yield* SimulatorPayer.act(transfer, "scan_done"))
      assert.isTrue(yield* SimulatorPayer.act(transfer, "transfer_made"))
      yield* work
      const settled = Option.getOrThrow(yield* HostedPayment.reload(transfer))
      assert.strictEqual(settled.status, "succeeded")
      assert.strictEqual(settled.receipt?.status, "accepted")

      const bank = yield* HostedPayment.pay(yield* hosted(), "th_online_banking", { bank: "SCB", customer_phone: "+66812345678" })
      assert.deepStrictEqual(SimulatorPayer.actionsFor(bank), ["bank_approved", "bank_declined"])
      assert.isTrue(yield* SimulatorPayer.act(bank, "bank_declined"))
      // The decline is the simulator's signed notification, stored and applied by its task (D11).
      assert.strictEqual(Option.getOrThrow(yield* HostedPayment.reload(bank)).status, "requires_action")
      yield* work
      const declined = Option.getOrThrow(yield* HostedPayment.reload(bank))
      assert.strictEqual(declined.status, "failed")
      assert.strictEqual(declined.failureCode, "payment_declined")
      assert.deepStrictEqual(SimulatorPayer.actionsFor(declined), [])
    }).pipe(Effect.provide(layer())))

  it.effect("2.3 the PromptPay QR payload is an EMVCo payload an independent parser (promptparse) accepts: CRC, PromptPay AID, THB amount", () =>
    Effect.gen(function*() {
      const paid = yield* HostedPayment.pay(yield* hosted({ amount: "123456" }), "th_promptpay", {})
      const data = paid.hostedAction?.type === "display_qr_code" ? paid.hostedAction.qr_data : undefined
      const qr = parse(data!, true)
      assert.isNotNull(qr, data)
      assert.isTrue(qr!.validate("63"))
      assert.strictEqual(qr!.getTagValue("29", "00"), "A000000677010111")
      assert.strictEqual(qr!.getTagValue("53"), "764")
      assert.strictEqual(qr!.getTagValue("54"), "1234.56")
      assert.strictEqual(qr!.getTagValue("58"), "TH")
    }).pipe(Effect.provide(layer())))

  it.effect("a merchant-mode intent is not a hosted one: the page never loads it", () =>
    Effect.gen(function*() {
      const r = yield* create({ checkout_mode: "merchant", payment_method: "th_promptpay" })
      assert.isTrue(Option.isNone(yield* HostedPayment.load(json(r).id)))
      assert.isTrue(Option.isSome(yield* Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, json(r).id))))
    }).pipe(Effect.provide(layer())))
})
