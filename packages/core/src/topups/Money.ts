/**
 * Exact money for top-ups (2.5, D4): amounts are integer minor units as `bigint`, rates and
 * fractions are Effect `BigDecimal`s, and no value ever passes through a floating-point
 * number. This module holds the one conversion of a destination amount into what the payer
 * pays, and the rounding rule that says who bears each minor unit (docs/topups.md).
 *
 * @since 0.1.0
 */
import { BigDecimal, Option } from "effect"

/**
 * Minor-unit digits of the currencies and token symbols the library knows: ISO 4217
 * exponents (0, 2 and 3) and the on-chain decimals of common tokens (6, 8, 18). A
 * currency missing here cannot be converted, so a top-up in it is refused with a 400.
 *
 * @since 0.1.0 @category constants
 */
export const minorDigits: Readonly<Record<string, number>> = {
  // ISO 4217, exponent 0
  JPY: 0,
  KRW: 0,
  VND: 0,
  CLP: 0,
  // ISO 4217, exponent 2
  THB: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  SGD: 2,
  MYR: 2,
  IDR: 2,
  PHP: 2,
  // ISO 4217, exponent 3
  KWD: 3,
  BHD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3,
  // Tokens: their contracts' decimals
  USDT: 6,
  USDC: 6,
  BTC: 8,
  ETH: 18
}

/** The minor-unit digits of `currency`, if known. @since 0.1.0 */
export const digitsOf = (currency: string): number | undefined => Object.hasOwn(minorDigits, currency) ? minorDigits[currency] : undefined

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** ceil(a / b) for a >= 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b

/** A non-negative decimal as an exact fraction `numerator / 10^scale`, scale >= 0. */
const fraction = (d: BigDecimal.BigDecimal): { readonly numerator: bigint; readonly denominator: bigint } => {
  const n = BigDecimal.normalize(d)
  return n.scale >= 0
    ? { numerator: n.value, denominator: pow10(n.scale) }
    : { numerator: n.value * pow10(-n.scale), denominator: 1n }
}

/**
 * A decimal as a plain string, never in exponent form: `36.25`, `0.0000275`, `1`.
 *
 * @since 0.1.0
 */
export const formatDecimal = (d: BigDecimal.BigDecimal): string => {
  const n = BigDecimal.normalize(d)
  if (n.scale <= 0) return (n.value * pow10(-n.scale)).toString()
  const negative = n.value < 0n
  const digits = (negative ? -n.value : n.value).toString().padStart(n.scale + 1, "0")
  const text = `${digits.slice(0, -n.scale)}.${digits.slice(-n.scale)}`
  return negative ? `-${text}` : text
}

/** Parse a plain decimal string (`36.25`), refusing exponents and anything else. @since 0.1.0 */
export const parseDecimal = (s: string): Option.Option<BigDecimal.BigDecimal> => /^-?\d+(\.\d+)?$/.test(s) ? BigDecimal.fromString(s) : Option.none()

/** What the conversion needs: everything exact. @since 0.1.0 @category models */
export interface QuoteInput {
  /** What the merchant is credited, in destination minor units (> 0). */
  readonly destinationAmount: bigint
  readonly destinationDigits: number
  readonly sourceDigits: number
  /** The mid-market rate: destination major units for one source major unit (> 0). */
  readonly rate: BigDecimal.BigDecimal
  /** The FX spread, a fraction of the converted amount (0.005 is 0.5 %; >= 0). */
  readonly spread: BigDecimal.BigDecimal
  /** The proportional fee, a fraction of the converted amount (>= 0). */
  readonly feeRate: BigDecimal.BigDecimal
  /** The fixed fee, in source minor units (>= 0). */
  readonly feeFixed: bigint
}

/** The payer's side of a top-up, in source minor units. @since 0.1.0 @category models */
export interface Quote {
  /** The destination amount converted at the mid-market rate, rounded up to a source minor unit. */
  readonly convertedAmount: bigint
  /** `source.fx.spread_amount`. */
  readonly spreadAmount: bigint
  /** `source.fee_amount`. */
  readonly feeAmount: bigint
  /** `source.amount`: what the payer pays, converted + spread + fee. */
  readonly sourceAmount: bigint
}

/**
 * Convert a destination amount into what the payer pays (fee mode `absorbed`: the fee is
 * absorbed into the source amount, so the merchant is credited the destination amount in
 * full). The rounding rule, applied once per component and always towards the payer:
 *
 * 1. converted = the destination amount at the mid-market rate, rounded UP to a whole
 *    source minor unit: the least source amount worth at least the destination amount;
 * 2. spread = converted x spread fraction, rounded UP;
 * 3. fee = fixed fee + converted x fee fraction, the proportional part rounded UP;
 * 4. source amount = converted + spread + fee.
 *
 * So the payer bears every partial minor unit (at most one per component), the merchant
 * is credited exactly the destination amount, and what the rounding leaves over (less than
 * one source minor unit per component) stays with the party that converts.
 *
 * @since 0.1.0
 */
export const quote = (input: QuoteInput): Quote => {
  if (input.destinationAmount <= 0n) throw new RangeError("Money.quote: the destination amount must be positive")
  if (!BigDecimal.isPositive(input.rate)) throw new RangeError("Money.quote: the rate must be positive")
  if (BigDecimal.isNegative(input.spread) || BigDecimal.isNegative(input.feeRate) || input.feeFixed < 0n) {
    throw new RangeError("Money.quote: spread and fees cannot be negative")
  }
  const rate = fraction(input.rate)
  // converted = D / 10^dd / rate * 10^sd = D * 10^sd * rate.den / (rate.num * 10^dd)
  const convertedAmount = ceilDiv(
    input.destinationAmount * pow10(input.sourceDigits) * rate.denominator,
    rate.numerator * pow10(input.destinationDigits)
  )
  const spread = fraction(input.spread)
  const spreadAmount = ceilDiv(convertedAmount * spread.numerator, spread.denominator)
  const fee = fraction(input.feeRate)
  const feeAmount = input.feeFixed + ceilDiv(convertedAmount * fee.numerator, fee.denominator)
  return { convertedAmount, spreadAmount, feeAmount, sourceAmount: convertedAmount + spreadAmount + feeAmount }
}

/**
 * The destination minor units a source amount is worth at the mid-market rate, rounded
 * DOWN (a fraction of a unit is never credited).
 *
 * @since 0.1.0
 */
export const valueAtRate = (
  sourceAmount: bigint,
  input: Pick<QuoteInput, "rate" | "sourceDigits" | "destinationDigits">
): bigint => {
  const rate = fraction(input.rate)
  return (sourceAmount * rate.numerator * pow10(input.destinationDigits)) / (rate.denominator * pow10(input.sourceDigits))
}

/**
 * What the merchant is credited when the payer paid `received` source minor units against
 * `quote`: the destination amount exactly once the quoted source amount arrived (the spread
 * and fee taken out first, the conversion's remainder never credited), nothing before. A
 * payment over the quote credits the destination amount too: the merchant asked for it,
 * and no more.
 *
 * @since 0.1.0
 */
export const credited = (input: QuoteInput, quoted: Quote, received: bigint): bigint => {
  if (received < quoted.sourceAmount) return 0n
  const worth = valueAtRate(received - quoted.spreadAmount - quoted.feeAmount, input)
  return worth < input.destinationAmount ? worth : input.destinationAmount
}
