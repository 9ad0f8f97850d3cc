import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { Discovery, HostedCheckout, PaymentIntent, PaymentIntents, Provider, RouteHealth, Routing, Simulator, Storage, StorageError } from "../src/index.js"
import { type Body, checkoutOptions, decodeParams, errorOf, json, type Key, keys, layer, login, storeWith } from "./fixtures.js"



const create = (key: Key, body: Body, idempotencyKey?: string) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(decodeParams(body))
    return yield* PaymentIntents.create({ principal, requestId: "req_test", idempotencyKey }, params)
  })

type Who = Effect.Effect.Success<ReturnType<typeof login>>

/** Create as an explicit principal (a merchant with routes set by the test). */
const createAs = (principal: Who, body: Body, idempotencyKey?: string) =>
  Effect.flatMap(Effect.orDie(decodeParams(body)), (params) =>
    PaymentIntents.create({ principal, requestId: "req_test", idempotencyKey }, params))

const paramOf = (e: { readonly _tag: string }) => ("param" in e ? e.param : undefined)
/** The payment intent a commit inserts, if any. */
const insertOf = (writes: ReadonlyArray<Storage.Write>) => {
  const insert = writes.find((w) => w._tag === "Insert")
  return insert === undefined ? undefined : insert.record as PaymentIntent.PaymentIntentRecord
}

const listAll = (key: Key, params: PaymentIntents.ListParams = {}) =>
  Effect.flatMap(login(key), (who) => PaymentIntents.list(who, { limit: "100", ...params }))

const hosted: Body = { amount: "150000", currency: "THB", country: "TH", customer: { name: "Somchai Jaidee" } }
const promptpay: Body = { ...hosted, checkout_mode: "merchant", payment_method: "th_promptpay" }
const bankTransfer: Body = {
  amount: "250000",
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_bank_transfer",
  customer: { name: "Somchai Jaidee", phone: "+66812345678" },
  payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", account_number: "0123456789", name_th: "สมชาย ใจดี" }
}

