import { assert, describe, it } from "@effect/vitest"
import { eventLoopTurn } from "@tender/repo-test-support"
import { BigDecimal } from "effect"
import fc from "fast-check"
import { Money } from "../src/index.js"

// Currencies of every minor-unit width the rule must hold for: ISO 0, 2 and 3 digits, tokens 6, 8 and 18.
const currencies = ["JPY", "THB", "USD", "KWD", "USDT", "BTC", "ETH"] as const

/** A positive decimal rate of up to 12 significant digits, scaled from 10^-12 to 10^9. */
const rate = fc.tuple(fc.bigInt({ min: 1n, max: 999_999_999_999n }), fc.integer({ min: -3, max: 14 }))
  .map(([value, scale]) => BigDecimal.make(value, scale))
/** A fraction from 0 to 0.1 (10 %), as spreads and fee rates are. */
const fraction = fc.bigInt({ min: 0n, max: 100_000n }).map((v) => BigDecimal.make(v, 6))

const input = fc.record({
  destinationAmount: fc.bigInt({ min: 1n, max: 999_999_999_999_999_999n }),
  destination: fc.constantFrom(...currencies),
  source: fc.constantFrom(...currencies),
  rate,
  spread: fraction,
  feeRate: fraction,
  feeFixed: fc.bigInt({ min: 0n, max: 10_000n })
}).map((r): Money.QuoteInput => ({
  destinationAmount: r.destinationAmount,
  destinationDigits: Money.digitsOf(r.destination)!,
  sourceDigits: Money.digitsOf(r.source)!,
  rate: r.rate,
  spread: r.spread,
  feeRate: r.feeRate,
  feeFixed: r.feeFixed
}))

/** x * f for a decimal fraction f, as an exact rational compared against integers: is n >= x*f and n - 1 < x*f? */
const isCeilingOf = (n: bigint, x: bigint, f: BigDecimal.BigDecimal) => {
  const d = BigDecimal.normalize(f)
  const num = d.scale >= 0 ? x * d.value : x * d.value * 10n ** BigInt(-d.scale)
  const den = d.scale >= 0 ? 10n ** BigInt(d.scale) : 1n
  return n * den >= num && (n - 1n) * den < num
}

/** A property of every quote: `holds` of each generated input and its quote, 2000 runs, yielding to the event loop each run. */
const everyQuote = (holds: (i: Money.QuoteInput, q: Money.Quote) => void) =>
  fc.assert(
    fc.asyncProperty(input, async (i) => {
      await eventLoopTurn()
      holds(i, Money.quote(i))
    }),
    { numRuns: 2000 }
  )

describe("top-up money (2.5, D4): exact conversion and its rounding rule", () => {
  it("2.5 the merchant is credited exactly destination.amount, never a unit more or less (0, 2, 3, 6, 8 and 18 minor digits)", async () => {
    await everyQuote((i, q) => {
      assert.strictEqual(Money.credited(i, q, q.sourceAmount), i.destinationAmount)
      // Paying more than the quote credits no more than asked.
      assert.strictEqual(Money.credited(i, q, q.sourceAmount + 1n), i.destinationAmount)
      // One source minor unit short credits nothing: the quote is the least that is enough.
      assert.strictEqual(Money.credited(i, q, q.sourceAmount - 1n), 0n)
    })
  })

  it("2.5 rounding rule: the converted amount is the least whole source amount worth the destination amount at the mid-market rate", async () => {
    await everyQuote((i, q) => {
      assert.isTrue(Money.valueAtRate(q.convertedAmount, i) >= i.destinationAmount)
      assert.isTrue(Money.valueAtRate(q.convertedAmount - 1n, i) < i.destinationAmount)
    })
  })

  it("2.5 rounding rule: spread and fee are each rounded up once (the payer bears under one minor unit per component), source = converted + spread + fee", async () => {
    await everyQuote((i, q) => {
      assert.isTrue(isCeilingOf(q.spreadAmount, q.convertedAmount, i.spread))
      assert.isTrue(isCeilingOf(q.feeAmount - i.feeFixed, q.convertedAmount, i.feeRate))
      assert.strictEqual(q.sourceAmount, q.convertedAmount + q.spreadAmount + q.feeAmount)
    })
  })

  it("2.5 worked example of docs/topups.md: 100.00 USDT for THB at 36.25 with a 0.5 % spread and a 1 % fee", () => {
    const i: Money.QuoteInput = {
      destinationAmount: 100_000_000n,
      destinationDigits: 6,
      sourceDigits: 2,
      rate: BigDecimal.unsafeFromString("0.027586"),
      spread: BigDecimal.unsafeFromString("0.005"),
      feeRate: BigDecimal.unsafeFromString("0.01"),
      feeFixed: 0n
    }
    const q = Money.quote(i)
    // 100 / 0.027586 = 3625.0271877... THB -> 362503 satang (rounded up).
    assert.deepStrictEqual(q, { convertedAmount: 362_503n, spreadAmount: 1813n, feeAmount: 3626n, sourceAmount: 367_942n })
    assert.strictEqual(Money.credited(i, q, q.sourceAmount), 100_000_000n)
  })

  it("D4 rates are plain decimal strings, never floats or exponents", () => {
    assert.strictEqual(Money.formatDecimal(BigDecimal.make(275n, 7)), "0.0000275")
    assert.strictEqual(Money.formatDecimal(BigDecimal.make(3625n, 2)), "36.25")
    assert.strictEqual(Money.formatDecimal(BigDecimal.make(12n, -3)), "12000")
    assert.isTrue(Money.parseDecimal("1e3")._tag === "None")
    assert.isTrue(Money.parseDecimal("36.25")._tag === "Some")
  })
})
