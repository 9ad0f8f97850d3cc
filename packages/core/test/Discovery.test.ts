import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Discovery, RouteHealth, Simulator } from "../src/index.js"
import { keys, layer, login } from "./fixtures.js"

const query = { amount: "150000", country: "TH", currency: "THB" }
/** The simulator's catalogue with every payer field optional, under another provider code. */
const lax = {
  ...Simulator.make(),
  code: "lax_psp",
  methods: Simulator.methods.map((m) => ({
    ...m,
    payer: Object.fromEntries(Object.keys(m.payer).map((k) => [k, { required: false }]))
  }))
}
const codes = (r: Discovery.DiscoveryResponse) => r.methods.map((m) => m.code)
/** A test-environment route to `provider`, `priority` its rank. */
const route = (id: string, method: string, provider: string, priority: number) => ({ id, method, provider, environments: ["test" as const], priority })
/** The caller `who` with its merchant's routes replaced by `routes`. */
const routedTo = <W extends { readonly merchant: object }>(who: W, ...routes: ReadonlyArray<ReturnType<typeof route>>) => ({
  ...who,
  merchant: { ...who.merchant, routes }
})

describe("Discovery", () => {
  it.effect("4.6 the union of methods over the merchant's healthy matching routes", () =>
    Effect.gen(function*() {
      const r = yield* Discovery.discover(yield* login(keys.demoTest), { ...query, checkout_mode: "merchant" })
      assert.deepStrictEqual(codes(r), ["th_promptpay", "th_bank_transfer", "th_online_banking"])
      assert.deepStrictEqual(
        r.methods.map((m) => m.next_action_types),
        [["display_qr_code"], ["display_bank_transfer_instructions"], ["redirect_to_url"]]
      )
      assert.strictEqual(r.environment, "test")
      assert.strictEqual(r.country, "TH")
      assert.strictEqual(r.currency, "THB")
    }).pipe(Effect.provide(layer())))

  it.effect("2.3 in hosted mode every method's action type is redirect_to_url", () =>
    Effect.gen(function*() {
      const r = yield* Discovery.discover(yield* login(keys.demoTest), query)
      assert.isAbove(r.methods.length, 0)
      for (const m of r.methods) assert.deepStrictEqual(m.next_action_types, ["redirect_to_url"])
    }).pipe(Effect.provide(layer())))

  it.effect("2.4 methods is empty when nothing is eligible: amount out of range, other currency, live key", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      assert.deepStrictEqual((yield* Discovery.discover(who, { ...query, amount: "999999999999" })).methods, [])
      assert.deepStrictEqual((yield* Discovery.discover(who, { ...query, currency: "USD" })).methods, [])
      assert.deepStrictEqual((yield* Discovery.discover(who, { ...query, country: "VN" })).methods, [])
      // D9: the simulator serves only test; live has no route here.
      const live = yield* Discovery.discover(yield* login(keys.demoLive), query)
      assert.deepStrictEqual(live.methods, [])
      assert.strictEqual(live.environment, "live")
    }).pipe(Effect.provide(layer())))

  it.effect("4.6 a checkout mode the merchant's team policy denies has no eligible method (4.1.5, 4.1.6)", () =>
    Effect.gen(function*() {
      const hostedOnly = yield* login(keys.hostedOnly)
      assert.lengthOf((yield* Discovery.discover(hostedOnly, query)).methods, 3)
      assert.deepStrictEqual((yield* Discovery.discover(hostedOnly, { ...query, checkout_mode: "merchant" })).methods, [])
      const merchantOnly = yield* login(keys.merchantOnly)
      // The default mode is hosted, which this merchant may not use.
      assert.deepStrictEqual((yield* Discovery.discover(merchantOnly, query)).methods, [])
      assert.lengthOf((yield* Discovery.discover(merchantOnly, { ...query, checkout_mode: "merchant" })).methods, 3)
    }).pipe(Effect.provide(layer())))

  it.effect("4.6 amount bounds decide eligibility per method, compared as integers", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      // th_promptpay from 100; bank transfer and online banking from 2000.
      assert.deepStrictEqual(codes(yield* Discovery.discover(who, { ...query, amount: "1999" })), ["th_promptpay"])
      assert.deepStrictEqual(codes(yield* Discovery.discover(who, { ...query, amount: "99" })), [])
      assert.include(codes(yield* Discovery.discover(who, { ...query, amount: "200000000" })), "th_promptpay")
      assert.notInclude(codes(yield* Discovery.discover(who, { ...query, amount: "200000001" })), "th_promptpay")
    }).pipe(Effect.provide(layer())))

  it.effect("D4 amount bounds compare as bigint, exact above 2^53", () => {
    const big: typeof lax = {
      ...lax,
      code: "big_psp",
      methods: [{ ...Simulator.methods[0]!, minAmount: "9007199254740993", maxAmount: "900719925474099300" }]
    }
    return Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const at = (amount: string) => Effect.map(Discovery.discover(routedTo(who, route("r_big", "th_promptpay", "big_psp", 0)), { ...query, amount }), codes)
      // As floats 9007199254740992 and 9007199254740993 are equal; as integers they are not.
      assert.deepStrictEqual(yield* at("9007199254740992"), [])
      assert.deepStrictEqual(yield* at("9007199254740993"), ["th_promptpay"])
      assert.deepStrictEqual(yield* at("900719925474099300"), ["th_promptpay"])
      assert.deepStrictEqual(yield* at("900719925474099301"), [])
    }).pipe(Effect.provide(layer({ providers: [big] })))
  })

  it.effect("4.6 a route that is down is not eligible, and comes back when marked up", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.degraded)
      assert.deepStrictEqual(codes(yield* Discovery.discover(who, query)), ["th_bank_transfer"])
      yield* (yield* RouteHealth.RouteHealth).setRouteAvailable("rt_degraded_pp", true)
      assert.deepStrictEqual(codes(yield* Discovery.discover(who, query)), ["th_promptpay", "th_bank_transfer"])
    }).pipe(Effect.provide(layer())))

  it.effect("4.6 the host can take a whole provider out of service and bring it back", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const health = yield* RouteHealth.RouteHealth
      yield* health.setProviderAvailable("simulator", false)
      assert.deepStrictEqual(codes(yield* Discovery.discover(who, query)), [])
      yield* health.setProviderAvailable("simulator", true)
      assert.lengthOf(codes(yield* Discovery.discover(who, query)), 3)
    }).pipe(Effect.provide(layer())))

  it.effect("4.6 the provider pin narrows to routes at that provider", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      assert.lengthOf((yield* Discovery.discover(who, { ...query, provider: "simulator" })).methods, 3)
      assert.deepStrictEqual((yield* Discovery.discover(who, { ...query, provider: "other_psp" })).methods, [])
    }).pipe(Effect.provide(layer())))

  it.effect("4.6 the provider pin keeps only that provider's routes, and their union stays provider-neutral", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const routed = routedTo(who, route("r_lax_pp", "th_promptpay", "lax_psp", 0), route("r_sim_bt", "th_bank_transfer", "simulator", 1))
      const pinned = (provider?: string) => Effect.map(Discovery.discover(routed, { ...query, ...(provider ? { provider } : {}) }), codes)
      assert.deepStrictEqual(yield* pinned(), ["th_promptpay", "th_bank_transfer"])
      assert.deepStrictEqual(yield* pinned("lax_psp"), ["th_promptpay"])
      assert.deepStrictEqual(yield* pinned("simulator"), ["th_bank_transfer"])
    }).pipe(Effect.provide(layer({ providers: [Simulator.make(), lax] }))))

  it.effect("2.4 banks and payer fields are described; provider-local codes never appear", () =>
    Effect.gen(function*() {
      const r = yield* Discovery.discover(yield* login(keys.demoTest), { ...query, checkout_mode: "merchant" })
      const bt = r.methods.find((m) => m.code === "th_bank_transfer")!
      assert.deepStrictEqual(bt.options.banks[0], { code: "BBL", label: "Bangkok Bank" })
      assert.deepStrictEqual(bt.options.payer["name_th"], { required: true })
      assert.deepStrictEqual(bt.options.payer["account_number"], { required: false })
      const text = JSON.stringify(r)
      for (const local of ["SIM_PP_QR", "SIM_BT_MANUAL", "SIM_OB_REDIRECT", "\"002\"", "providerCode", "simulator", "rt_demo"]) {
        assert.notInclude(text, local)
      }
    }).pipe(Effect.provide(layer())))

  it.effect("2.4 each method is exactly {category, code, label, next_action_types, options: {banks, payer}}; payer keys are discovery's field names", () =>
    Effect.gen(function*() {
      const r = yield* Discovery.discover(yield* login(keys.demoTest), { ...query, checkout_mode: "merchant" })
      assert.deepStrictEqual(Object.keys(r).sort(), ["country", "currency", "environment", "methods"])
      const fieldNames = ["customer_name", "customer_phone", "account_name", "account_number", "bank", "name_th"]
      for (const m of r.methods) {
        assert.deepStrictEqual(Object.keys(m).sort(), ["category", "code", "label", "next_action_types", "options"])
        assert.deepStrictEqual(Object.keys(m.options).sort(), ["banks", "payer"])
        for (const bank of m.options.banks) assert.deepStrictEqual(Object.keys(bank).sort(), ["code", "label"])
        for (const [field, spec] of Object.entries(m.options.payer)) {
          assert.include(fieldNames, field)
          assert.deepStrictEqual(Object.keys(spec), ["required"])
          assert.isBoolean(spec.required)
        }
      }
      assert.strictEqual(r.methods.find((m) => m.code === "th_bank_transfer")!.category, "bank_transfer")
    }).pipe(Effect.provide(layer())))

  it.effect("2.4 a payer field any eligible route requires is required in the union", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      const r = yield* Discovery.discover(
        routedTo(who, route("r_lax", "th_bank_transfer", "lax_psp", 0), route("r_sim", "th_bank_transfer", "simulator", 1)),
        query
      )
      assert.lengthOf(r.methods, 1)
      assert.deepStrictEqual(r.methods[0]!.options.payer["name_th"], { required: true })
    }).pipe(Effect.provide(layer({ providers: [Simulator.make(), lax] }))))

  it("D9 the simulator's catalogue: a method per next_action type, Thai bank codes, a name_th payer field, test environment only", () => {
    assert.sameMembers(
      [...new Set(Simulator.methods.map((m) => m.nextActionType))],
      ["display_qr_code", "display_bank_transfer_instructions", "redirect_to_url"]
    )
    const banks = new Set(Simulator.methods.flatMap((m) => m.banks.map((b) => b.code)))
    for (const code of ["BBL", "KBANK", "KTB", "SCB", "BAY"]) assert.isTrue(banks.has(code), code)
    assert.isTrue(Simulator.methods.some((m) => m.payer.name_th !== undefined))
    for (const m of Simulator.methods) assert.deepStrictEqual(m.environments, ["test"])
  })
})
