/**
 * The provider port for any region: payer data by method family, declared wholly by an adapter
 * (a Pix-like family with a tax id Tender has never heard of), and capabilities per method (a
 * provider that only tells by notification is never polled, cannot be confirmed, takes no receipt).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import {
  Discovery,
  Event,
  HostedPayment,
  PaymentIntent,
  PaymentIntentLifecycle,
  PaymentIntents,
  Provider,
  Simulator,
  Storage,
  Task,
  Tender,
  Workers
} from "../src/index.js"
import { checkoutOptions, errorOf, json, keys, layer, login } from "./fixtures.js"
import { createAs, promptpay, recording } from "./paymentIntentHelpers.js"
import { pix, pixKey, pixMethod, pixSeed, pixy } from "./pixy.js"

const isTask = (w: Storage.Write) => w._tag === "Insert" && w.table === Task.table

const asPixMerchant = Effect.map(login(keys.demoTest), (base) => ({
  ...base,
  merchant: { ...base.merchant, routes: [{ id: "r_pix", method: "br_pix", provider: "pixy", environments: ["test" as const], priority: 0 }] }
}))

describe("provider port: payer families and capabilities", () => {
  it.effect("2.2 2.4 a payer family declared wholly by an adapter: discovery shows its field, create carries it to the provider, a bad value or a foreign field is 400", () => {
    const p = pixy()
    return Effect.gen(function*() {
      const who = yield* asPixMerchant
      const found = yield* Discovery.discover(who, { amount: "5000", country: "BR", currency: "BRL", checkout_mode: "merchant" })
      assert.deepStrictEqual(found.methods[0]?.options.payer, { customer_name: { required: true }, tax_id: { required: true } })
      const ok = yield* createAs(who, { ...pix, payment_method_options: { tax_id: "12345678901" } })
      assert.strictEqual(ok.status, 201, ok.body)
      assert.deepStrictEqual(p.calls[0]?.payer, { family: "br_pix_payer", fields: { customer_name: "João Silva", tax_id: "12345678901" } })
      const missing = yield* createAs(who, pix)
      assert.deepInclude(errorOf(missing), { code: "validation_failed", param: "payment_method_options.tax_id" })
      const bad = yield* createAs(who, { ...pix, payment_method_options: { tax_id: "12ab" } })
      assert.deepInclude(errorOf(bad), { code: "validation_failed", param: "payment_method_options.tax_id" })
      assert.include(errorOf(bad).message, "must be a CPF of 11 digits")
      const foreign = yield* createAs(who, { ...pix, payment_method_options: { tax_id: "12345678901", upi_vpa: "x@bank" } })
      assert.deepInclude(errorOf(foreign), { code: "validation_failed", param: "payment_method_options.upi_vpa" })
      assert.lengthOf(p.calls, 1, "a refused create reached the provider")
    }).pipe(Effect.provide(layer({ providers: [Simulator.make(), p.provider] })))
  })

  it("a method asking for a payer field its family does not declare is a configuration error", () => {
    const bad = { ...pixMethod, payer: { ...pixMethod.payer, name_th: { required: false } } }
    assert.throws(() => Effect.runSync(Effect.provide(Provider.ProviderRegistry, Provider.layerRegistry([{ ...pixy().provider, methods: [bad] }]))), /name_th/)
  })

  it.effect("4.5 D11 a method that cannot be polled gets no poll after a processing answer, and its confirm is 409 payment_intent_unexpected_state", () => {
    const p = pixy()
    return Effect.gen(function*() {
      const who = yield* asPixMerchant
      const r = yield* createAs(who, { ...pix, payment_method_options: { tax_id: "12345678901" } })
      const intent = yield* Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, json(r).id))
      assert.strictEqual(json(r).status, "processing")
      const record = intent._tag === "Some" ? intent.value : assert.fail("not stored")
      // Every source's follow-up poll is withheld: processing from a poll or a notification alike.
      for (const source of [{ _tag: "notification" } as const, { _tag: "poll", attempts: 1 } as const, { _tag: "confirm" } as const]) {
        const applied = yield* PaymentIntentLifecycle.applyUpdate(record, { _tag: "Processing" }, source, 0)
        assert.isFalse(applied.writes.some(isTask), `${source._tag} scheduled a poll of a method that cannot be polled`)
      }
      const confirm = yield* PaymentIntents.confirm({ principal: who, requestId: "req_confirm" }, json(r).id)
      assert.deepInclude(errorOf(confirm), { code: "payment_intent_unexpected_state" })
      assert.lengthOf(p.polls, 0)
    }).pipe(Effect.provide(layer({ providers: [Simulator.make(), p.provider] })))
  })

  it.effect("D11 a method that can be polled still gets its follow-up poll after a processing answer", () => {
    const rec = recording()
    return Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const r = yield* createAs(who, promptpay)
      const found = yield* Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, json(r).id))
      const record = found._tag === "Some" ? found.value : assert.fail("not stored")
      const applied = yield* PaymentIntentLifecycle.applyUpdate(record, { _tag: "Processing" }, { _tag: "confirm" }, 0)
      assert.isTrue(applied.writes.some(isTask), "no poll was scheduled for a method that can be polled")
    }).pipe(Effect.provide(layer({ providers: [rec.provider] })))
  })

  it.effect("3.1 a payment processing at a provider that cannot be polled expires at its payer action's expiry, with payment_intent.expired; not a moment before", () => {
    const p = pixy()
    const scope = { merchantId: "mch_pix", environment: "test" } as const
    const read = (id: string) => Effect.map(Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, scope, id)), Option.getOrThrow)
    const work = Workers.drain({ owner: "pixy" })
    return Effect.gen(function*() {
      const created = yield* createAs(yield* login(pixKey), { ...pix, checkout_mode: "hosted" })
      assert.strictEqual(created.status, 201, created.body)
      const intent = yield* read(json(created).id)
      const expiresAt = PaymentIntentLifecycle.actionExpiry(intent)!
      // The payer pays on the hosted page; Pixy answers processing and tells nothing more.
      const paid = yield* HostedPayment.pay(intent, "br_pix", { customer_name: "João Silva", tax_id: "12345678901" })
      assert.strictEqual(paid.status, "processing")
      yield* TestClock.setTime(expiresAt - 1)
      yield* work
      assert.strictEqual((yield* read(intent.id)).status, "processing")
      yield* TestClock.setTime(expiresAt)
      yield* work
      const ended = yield* read(intent.id)
      assert.deepStrictEqual([ended.status, ended.nextAction, ended.processingReason], ["expired", null, null])
      assert.deepStrictEqual((yield* Event.forResource(scope, intent.id)).map((e) => e.type).slice(-1), ["payment_intent.expired"])
      assert.lengthOf(p.polls, 0)
    }).pipe(Effect.provide(Tender.layerMemory({ seed: pixSeed, hostedCheckout: checkoutOptions, providers: [Simulator.make(), p.provider] })))
  })
})