/** A payer complete enough for each simulator method in merchant mode. */
const completeFor = (method: string): Body => {
  const customer = { name: "Somchai Jaidee", phone: "+66812345678" }
  switch (method) {
    case "th_bank_transfer":
      return { customer, payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" } }
    case "th_online_banking":
      return { customer, payment_method_options: { bank: "SCB" } }
    default:
      return { customer }
  }
}

/** The simulator, recording every request it receives and optionally replaced per call. */
const recording = (
  code = "simulator",
  override?: (req: Provider.ProviderPaymentRequest) => Effect.Effect<Provider.ProviderPaymentResult, Provider.ProviderUnavailable> | undefined
) => {
  const calls: Array<Provider.ProviderPaymentRequest> = []
  const sim = Simulator.make()
  const provider: Provider.PaymentProvider = {
    ...sim,
    code,
    createPayment: (req) => {
      calls.push(req)
      return override?.(req) ?? sim.createPayment(req)
    }
  }
  return { provider, calls }
}

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
      const base = yield* login(keys.demoTest)
      const who = {
        ...base,
        merchant: { ...base.merchant, routes: [{ id: "r_mo", method: "th_promptpay", provider: "merchant_only_psp", environments: ["test" as const], priority: 0 }] }
      }
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
      assert.deepInclude(errorOf(yield* create(keys.demoTest, { ...promptpay, payment_method: "th_cash" })), { code: "validation_failed", param: "payment_method" })
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
      assert.strictEqual(call.providerBank, "004")
      assert.strictEqual(call.accountName, "Somchai Jaidee")
      assert.strictEqual(call.accountNumber, "0123456789")
      assert.strictEqual(call.nameTh, "สมชาย ใจดี")
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
      const ob = json(yield* create(keys.demoTest, {
        ...promptpay,
        payment_method: "th_online_banking",
        customer: { phone: "+66812345678" },
        payment_method_options: { bank: "SCB" }
      }))
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
    const buggy = recording("simulator", () =>
      broken ? Effect.succeed({ _tag: "Declined" as const, providerPaymentId: null, failureCode: null as unknown as string, failureMessage: "x" }) : undefined)
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
      const r = yield* Simulator.make().createPayment({
        paymentIntentId: "dord_x", environment: "live", amount: "100", currency: "THB", country: "TH",
        providerMethod: "SIM_PP_QR", providerBank: null, customer: {}, accountName: null, accountNumber: null, nameTh: null, returnUrl: null
      }).pipe(Effect.flip)
      assert.strictEqual(r._tag, "ProviderUnavailable")
    }))

  it.effect("D9 live keys never reach the simulator, even through a route configured for live", () => {
    const rec = recording()
    return Effect.gen(function*() {
      const base = yield* login(keys.demoLive)
      const who = {
        ...base,
        merchant: { ...base.merchant, routes: [{ id: "r_live_sim", method: "th_promptpay", provider: "simulator", environments: ["test" as const, "live" as const], priority: 0 }] }
      }
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

describe("Idempotency-Key (4.9, D5)", () => {
  it.effect("4.9.4 same key, same request -> the stored response replayed byte for byte, one intent", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.demoTest, promptpay, "key-1")
      yield* TestClock.adjust("1 hour")
      const again = yield* create(keys.demoTest, promptpay, "key-1")
      assert.strictEqual(again.body, first.body)
      assert.strictEqual(again.status, 201)
      assert.isTrue(again.replayed)
      assert.isFalse(first.replayed)
      assert.strictEqual(again.requestId, first.requestId)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 defaults and normalised values fingerprint canonically, so equivalent requests replay", () =>
    Effect.gen(function*() {
      const a = yield* create(keys.demoTest, { ...hosted, customer: { email: "Somchai@Example.com" }, metadata: {} }, "key-eq")
      const b = yield* create(keys.demoTest, { customer: { email: "somchai@example.com" }, checkout_mode: "hosted", country: "TH", currency: "THB", amount: "150000" }, "key-eq")
      assert.isTrue(b.replayed)
      assert.strictEqual(b.body, a.body)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.5 same key, changed body -> 409 idempotency_conflict", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, promptpay, "key-2")
      const r = yield* create(keys.demoTest, { ...promptpay, amount: "150001" }, "key-2")
      assert.strictEqual(r.status, 409)
      assert.deepInclude(errorOf(r), { code: "idempotency_conflict", param: "Idempotency-Key" })
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.6 same key while the original is in flight -> 409 idempotency_conflict", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const slow = recording("simulator", (req) => Effect.zipRight(Deferred.await(gate), Simulator.make().createPayment(req)))
    return Effect.gen(function*() {
      const first = yield* Effect.fork(create(keys.demoTest, promptpay, "key-3"))
      yield* Effect.yieldNow()
      while (slow.calls.length === 0) yield* Effect.yieldNow()
      const second = yield* create(keys.demoTest, promptpay, "key-3")
      assert.strictEqual(second.status, 409)
      assert.include(errorOf(second).message, "in flight")
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual((yield* Fiber.join(first)).status, 201)
      // The 409 was not stored: once the original completes, the key replays it.
      assert.isTrue((yield* create(keys.demoTest, promptpay, "key-3")).replayed)
    }).pipe(Effect.provide(layer({ providers: [slow.provider] })))
  })

  it.effect("4.9.7 a 5xx releases the key, so a retry reaches a fresh handler", () => {
    let broken = true
    const flaky = recording("simulator", () => (broken ? Effect.die(new Error("provider adapter bug")) : undefined))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-5xx" }
      const first = yield* create(keys.demoTest, body, "key-4")
      assert.strictEqual(first.status, 500)
      assert.deepInclude(errorOf(first), { code: "internal_error" })
      assert.notInclude(first.body, "provider adapter bug")
      broken = false
      const retry = yield* create(keys.demoTest, body, "key-4")
      assert.strictEqual(retry.status, 201)
      assert.isFalse(retry.replayed)
    }).pipe(Effect.provide(layer({ providers: [flaky.provider] })))
  })

  it.effect("4.9.7 a failed final commit is a 5xx that releases the key and the merchant_reference", () => {
    let failNextInsert = true
    const flaky = storeWith((store) => ({
      commit: (writes) =>
        insertOf(writes) !== undefined && failNextInsert
          ? Effect.sync(() => (failNextInsert = false)).pipe(Effect.zipRight(Effect.fail(new StorageError.StorageFailure({ message: "disk full" }))))
          : store.commit(writes)
    }))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-commit" }
      const first = yield* create(keys.demoTest, body, "key-commit")
      assert.strictEqual(first.status, 500)
      assert.notInclude(first.body, "disk full")
      const retry = yield* create(keys.demoTest, body, "key-commit")
      assert.strictEqual(retry.status, 201)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer({ storage: flaky })))
  })

  it.effect("7 a provider that never answers is cut off after providerTimeout: 422 routing_unavailable", () => {
    const hanging = recording("simulator", () => Effect.never)
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(create(keys.demoTest, promptpay, "key-hang"))
      yield* TestClock.adjust(Routing.providerTimeout)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      const done = yield* Fiber.poll(fiber)
      assert.isTrue(done._tag === "Some", "the create is still waiting on the provider")
      const r = yield* Fiber.join(fiber)
      assert.strictEqual(r.status, 422)
      assert.strictEqual(errorOf(r).code, "routing_unavailable")
      assert.lengthOf(hanging.calls, 1)
    }).pipe(Effect.provide(layer({ providers: [hanging.provider] })))
  })

  it.effect("4.9.6 a create that outlived its Idempotency-Key claim answers 409 and writes nothing; the retry that took the key over stands", () => {
    // This request stalls past Idempotency.lockMillis; a retry with the same key takes the key over and
    // creates the intent. The stalled request's final commit is refused whole.
    let retried = false
    let fingerprint = ""
    const racing = storeWith((store) => ({
      begin: (req) => {
        fingerprint = req.idempotency?.fingerprint ?? fingerprint
        return store.begin(req)
      },
      commit: (writes) => {
        const mine = insertOf(writes)
        const completed = writes.find((w) => w._tag === "CompleteIdempotency")
        if (completed === undefined || mine === undefined || retried) return store.commit(writes)
        retried = true
        const later = mine.createdAt + 61_000
        const key = { apiKeyId: completed.key.apiKeyId, key: completed.key.key }
        const winner = { ...mine, id: mine.id.slice(0, -4) + "RTRY" }
        return store.begin({ now: later, idempotency: { ...key, fingerprint, expiresAt: later + 1000, lockedUntil: later + 60_000 } }).pipe(
          Effect.zipRight(store.commit([
            Storage.Write.insert(PaymentIntent.table, winner),
            Storage.Write.completeIdempotency(
              { ...key, lockedUntil: later + 60_000 },
              { status: 201, body: JSON.stringify({ id: winner.id }), requestId: "req_retry" }
            )
          ])),
          Effect.zipRight(store.commit(writes))
        )
      }
    }))
    return Effect.gen(function*() {
      const first = yield* create(keys.demoTest, promptpay, "key-stalled")
      assert.strictEqual(first.status, 409)
      assert.strictEqual(errorOf(first).code, "idempotency_conflict")
      assert.strictEqual(errorOf(first).param, "Idempotency-Key")
      const ids = (yield* listAll(keys.demoTest)).data.map((i) => i.id)
      assert.lengthOf(ids, 1)
      assert.match(ids[0]!, /RTRY$/)
    }).pipe(Effect.provide(layer({ storage: racing })))
  })

  it.effect("4.9 merchant_reference 1: losing the reference to a concurrent create at the final commit is a 409, never a 500", () => {
    // This request's claim lapses while it is at the provider; another create takes the reference
    // and commits first. The store refuses the second intent with a UniqueViolation.
    let winner: string | undefined
    const racing = storeWith((store) => ({
      commit: (writes) => {
        const mine = insertOf(writes)
        if (mine === undefined || winner !== undefined || mine.merchantReference === null) return store.commit(writes)
        winner = mine.id.slice(0, -4) + "WINR"
        const ref = { merchantId: mine.merchantId, environment: mine.environment, resourceType: "payment_intent" as const, reference: mine.merchantReference }
        const later = mine.createdAt + 61_000
        return store.begin({ now: later, reference: { ...ref, fingerprint: mine.fingerprint, resourceId: winner, lockedUntil: later + 60_000 } }).pipe(
          Effect.zipRight(store.commit([
            Storage.Write.insert(PaymentIntent.table, { ...mine, id: winner }),
            Storage.Write.completeReference({ ...ref, resourceId: winner })
          ])),
          Effect.zipRight(store.commit(writes))
        )
      }
    }))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-lapsed" }
      const first = yield* create(keys.demoTest, body, "key-lapsed")
      assert.strictEqual(first.status, 409)
      assert.strictEqual(errorOf(first).code, "idempotency_conflict")
      assert.strictEqual(errorOf(first).param, "merchant_reference")
      // The key was released, not stored: the retry answers with the intent that won (rule 2).
      const retry = yield* create(keys.demoTest, body, "key-lapsed")
      assert.strictEqual(retry.status, 200)
      assert.strictEqual(json(retry).id, winner)
      assert.deepStrictEqual((yield* listAll(keys.demoTest)).data.map((i) => i.id), [winner])
    }).pipe(Effect.provide(layer({ storage: racing })))
  })

  it.effect("D5 a 4xx after the key is claimed is stored and replayed", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.hostedOnly, promptpay, "key-403")
      assert.strictEqual(first.status, 403)
      const again = yield* create(keys.hostedOnly, promptpay, "key-403")
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.3 scope is (API key id, key): equal key strings under different API keys do not collide", () =>
    Effect.gen(function*() {
      const a = json(yield* create(keys.demoTest, promptpay, "shared-key"))
      const b = yield* create(keys.otherTest, { ...promptpay, amount: "999" }, "shared-key")
      assert.strictEqual(b.status, 201)
      assert.notStrictEqual(json(b).id, a.id)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 the key expires 24 hours after the first request", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, promptpay, "key-24h")
      yield* TestClock.adjust("23 hours")
      assert.isTrue((yield* create(keys.demoTest, promptpay, "key-24h")).replayed)
      yield* TestClock.adjust("1 hour")
      const fresh = yield* create(keys.demoTest, { ...promptpay, amount: "777" }, "key-24h")
      assert.strictEqual(fresh.status, 201)
      assert.isFalse(fresh.replayed)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 N simultaneous identical requests with one key create exactly one intent", () =>
    Effect.gen(function*() {
      const results = yield* Effect.all(Array.from({ length: 25 }, () => create(keys.demoTest, promptpay, "race-key")), { concurrency: "unbounded" })
      const ids = new Set(results.filter((r) => r.status === 201).map((r) => json(r).id))
      assert.strictEqual(ids.size, 1)
      for (const r of results) assert.include([201, 409], r.status)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))
})

