/**
 * D12 in core: the fee rule (a property over every amount and schedule), availability as time
 * passes (TestClock), and the model-based property test of the books on the in-memory store. The
 * rules over HTTP are packages/http/test/balancesSuite.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpayNamed } from "@tender/repo-test-support"
import { Duration, Effect, Layer, Schema, TestClock } from "effect"
import fc from "fast-check"
import { Balances, BalanceTransaction, PaymentIntent, PaymentIntents, Tender, Workers } from "../src/index.js"
import { checkoutOptions, keys, login } from "./fixtures.js"
import { ledgerProperty, modelSeed } from "./ledgerModel.js"

describe("D12 the ledger in core", () => {
  it("D12 the application fee is floor(amount x rate_bps / 10000 + 1/2) + fixed_amount, never more than the amount, in integers", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 999_999_999_999_999_999n }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.bigInt({ min: 0n, max: 999_999_999_999_999_999n }),
        (amount, rateBps, fixed) => {
          const fee = BalanceTransaction.applicationFee(amount, { rateBps, fixedAmount: String(fixed) })
          assert.isTrue(fee >= 0n && fee <= amount)
          const proportional = fee - fixed
          if (fee < amount) {
            // ⌊x + ½⌋ = p exactly when p ≤ x + ½ < p + 1, i.e. 2·p·10000 ≤ 2·amount·bps + 10000 < 2·(p + 1)·10000.
            const twice = 2n * amount * BigInt(rateBps) + 10_000n
            assert.isTrue(2n * proportional * 10_000n <= twice && twice < 2n * (proportional + 1n) * 10_000n, `${amount} ${rateBps} ${fixed}`)
          } else {
            // Capped: the uncapped fee is at least the amount.
            assert.isTrue((amount * BigInt(rateBps) + 5_000n) / 10_000n + fixed >= amount)
          }
        }
      ),
      { numRuns: 2000 }
    )
    // The worked example of docs/balances.md: THB 1,000.00 at 1.65 %.
    assert.strictEqual(BalanceTransaction.applicationFee(100_000n, { rateBps: 165, fixedAmount: "0" }), 1650n)
    // Half a minor unit rounds up: 10 x 5 bps = 0.005 -> 0; 100 x 50 bps = 0.5 -> 1.
    assert.strictEqual(BalanceTransaction.applicationFee(100n, { rateBps: 50, fixedAmount: "0" }), 1n)
    assert.strictEqual(BalanceTransaction.applicationFee(10n, { rateBps: 5, fixedAmount: "0" }), 0n)
  })

  it.effect("D12 a payment is pending for settlement_delay_days, then available as time passes (TestClock); other types are available when written", () =>
    Effect.gen(function*() {
      const principal = yield* login(keys.demoTest)
      const ctx = { principal, requestId: "req_d12" }
      const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)({ ...promptpayNamed, amount: "100000" }))
      const created = JSON.parse((yield* PaymentIntents.create(ctx, params)).body)
      yield* PaymentIntents.confirm(ctx, created.id)
      yield* Effect.repeatN(Workers.drain({ owner: "test" }), 2)
      const [payment] = (yield* Balances.list(principal, { type: "payment" })).data
      assert.strictEqual(payment!.status, "pending")
      assert.strictEqual(payment!.available_at, "1970-01-02T00:00:00.000Z")
      assert.deepStrictEqual(yield* Balances.balance(principal), {
        object: "balance",
        environment: "test",
        available: [{ amount: "0", currency: "THB" }],
        // 100000 - (1650 + 10)
        pending: [{ amount: "98340", currency: "THB" }]
      })
      const adjusted = yield* Balances.adjust({ merchantId: "mch_demo", environment: "test" }, {
        amount: "100",
        currency: "THB",
        description: "d",
        idempotency_key: "k"
      })
      assert.strictEqual(adjusted.status, "available")
      yield* TestClock.adjust(Duration.hours(23))
      assert.strictEqual((yield* Balances.retrieve(principal, payment!.id)).status, "pending")
      yield* TestClock.adjust(Duration.hours(1))
      assert.strictEqual((yield* Balances.retrieve(principal, payment!.id)).status, "available")
      assert.deepStrictEqual((yield* Balances.balance(principal)).available, [{ amount: "98440", currency: "THB" }])
    }).pipe(Effect.provide(Layer.orDie(Tender.layerMemory({ seed: modelSeed, hostedCheckout: checkoutOptions })))))

  it("D12 random sequences of payments, refunds, top-ups, payouts, cancels, failures, adjustments and time keep the books (model-based, memory)", async () => {
    await ledgerProperty(() => Tender.layerMemoryStorage, { runs: 25, maxCommands: 14 })
  }, 120_000)
})
