import { assert, describe, it } from "@effect/vitest"
import { paymentRequest } from "@tender/repo-test-support/provider-requests"
import { Effect, TestClock } from "effect"
import { Discovery, HostedCheckout, PaymentIntent, PaymentIntents, Provider, RouteHealth, Simulator, Storage } from "../src/index.js"
import { type Body, checkoutOptions, decodeParams, errorOf, json, keys, layer, login, loginRouted } from "./fixtures.js"
import { bankTransfer, completeFor, create, createAs, hosted, listAll, promptpay, recording } from "./paymentIntentHelpers.js"

describe("POST /payment_intents rules (core)", () => {
  it.effect("4.1.1 hosted mode without payment_method: payment_method null, a signed redirect_to_url", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.demoTest, hosted)
      assert.strictEqual(r.status, 201)
      const body = json(r)
      assert.strictEqual(body.object, "payment_intent")
      assert.match(body.id, /^dord_[0-9A-Za-z]{24}$/)
      assert.strictEqual(body.checkout_mode, "hosted")
      assert.strictEqual(body.payment_method, null)
      assert.strictEqual(body.status, "requires_action")
      assert.strictEqual(body.next_action.type, "redirect_to_url")
      const url = new URL(body.next_action.url)
      assert.strictEqual(url.origin + url.pathname, `${checkoutOptions.baseUrl}/checkout/${body.id}`)
      const expires = Number(url.searchParams.get("expires"))
      assert.strictEqual(new Date(expires).toISOString(), body.next_action.expires_at)
      const signer = HostedCheckout.make(checkoutOptions)
      assert.isTrue(signer.verify(body.id, expires, url.searchParams.get("signature")!, 0))
      assert.isFalse(signer.verify(body.id, expires + 1, url.searchParams.get("signature")!, 0))
      assert.isFalse(signer.verify(body.id, expires, url.searchParams.get("signature")!, expires))
      // 2.1: the create response shows neither processing_reason nor receipt.
      assert.notProperty(body, "processing_reason")
      assert.notProperty(body, "receipt")
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.2 hosted mode with payment_method: the payer still completes on the hosted page", () => {
    const rec = recording()
    return Effect.gen(function*() {
      const body = json(yield* create(keys.demoTest, { ...hosted, payment_method: "th_bank_transfer" }))
      assert.strictEqual(body.payment_method, "th_bank_transfer")
      assert.strictEqual(body.next_action.type, "redirect_to_url")
      // The hosted page collects payer fields and calls the provider; create does not.
      assert.lengthOf(rec.calls, 0)
    }).pipe(Effect.provide(layer({ providers: [rec.provider] })))
  })

  it.effect("4.1.3 merchant mode: payment_method is required and return_url is rejected (D3: 400 param return_url)", () =>
    Effect.gen(function*() {
      const noMethod = yield* create(keys.demoTest, { ...hosted, checkout_mode: "merchant" })
      assert.strictEqual(noMethod.status, 400)
      assert.deepInclude(errorOf(noMethod), { code: "validation_failed", param: "payment_method" })
      const withReturn = yield* create(keys.demoTest, { ...promptpay, return_url: "https://shop.example/done" })
      assert.strictEqual(withReturn.status, 400)
      assert.deepInclude(errorOf(withReturn), { code: "validation_failed", param: "return_url" })
      const both = errorOf(yield* create(keys.demoTest, { ...hosted, checkout_mode: "merchant", return_url: "https://x.example" }))
      assert.deepStrictEqual(both.details?.map((d) => d.param), ["payment_method", "return_url"])
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.4 return_url is accepted in hosted mode", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.demoTest, { ...hosted, return_url: "https://shop.example/done?order=1" })
      assert.strictEqual(r.status, 201)
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.4 return_url reaches the hosted page unmodified: stored byte for byte, no status appended", () =>
    Effect.gen(function*() {
      const returnUrl = "https://shop.example/done?order=1&note=a%20b&status=mine#top"
      const r = yield* create(keys.demoTest, { ...hosted, return_url: returnUrl })
      assert.strictEqual(r.status, 201)
      const stored = yield* (yield* Storage.Storage).get(PaymentIntent.table, { merchantId: "mch_demo", environment: "test" }, json(r).id)
      assert.strictEqual(stored._tag, "Some")
      if (stored._tag === "Some") assert.strictEqual(stored.value.returnUrl, returnUrl)
    }).pipe(Effect.provide(layer())))

  it.effect("7 payment_method_options without payment_method -> 400", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.demoTest, { ...hosted, payment_method_options: { bank: "KBANK" } })
      assert.strictEqual(r.status, 400)
      assert.deepInclude(errorOf(r), { code: "validation_failed", param: "payment_method_options" })
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.5 team policy must allow the mode; it is never silently changed -> 403 checkout_mode_not_allowed", () =>
    Effect.gen(function*() {
      const r1 = yield* create(keys.hostedOnly, promptpay)
      assert.strictEqual(r1.status, 403)
      assert.deepInclude(errorOf(r1), { code: "checkout_mode_not_allowed", param: "checkout_mode" })
      // The default mode is hosted: a merchant-only merchant omitting checkout_mode is refused, not switched.
      const r2 = yield* create(keys.merchantOnly, hosted)
      assert.strictEqual(r2.status, 403)
      assert.strictEqual((yield* create(keys.merchantOnly, promptpay)).status, 201)
      assert.strictEqual((yield* create(keys.hostedOnly, hosted)).status, 201)
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.6 discovery and creation agree: a method is creatable for (amount, country, currency, mode) exactly when discovery lists it", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const amounts = ["99", "100", "1999", "2000", "200000000", "200000001", "500000001"]
      const combos = [
        ...amounts.map((amount) => ({ amount, country: "TH", currency: "THB" })),
        { amount: "150000", country: "VN", currency: "THB" },
        { amount: "150000", country: "TH", currency: "USD" }
      ]
      for (const combo of combos) {
        for (const mode of ["hosted", "merchant"] as const) {
          const listed = (yield* Discovery.discover(who, { ...combo, checkout_mode: mode })).methods.map((m) => m.code)
          for (const method of Simulator.methods.map((m) => m.method)) {
            const body = { ...combo, checkout_mode: mode, payment_method: method, ...completeFor(method) }
            const r = yield* createAs(who, body)
            const label = `${method} ${mode} ${JSON.stringify(combo)}`
            if (listed.includes(method)) assert.strictEqual(r.status, 201, `${label}: ${r.body}`)
            else assert.deepInclude(errorOf(r), { code: "payment_configuration_unavailable" }, label)
          }
        }
      }
    }).pipe(Effect.provide(layer())))

  it.effect("4.1.6 a method served only in merchant mode is neither discovered nor creatable in hosted mode", () => {
    const merchantOnlyPsp: Provider.PaymentProvider = {
      ...Simulator.make(),
      code: "merchant_only_psp",
      methods: Simulator.methods.map((m) => ({ ...m, checkoutModes: ["merchant" as const] }))
    }
    return Effect.gen(function*() {
      const who = yield* loginRouted(keys.demoTest, [{
        id: "r_mo",
        method: "th_promptpay",
        provider: "merchant_only_psp",
        environments: ["test"],
        priority: 0
      }])
      const q = { amount: "150000", country: "TH", currency: "THB" }
      assert.deepStrictEqual((yield* Discovery.discover(who, { ...q, checkout_mode: "hosted" })).methods, [])
      assert.deepStrictEqual((yield* Discovery.discover(who, { ...q, checkout_mode: "merchant" })).methods.map((m) => m.code), ["th_promptpay"])
      assert.deepInclude(errorOf(yield* createAs(who, { ...hosted, payment_method: "th_promptpay" })), { code: "payment_configuration_unavailable" })
      assert.strictEqual((yield* createAs(who, promptpay)).status, 201)
    }).pipe(Effect.provide(layer({ providers: [merchantOnlyPsp] })))
  })

  it.effect("7 a method with no configured execution -> 422 payment_configuration_unavailable", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.unconfigured, bankTransfer)
      assert.strictEqual(r.status, 422)
      assert.strictEqual(errorOf(r).code, "payment_configuration_unavailable")
      // Also in hosted mode, and when the amount is outside every configured route's range.
      assert.strictEqual(errorOf(yield* create(keys.unconfigured, { ...hosted, payment_method: "th_bank_transfer" })).code, "payment_configuration_unavailable")
      assert.strictEqual(errorOf(yield* create(keys.demoTest, { ...promptpay, amount: "200000001" })).code, "payment_configuration_unavailable")
    }).pipe(Effect.provide(layer())))

  it.effect("7 a live key of a merchant whose routes serve test only -> 422 payment_configuration_unavailable whose message names the environment", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.demoLive, promptpay)
      assert.strictEqual(r.status, 422)
      assert.deepInclude(errorOf(r), {
        code: "payment_configuration_unavailable",
        message: "th_promptpay has no route in the live environment of this key: this merchant's th_promptpay routes serve test only.",
        param: "payment_method"
      })
      // Without routes of the method at all, the message still says which environment was asked.
      assert.strictEqual(
        errorOf(yield* create(keys.unconfigured, bankTransfer)).message,
        "th_bank_transfer has no configured execution for this amount, country, currency and checkout mode in the test environment."
      )
    }).pipe(Effect.provide(layer())))

  it.effect("7 configured routes that are all unhealthy -> 422 routing_unavailable", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.degraded, promptpay)
      assert.strictEqual(r.status, 422)
      assert.strictEqual(errorOf(r).code, "routing_unavailable")
      yield* (yield* RouteHealth.RouteHealth).setRouteAvailable("rt_degraded_pp", true)
      assert.strictEqual((yield* create(keys.degraded, promptpay)).status, 201)
    }).pipe(Effect.provide(layer())))

  it.effect("7 unknown option values -> 400: unknown method, unknown bank, a field the method does not take", () =>
    Effect.gen(function*() {
      assert.deepInclude(errorOf(yield* create(keys.demoTest, { ...promptpay, payment_method: "th_cash" })), {
        code: "validation_failed",
        param: "payment_method"
      })
      const badBank = { ...bankTransfer, payment_method_options: { ...(bankTransfer["payment_method_options"] as Body), bank: "NOPE" } }
      assert.deepInclude(errorOf(yield* create(keys.demoTest, badBank)), { code: "validation_failed", param: "payment_method_options.bank" })
      // GSB exists, but online banking does not offer it.
      const ob = { ...promptpay, payment_method: "th_online_banking", payment_method_options: { bank: "GSB" } }
      assert.deepInclude(errorOf(yield* create(keys.demoTest, ob)), { code: "validation_failed", param: "payment_method_options.bank" })
      const extra = { ...promptpay, payment_method_options: { name_th: "สมชาย" } }
      assert.deepInclude(errorOf(yield* create(keys.demoTest, extra)), { code: "validation_failed", param: "payment_method_options.name_th" })
    }).pipe(Effect.provide(layer())))

  it.effect("7 a customer field required by the route is missing -> 400 naming each create-request path (2.2 mapping)", () =>
    Effect.gen(function*() {
      const r = yield* create(keys.demoTest, { ...bankTransfer, customer: {}, payment_method_options: { bank: "KBANK" } })
      assert.strictEqual(r.status, 400)
      assert.deepStrictEqual(
        errorOf(r).details?.map((d) => d.param),
        ["customer.name", "payment_method_options.account_name", "payment_method_options.name_th"]
      )
      const ob = yield* create(keys.demoTest, { ...promptpay, payment_method: "th_online_banking", customer: {}, payment_method_options: { bank: "SCB" } })
      assert.deepInclude(errorOf(ob), { code: "validation_failed", param: "customer.phone" })
    }).pipe(Effect.provide(layer())))

  it.effect("2.2 payer data reaches the provider from its mapped paths; the bank as the provider's own code", () => {
    const rec = recording()
    return Effect.gen(function*() {
      const r = yield* create(keys.demoTest, bankTransfer)
      assert.strictEqual(r.status, 201)
      const call = rec.calls[0]!
      assert.strictEqual(call.providerMethod, "SIM_BT_MANUAL")
      // The Thai family's fields, declared by the method; the bank as the provider's own code.
      assert.deepStrictEqual(call.payer, {
        family: "thai_bank_account",
        fields: { customer_name: "Somchai Jaidee", account_name: "Somchai Jaidee", account_number: "0123456789", bank: "004", name_th: "สมชาย ใจดี" }
      })
      assert.strictEqual(call.customer.name, "Somchai Jaidee")
      assert.strictEqual(call.paymentIntentId, json(r).id)
    }).pipe(Effect.provide(layer({ providers: [rec.provider] })))
  })

  it.effect("2.3 merchant mode: the action type follows the method", () =>
    Effect.gen(function*() {
      const qr = json(yield* create(keys.demoTest, promptpay))
      assert.strictEqual(qr.status, "requires_action")
      assert.strictEqual(qr.next_action.type, "display_qr_code")
      assert.match(qr.next_action.qr_data, /^000201/)
      const bt = json(yield* create(keys.demoTest, bankTransfer))
      assert.strictEqual(bt.next_action.type, "display_bank_transfer_instructions")
      assert.deepInclude(bt.next_action, { amount: "250000", currency: "THB", requires_receipt: true })
      const ob = json(
        yield* create(keys.demoTest, {
          ...promptpay,
          payment_method: "th_online_banking",
          customer: { phone: "+66812345678" },
          payment_method_options: { bank: "SCB" }
        })
      )
      assert.strictEqual(ob.next_action.type, "redirect_to_url")
      assert.include(ob.next_action.url, "/014/")
    }).pipe(Effect.provide(layer())))

  it.effect("D9 magic amount 40001: the provider declines, the intent is failed with next_action null (3.1.3)", () =>
    Effect.gen(function*() {
      const body = json(yield* create(keys.demoTest, { ...promptpay, amount: Simulator.magicAmounts.declineOnCreate }))
      assert.strictEqual(body.status, "failed")
      assert.strictEqual(body.next_action, null)
      assert.strictEqual(body.failure_code, "payment_declined")
      assert.isString(body.failure_message)
      // 3.1.4 and no failure otherwise.
      const ok = json(yield* create(keys.demoTest, promptpay))
      assert.strictEqual(ok.failure_code, null)
      assert.strictEqual(ok.failure_message, null)
    }).pipe(Effect.provide(layer())))

  it.effect("3.1.2 a provider answering processing: status processing, next_action null; processing_reason shown by get and list, not by create (2.1)", () => {
    const asynchronous = recording("simulator", () => Effect.succeed({ _tag: "Processing" as const, providerPaymentId: "sim_async" }))
    return Effect.gen(function*() {
      const r = yield* create(keys.demoTest, promptpay)
      assert.strictEqual(r.status, 201)
      const created = json(r)
      assert.strictEqual(created.status, "processing")
      assert.strictEqual(created.next_action, null)
      assert.strictEqual(created.failure_code, null)
      assert.notProperty(created, "processing_reason")
      const who = yield* login(keys.demoTest)
      const got = yield* PaymentIntents.retrieve(who, created.id)
      assert.strictEqual(got.status, "processing")
      assert.strictEqual(got.next_action, null)
      assert.strictEqual(got.processing_reason, "asynchronous")
      const listed = (yield* PaymentIntents.list(who, {})).data[0]!
      assert.strictEqual(listed.processing_reason, "asynchronous")
      const stored = yield* (yield* Storage.Storage).get(PaymentIntent.table, { merchantId: "mch_demo", environment: "test" }, created.id)
      assert.strictEqual(stored._tag, "Some")
      if (stored._tag === "Some") assert.deepStrictEqual(PaymentIntent.invariantViolations(stored.value), [])
    }).pipe(Effect.provide(layer({ providers: [asynchronous.provider] })))
  })

  it.effect("3.1.4 the status rules are checked before any intent is written: a decline without failure_code is a 500, nothing is stored, the key is released", () => {
    // A provider adapter bug (a decline with no failure code) would write a failed intent
    // with failure_code null; the invariant check is the last gate before the commit.
    let broken = true
    const buggy = recording(
      "simulator",
      () =>
        broken ? Effect.succeed({ _tag: "Failed" as const, providerPaymentId: null, failureCode: null as unknown as string, failureMessage: "x" }) : undefined
    )
    return Effect.gen(function*() {
      const first = yield* create(keys.demoTest, promptpay, "key-invariant")
      assert.strictEqual(first.status, 500)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 0)
      broken = false
      const retry = yield* create(keys.demoTest, promptpay, "key-invariant")
      assert.strictEqual(retry.status, 201)
    }).pipe(Effect.provide(layer({ providers: [buggy.provider] })))
  })

  it.effect("D9 the simulator never serves live keys", () =>
    Effect.gen(function*() {
      const r = yield* Simulator.make().createPayment(paymentRequest("x", { environment: "live", amount: "100", providerMethod: "SIM_PP_QR" })).pipe(
        Effect.flip
      )
      assert.strictEqual(r._tag, "ProviderUnavailable")
    }))

  it.effect("D9 live keys never reach the simulator, even through a route configured for live", () => {
    const rec = recording()
    return Effect.gen(function*() {
      const who = yield* loginRouted(keys.demoLive, [{
        id: "r_live_sim",
        method: "th_promptpay",
        provider: "simulator",
        environments: ["test", "live"],
        priority: 0
      }])
      const r = yield* createAs(who, promptpay)
      assert.deepInclude(errorOf(r), { code: "payment_configuration_unavailable" })
      assert.lengthOf(rec.calls, 0)
      assert.deepStrictEqual((yield* Discovery.discover(who, { amount: "150000", country: "TH", currency: "THB", checkout_mode: "merchant" })).methods, [])
    }).pipe(Effect.provide(layer({ providers: [rec.provider] })))
  })
})