describe("merchant_reference (4.9)", () => {
  const withRef = { ...promptpay, merchant_reference: "order-1001" }

  /** Every fingerprinted field of 4.9 ref.4 set, in hosted mode (the provider is not called). */
  const full: Body = {
    amount: "250000",
    currency: "THB",
    country: "TH",
    checkout_mode: "hosted",
    merchant_reference: "order-full",
    customer: { name: "Somchai Jaidee", email: "somchai@example.com" },
    payment_method: "th_bank_transfer",
    payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" },
    return_url: "https://shop.example/done",
    device_fingerprint: "fp_device_1",
    metadata: { cart: "c_1" },
    external_reference: "ext-1"
  }

  it.effect("4.9 merchant_reference 2 same merchant_reference and fingerprint returns the original intent (200), with no time limit", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.demoTest, withRef)
      assert.strictEqual(first.status, 201)
      yield* TestClock.adjust("30 days")
      const again = yield* create(keys.demoTest, withRef)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(json(again).id, json(first).id)
      assert.strictEqual(json(again).merchant_reference, "order-1001")
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.2 the original is returned whatever Idempotency-Key the repeat carries", () =>
    Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-keys" }
      const first = json(yield* create(keys.demoTest, body, "key-a"))
      for (const key of ["key-b", undefined]) {
        const r = yield* create(keys.demoTest, body, key)
        assert.strictEqual(r.status, 200, String(key))
        assert.strictEqual(json(r).id, first.id)
      }
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 merchant_reference 3 same merchant_reference with any changed fingerprinted field -> 409 idempotency_conflict", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, withRef)
      const changes: Array<Body> = [
        { amount: "150001" },
        { customer: { name: "Someone Else" } },
        { metadata: { order: "x" } },
        { device_fingerprint: "fp_1" },
        { external_reference: "ext-1" },
        { payment_method: "th_online_banking", payment_method_options: { bank: "SCB" }, customer: { name: "Somchai Jaidee", phone: "+66812345678" } }
      ]
      for (const change of changes) {
        const r = yield* create(keys.demoTest, { ...withRef, ...change })
        assert.strictEqual(r.status, 409, JSON.stringify(change))
        assert.deepInclude(errorOf(r), { code: "idempotency_conflict", param: "merchant_reference" })
      }
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.4 the fingerprint covers amount, currency, country, customer, checkout_mode, payment_method, payment_method_options, return_url, device fingerprint, metadata, external reference", () =>
    Effect.gen(function*() {
      const original = yield* create(keys.demoTest, full)
      assert.strictEqual(original.status, 201, original.body)
      const changes: Record<string, Body> = {
        amount: { amount: "250001" },
        currency: { currency: "USD" },
        country: { country: "VN" },
        customer: { customer: { name: "Somchai Jaidee", email: "other@example.com" } },
        checkout_mode: { checkout_mode: "merchant", return_url: undefined },
        payment_method: { payment_method: "th_online_banking", payment_method_options: { bank: "SCB" } },
        payment_method_options: { payment_method_options: { bank: "SCB", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" } },
        return_url: { return_url: "https://shop.example/other" },
        device_fingerprint: { device_fingerprint: "fp_device_2" },
        metadata: { metadata: { cart: "c_2" } },
        external_reference: { external_reference: "ext-2" }
      }
      for (const [field, change] of Object.entries(changes)) {
        const r = yield* create(keys.demoTest, { ...full, ...change })
        assert.strictEqual(r.status, 409, `${field}: ${r.body}`)
        assert.deepInclude(errorOf(r), { code: "idempotency_conflict", param: "merchant_reference" }, field)
      }
      const same = yield* create(keys.demoTest, full)
      assert.strictEqual(same.status, 200)
      assert.strictEqual(json(same).id, json(original).id)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.4 defaults and normalised values are fingerprinted canonically, so an equivalent repeat returns the original", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.demoTest, { ...hosted, customer: { email: "Somchai@Example.COM" }, metadata: {}, merchant_reference: "order-canon" })
      assert.strictEqual(first.status, 201)
      const again = yield* create(keys.demoTest, {
        merchant_reference: "order-canon",
        customer: { email: "somchai@example.com" },
        checkout_mode: "hosted",
        country: "TH",
        currency: "THB",
        amount: "150000"
      })
      assert.strictEqual(again.status, 200, again.body)
      assert.strictEqual(json(again).id, json(first).id)
    }).pipe(Effect.provide(layer())))

  it.effect("7 409 duplicate_merchant_reference is never the answer for payment intents", () =>
    Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-dup" }
      yield* create(keys.demoTest, body)
      const r = yield* create(keys.demoTest, { ...body, amount: "160000" })
      assert.strictEqual(r.status, 409)
      assert.strictEqual(errorOf(r).code, "idempotency_conflict")
      assert.notInclude(r.body, "duplicate_merchant_reference")
    }).pipe(Effect.provide(layer())))

  it.effect("D4 uniqueness is per merchant and per environment", () =>
    Effect.gen(function*() {
      const body = { ...hosted, merchant_reference: "order-scope" }
      const test = json(yield* create(keys.demoTest, body))
      const live = yield* create(keys.demoLive, body)
      assert.strictEqual(live.status, 201)
      assert.strictEqual(json(live).environment, "live")
      const other = yield* create(keys.otherTest, body)
      assert.strictEqual(other.status, 201)
      assert.notStrictEqual(json(other).id, test.id)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.3 the same merchant_reference while the original is in flight -> 409 idempotency_conflict, not stored on the repeat's key", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const slow = recording("simulator", (req) => Effect.zipRight(Deferred.await(gate), Simulator.make().createPayment(req)))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-inflight" }
      const first = yield* Effect.fork(create(keys.demoTest, body))
      while (slow.calls.length === 0) yield* Effect.yieldNow()
      const second = yield* create(keys.demoTest, body, "key-repeat")
      assert.strictEqual(second.status, 409)
      assert.deepInclude(errorOf(second), { code: "idempotency_conflict", param: "merchant_reference" })
      yield* Deferred.succeed(gate, undefined)
      const original = yield* Fiber.join(first)
      assert.strictEqual(original.status, 201)
      // The transient 409 released the key: the retry reaches a handler and gets the original.
      const retry = yield* create(keys.demoTest, body, "key-repeat")
      assert.strictEqual(retry.status, 200)
      assert.strictEqual(json(retry).id, json(original).id)
    }).pipe(Effect.provide(layer({ providers: [slow.provider] })))
  })

  it.effect("4.9.7 a 5xx while answering a repeated merchant_reference releases the key, so a retry reaches a fresh handler", () => {
    let failReads = false
    const flaky = storeWith((store) => ({
      get: (table, scope, id) =>
        failReads ? Effect.fail(new StorageError.StorageFailure({ message: "read timed out" })) : store.get(table, scope, id)
    }))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-read-5xx" }
      const original = json(yield* create(keys.demoTest, body))
      failReads = true
      const first = yield* create(keys.demoTest, body, "key-read-5xx")
      assert.strictEqual(first.status, 500)
      assert.notInclude(first.body, "read timed out")
      failReads = false
      const retry = yield* create(keys.demoTest, body, "key-read-5xx")
      assert.strictEqual(retry.status, 200, retry.body)
      assert.strictEqual(json(retry).id, original.id)
    }).pipe(Effect.provide(layer({ storage: flaky })))
  })

  it.effect("4.9 N simultaneous creates with one merchant_reference leave exactly one intent", () =>
    Effect.gen(function*() {
      const results = yield* Effect.all(Array.from({ length: 25 }, () => create(keys.demoTest, withRef)), { concurrency: "unbounded" })
      assert.strictEqual(results.filter((r) => r.status === 201).length, 1)
      const ids = new Set(results.filter((r) => r.status < 300).map((r) => json(r).id))
      assert.strictEqual(ids.size, 1)
      const list = yield* listAll(keys.demoTest, { merchant_reference: "order-1001" })
      assert.lengthOf(list.data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 N simultaneous creates with one merchant_reference and different bodies leave exactly one intent; every other answer is 409", () =>
    Effect.gen(function*() {
      const results = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => create(keys.demoTest, { ...promptpay, amount: String(150000 + i), merchant_reference: "order-race-mixed" })),
        { concurrency: "unbounded" }
      )
      const created = results.filter((r) => r.status === 201)
      assert.lengthOf(created, 1)
      for (const r of results) if (r.status !== 201) assert.deepInclude(errorOf(r), { code: "idempotency_conflict" })
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))
})

