/**
 * The simulator's slow magic amounts take `Simulator.make`'s `timings` when given, and the
 * documented defaults otherwise (docs/test-environment.md, "Magic amounts").
 */
import { assert, describe, it } from "@effect/vitest"
import { paymentRequest } from "@tender/repo-test-support/provider-requests"
import { Effect, TestClock } from "effect"
import { Simulator } from "../src/index.js"

const timings = { shortExpiryMillis: 1_500, slowConfirmationMillis: 700, slowRefundMillis: 900 }

const payment = (amount: string) => ({
  paymentIntentId: "pi_timings",
  providerPaymentId: "sim_timings",
  environment: "test" as const,
  amount,
  currency: "THB",
  createdAt: 0
})

const request = (amount: string) => paymentRequest("timings", { amount, providerMethod: "SIM_PP_QR", returnUrl: null })

/** When the simulator's payer action for an expiring payment, and for an expiring top-up, ends. */
const expiries = (simulator: ReturnType<typeof Simulator.make>) =>
  Effect.gen(function*() {
    const created = yield* simulator.createPayment(request(Simulator.magicAmounts.expireSoon))
    assert.strictEqual(created._tag, "Action")
    const started = yield* simulator.topups!.start({
      topupIntentId: "tu_timings",
      environment: "test",
      sourceType: "test_funding",
      sourceCurrency: "THB",
      network: null,
      sourceAmount: Simulator.magicAmounts.expireSoon,
      destinationAmount: Simulator.magicAmounts.expireSoon,
      expiresAt: 0
    })
    return {
      payment: created._tag === "Action" && "expires_at" in created.nextAction ? Date.parse(String(created.nextAction.expires_at)) : undefined,
      topup: started.expiresAt
    }
  })

/** The status of a slow confirmation and of a slow refund at `at` ms after both were created. */
const slowAt = (simulator: ReturnType<typeof Simulator.make>, at: number) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(at)
    const confirmation = yield* simulator.getPaymentStatus(payment(Simulator.magicAmounts.slowConfirmation))
    const refund = yield* simulator.refund!({
      refundId: "rfnd_timings",
      payment: payment("150000"),
      amount: Simulator.magicAmounts.slowRefund,
      destination: null,
      createdAt: 0
    })
    return [confirmation._tag, refund._tag]
  })

describe("Simulator.make timings (D9 magic amounts)", () => {
  it.effect("D9 the slow magic amounts take the timings given: expiry, slow confirmation and slow refund", () =>
    Effect.gen(function*() {
      const simulator = Simulator.make({ timings })
      assert.deepStrictEqual(yield* expiries(simulator), { payment: timings.shortExpiryMillis, topup: timings.shortExpiryMillis })
      assert.deepStrictEqual(yield* slowAt(simulator, 699), ["Processing", "Pending"])
      assert.deepStrictEqual(yield* slowAt(simulator, 700), ["Succeeded", "Pending"])
      assert.deepStrictEqual(yield* slowAt(simulator, 900), ["Succeeded", "Succeeded"])
    }))

  it.effect("D9 without timings, or with some of them, the rest are the documented defaults", () =>
    Effect.gen(function*() {
      const simulator = Simulator.make({ timings: { slowRefundMillis: 900 } })
      assert.deepStrictEqual(yield* expiries(simulator), { payment: Simulator.shortExpiryMillis, topup: Simulator.shortExpiryMillis })
      assert.deepStrictEqual(yield* slowAt(simulator, Simulator.slowConfirmationMillis - 1), ["Processing", "Succeeded"])
      assert.deepStrictEqual(yield* slowAt(Simulator.make(), Simulator.slowConfirmationMillis), ["Succeeded", "Succeeded"])
      assert.deepStrictEqual(yield* slowAt(Simulator.make(), Simulator.slowRefundMillis - 1), ["Processing", "Pending"])
    }))
})