describe("Routing failover and health", () => {
  const down = recording("psp_down", () => Effect.fail(new Provider.ProviderUnavailable({ provider: "psp_down", reason: "503" })))
  const up = recording("simulator")
  const routes = [
    { id: "r_down", method: "th_promptpay", provider: "psp_down", environments: ["test" as const], priority: 0 },
    { id: "r_up", method: "th_promptpay", provider: "simulator", environments: ["test" as const], priority: 1 }
  ]
  const withRoutes = (who: Effect.Effect.Success<ReturnType<typeof login>>) => ({ ...who, merchant: { ...who.merchant, routes } })

  it.effect("failures observed from a provider count against its route; create fails over to the next", () =>
    Effect.gen(function*() {
      const who = withRoutes(yield* login(keys.demoTest))
      const params = yield* Effect.orDie(decodeParams(promptpay))
      const health = yield* RouteHealth.RouteHealth
      for (let i = 0; i < 3; i++) {
        const r = yield* PaymentIntents.create({ principal: who, requestId: "req_t" }, params)
        assert.strictEqual(r.status, 201)
      }
      assert.lengthOf(down.calls, 3)
      assert.lengthOf(up.calls, 3)
      // Three consecutive failures: the route is out of service for the cool-down.
      assert.isFalse(yield* health.isHealthy(routes[0]!))
      yield* PaymentIntents.create({ principal: who, requestId: "req_t" }, params)
      assert.lengthOf(down.calls, 3)
      yield* TestClock.adjust("31 seconds")
      assert.isTrue(yield* health.isHealthy(routes[0]!))
    }).pipe(Effect.provide(layer({ providers: [down.provider, up.provider] }))))

  it.effect("7 every route's provider unavailable -> 422 routing_unavailable, and the merchant_reference stays free", () =>
    Effect.gen(function*() {
      const body = { ...promptpay, amount: Simulator.magicAmounts.unavailable, merchant_reference: "order-outage" }
      const r = yield* create(keys.demoTest, body)
      assert.strictEqual(r.status, 422)
      assert.strictEqual(errorOf(r).code, "routing_unavailable")
      const retry = yield* create(keys.demoTest, { ...body, amount: "150000" })
      assert.strictEqual(retry.status, 201)
    }).pipe(Effect.provide(layer())))
})