describe("GET /payment_intents/{id} (core)", () => {
  it.effect("4.2 unknown, other merchant's and other environment's ids are indistinguishable 404s", () =>
    Effect.gen(function*() {
      const id = json(yield* create(keys.demoTest, promptpay)).id as string
      const own = yield* PaymentIntents.retrieve(yield* login(keys.demoTest), id)
      assert.strictEqual(own.id, id)
      assert.strictEqual(own.processing_reason, null)
      const errors = [
        yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.otherTest), id)),
        yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.demoLive), id)),
        yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.demoTest), "dord_" + "x".repeat(24)))
      ]
      for (const e of errors) assert.strictEqual(e._tag, "ResourceNotFound")
      const messages = errors.map((e) => e.message.replace(/"dord_\w+"/, "ID"))
      assert.strictEqual(new Set(messages).size, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("D1 a bad path id format -> 400 validation_failed param id", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.demoTest), "not-an-id"))
      assert.strictEqual(e._tag, "ValidationFailed")
      assert.strictEqual(paramOf(e), "id")
    }).pipe(Effect.provide(layer())))
})

describe("GET /payment_intents (core)", () => {
  /** Create intents one millisecond apart, so created_at orders them. */
  const seedIntents = (key: Key, bodies: ReadonlyArray<Body>) =>
    Effect.forEach(bodies, (b) => Effect.zipLeft(Effect.map(create(key, b), json), TestClock.adjust("1 millis")))

  const seedOne = (key: Key, body: Body) => Effect.zipLeft(Effect.map(create(key, body), json), TestClock.adjust("1 millis"))

  it.effect("4.3 most recent first, default limit 25, pages visit every intent exactly once (D6)", () =>
    Effect.gen(function*() {
      const made = yield* seedIntents(keys.demoTest, Array.from({ length: 30 }, () => hosted))
      const who = yield* login(keys.demoTest)
      const first = yield* PaymentIntents.list(who, {})
      assert.lengthOf(first.data, 25)
      assert.isTrue(first.has_more)
      assert.strictEqual(first.data[0]!.id, made[29].id)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* PaymentIntents.list(who, { limit: "7", ...(cursor ? { cursor } : {}) })
        seen.push(...page.data.map((d) => d.id))
        assert.strictEqual(page.next_cursor === null, !page.has_more)
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, made.map((m) => m.id).reverse())
    }).pipe(Effect.provide(layer())))

  it.effect("D6 keyset order is (created_at, id) descending: intents of one millisecond are paged once each", () =>
    Effect.gen(function*() {
      const made = yield* Effect.forEach(Array.from({ length: 10 }, () => hosted), (b) => Effect.map(create(keys.demoTest, b), json))
      const who = yield* login(keys.demoTest)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* PaymentIntents.list(who, { limit: "3", ...(cursor ? { cursor } : {}) })
        seen.push(...page.data.map((d) => d.id))
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, made.map((m) => m.id as string).sort().reverse())
    }).pipe(Effect.provide(layer())))

  it.effect("4.3 every filter narrows: country, currency, status, merchant_reference, created_after (inclusive), created_before (exclusive)", () =>
    Effect.gen(function*() {
      const [a, b, c] = yield* seedIntents(keys.demoTest, [
        { ...promptpay, merchant_reference: "ref-a" },
        { ...promptpay, amount: Simulator.magicAmounts.declineOnCreate, merchant_reference: "ref-b" },
        { ...hosted, merchant_reference: "ref-c" }
      ])
      const who = yield* login(keys.demoTest)
      const ids = (p: PaymentIntents.ListParams) => Effect.map(PaymentIntents.list(who, p), (l) => l.data.map((d) => d.id))
      assert.deepStrictEqual(yield* ids({ status: "failed" }), [b.id])
      assert.deepStrictEqual(yield* ids({ status: "failed,requires_action" }), [c.id, b.id, a.id])
      assert.deepStrictEqual(yield* ids({ status: ["failed", "succeeded"] }), [b.id])
      assert.deepStrictEqual(yield* ids({ merchant_reference: "ref-a" }), [a.id])
      assert.deepStrictEqual(yield* ids({ country: "VN" }), [])
      assert.deepStrictEqual(yield* ids({ country: "TH", currency: "THB" }), [c.id, b.id, a.id])
      assert.deepStrictEqual(yield* ids({ currency: "USD" }), [])
      assert.deepStrictEqual(yield* ids({ created_after: b.created_at }), [c.id, b.id])
      assert.deepStrictEqual(yield* ids({ created_before: b.created_at }), [a.id])
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T07:00:00.001+07:00", created_before: c.created_at }), [b.id])
    }).pipe(Effect.provide(layer())))

  it.effect("4.3 created_after and created_before take any offset and compare instants", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hours")
      const a = yield* seedOne(keys.demoTest, hosted) // 01:00:00.000Z
      const who = yield* login(keys.demoTest)
      const ids = (p: PaymentIntents.ListParams) => Effect.map(PaymentIntents.list(who, p), (l) => l.data.map((d) => d.id))
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T08:00:00+07:00" }), [a.id])
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T08:00:00.001+07:00" }), [])
      assert.deepStrictEqual(yield* ids({ created_before: "1970-01-01T01:00:00.001+00:00" }), [a.id])
      assert.deepStrictEqual(yield* ids({ created_before: "1969-12-31T20:00:00-05:00" }), [])
    }).pipe(Effect.provide(layer())))

  it.effect("4.3 created_after (inclusive) and created_before (exclusive) hold at sub-millisecond precision", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hours")
      const a = yield* seedOne(keys.demoTest, hosted) // 01:00:00.000Z
      const who = yield* login(keys.demoTest)
      const ids = (p: PaymentIntents.ListParams) => Effect.map(PaymentIntents.list(who, p), (l) => l.data.map((d) => d.id))
      // Created at .000: before .0000001 and not at or after .0005.
      assert.deepStrictEqual(yield* ids({ created_before: "1970-01-01T01:00:00.0000001Z" }), [a.id])
      assert.deepStrictEqual(yield* ids({ created_before: "1970-01-01T01:00:00.000000Z" }), [])
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T00:59:59.9995Z" }), [a.id])
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T01:00:00.0005Z" }), [])
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T01:00:00.000000000Z" }), [a.id])
    }).pipe(Effect.provide(layer())))

  it.effect("4.3 filters and cursor are independent: a cursor carries position only, filters are sent again", () =>
    Effect.gen(function*() {
      const declined = { ...promptpay, amount: Simulator.magicAmounts.declineOnCreate }
      const made = yield* seedIntents(keys.demoTest, Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? promptpay : declined)))
      const who = yield* login(keys.demoTest)
      const page1 = yield* PaymentIntents.list(who, { limit: "2", status: "failed" })
      assert.deepStrictEqual(page1.data.map((d) => d.id), [made[5].id, made[3].id])
      const withFilter = yield* PaymentIntents.list(who, { status: "failed", cursor: page1.next_cursor! })
      assert.deepStrictEqual(withFilter.data.map((d) => d.id), [made[1].id])
      const withoutFilter = yield* PaymentIntents.list(who, { cursor: page1.next_cursor! })
      assert.deepStrictEqual(withoutFilter.data.map((d) => d.id), [made[2].id, made[1].id, made[0].id])
    }).pipe(Effect.provide(layer())))

  it.effect("D6 a cursor never widens what a caller sees", () =>
    Effect.gen(function*() {
      yield* seedIntents(keys.demoTest, [hosted, hosted, hosted])
      yield* seedIntents(keys.otherTest, [hosted])
      const page = yield* PaymentIntents.list(yield* login(keys.demoTest), { limit: "1" })
      const theirs = yield* PaymentIntents.list(yield* login(keys.otherTest), { cursor: page.next_cursor! })
      for (const d of theirs.data) assert.strictEqual(d.environment, "test")
      assert.isTrue(theirs.data.every((d) => !page.data.some((p) => p.id === d.id)))
      const live = yield* PaymentIntents.list(yield* login(keys.demoLive), { cursor: page.next_cursor! })
      assert.lengthOf(live.data, 0)
      const other = yield* PaymentIntents.list(yield* login(keys.otherTest), {})
      assert.lengthOf(other.data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("D6 a cursor never widens what a caller sees: another merchant's cursor pages only the caller's own intents", () =>
    Effect.gen(function*() {
      // The other merchant's intents are older than every one of demo's, so a cursor taken
      // from demo's first page lies after all of them in the keyset order.
      const o1 = yield* seedOne(keys.otherTest, hosted)
      const o2 = yield* seedOne(keys.otherTest, hosted)
      for (let i = 0; i < 3; i++) yield* seedOne(keys.demoTest, hosted)
      const demoPage = yield* PaymentIntents.list(yield* login(keys.demoTest), { limit: "1" })
      const cursor = demoPage.next_cursor!
      const theirs = yield* PaymentIntents.list(yield* login(keys.otherTest), { cursor })
      assert.deepStrictEqual(theirs.data.map((d) => d.id), [o2.id, o1.id])
      const live = yield* PaymentIntents.list(yield* login(keys.demoLive), { cursor })
      assert.deepStrictEqual(live.data, [])
    }).pipe(Effect.provide(layer())))

  it.effect("5.4 reads return only the key's merchant and environment", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, hosted)
      yield* create(keys.demoTest, hosted)
      yield* create(keys.demoLive, hosted)
      yield* create(keys.otherTest, hosted)
      const seen = (key: Key) => Effect.map(listAll(key), (l) => l.data.map((d) => d.environment))
      assert.deepStrictEqual(yield* seen(keys.demoTest), ["test", "test"])
      assert.deepStrictEqual(yield* seen(keys.demoLive), ["live"])
      assert.deepStrictEqual(yield* seen(keys.otherTest), ["test"])
      assert.deepStrictEqual(yield* seen(keys.hostedOnly), [])
    }).pipe(Effect.provide(layer())))

  it.effect("D6 a cursor that does not decode -> 400 param cursor; unknown status -> 400 param status", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      for (const cursor of ["!!", "bm90LWpzb24", Buffer.from(JSON.stringify([1, "tuin_x"])).toString("base64url")]) {
        const e = yield* Effect.flip(PaymentIntents.list(who, { cursor }))
        assert.strictEqual(paramOf(e), "cursor", cursor)
      }
      const e = yield* Effect.flip(PaymentIntents.list(who, { status: "requires_action,done" }))
      assert.strictEqual(paramOf(e), "status")
    }).pipe(Effect.provide(layer())))
})
