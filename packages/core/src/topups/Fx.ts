/**
 * The ports a host provides for top-ups (2.5): exchange rates (`FxRates`) and fees
 * (`TopupFees`). Both are `Context.Tag`s; `layerStatic` / `layerStaticFees` are fixed tables
 * for tests and the test environment, and the default when a host provides none
 * (docs/topups.md says how to plug in a live rate source).
 *
 * @since 0.1.0
 */
import { BigDecimal, Context, Data, Effect, Layer, Option } from "effect"
import type { Environment } from "../resources/Schemas.js"
import { parseDecimal } from "./Money.js"

/** A rate for one currency pair. @since 0.1.0 @category models */
export interface FxQuote {
  /** Mid-market: destination major units for one source major unit; positive. */
  readonly rate: BigDecimal.BigDecimal
  /** The spread charged on the conversion, a fraction (0.005 = 0.5 %); zero for one currency. */
  readonly spread: BigDecimal.BigDecimal
}

/** The rate source could not answer now (a 503 to the caller, retryable). @since 0.1.0 @category errors */
export class FxUnavailable extends Data.TaggedError("FxUnavailable")<{ readonly reason: string }> {}

/**
 * Exchange rates, provided by the host. `quote` answers `None` for a pair it does not
 * convert (the top-up is refused with 422 `payment_configuration_unavailable`).
 *
 * @since 0.1.0 @category tags
 */
export class FxRates extends Context.Tag("@tender/core/FxRates")<FxRates, {
  readonly quote: (request: {
    readonly sourceCurrency: string
    readonly destinationCurrency: string
    readonly environment: Environment
  }) => Effect.Effect<Option.Option<FxQuote>, FxUnavailable>
}>() {}

/** A fee schedule: fixed part in source minor units plus a fraction of the converted amount. @since 0.1.0 @category models */
export interface FeeSchedule {
  readonly fixed: bigint
  readonly rate: BigDecimal.BigDecimal
}

/** Top-up fees, provided by the host, by source type, provider and source currency. @since 0.1.0 @category tags */
export class TopupFees extends Context.Tag("@tender/core/TopupFees")<TopupFees, {
  readonly fee: (request: {
    readonly sourceType: string
    readonly provider: string
    readonly sourceCurrency: string
    readonly environment: Environment
  }) => Effect.Effect<FeeSchedule>
}>() {}

const decimal = (s: string): BigDecimal.BigDecimal => Option.getOrThrowWith(parseDecimal(s), () => new Error(`Fx: ${JSON.stringify(s)} is not a plain decimal`))

/**
 * Fixed rates for the test environment and tests: `"USDT/THB": "36.25"` means one USDT is
 * 36.25 THB. Only listed pairs convert (plus every currency to itself at 1 with no spread):
 * an inverse is not derived, since 1 / rate is rarely a finite decimal.
 *
 * @since 0.1.0 @category models
 */
export const staticRates: Readonly<Record<string, string>> = {
  "USDT/THB": "36.25",
  "USDC/THB": "36.2",
  "ETH/THB": "118034.5",
  "BTC/THB": "3412345.67",
  "USD/THB": "36.3",
  "THB/USD": "0.02755",
  "USDT/USD": "0.9998",
  "THB/USDT": "0.027586",
  "JPY/THB": "0.2375",
  "KWD/THB": "118.09"
}

/** The spread `layerStatic` charges on a conversion between two currencies. @since 0.1.0 @category constants */
export const staticSpread = "0.005"

/** `FxRates` from a fixed table. @since 0.1.0 @category layers */
export const layerStatic = (options: { readonly rates?: Readonly<Record<string, string>>; readonly spread?: string } = {}) => {
  const rates = new Map(Object.entries(options.rates ?? staticRates).map(([pair, rate]) => [pair, decimal(rate)]))
  const spread = decimal(options.spread ?? staticSpread)
  return Layer.succeed(FxRates, {
    quote: ({ destinationCurrency, sourceCurrency }) => {
      if (sourceCurrency === destinationCurrency) {
        return Effect.succeed(Option.some({ rate: BigDecimal.fromBigInt(1n), spread: BigDecimal.fromBigInt(0n) }))
      }
      const rate = rates.get(`${sourceCurrency}/${destinationCurrency}`)
      return Effect.succeed(rate === undefined ? Option.none() : Option.some({ rate, spread }))
    }
  })
}

/**
 * Fees of the test environment: a test funding and a manual receipt are free; a provider
 * gateway charges 1 % of the converted amount.
 *
 * @since 0.1.0 @category constants
 */
export const staticFees: Readonly<Record<string, { readonly fixed: string; readonly rate: string }>> = {
  test_funding: { fixed: "0", rate: "0" },
  manual_receipt: { fixed: "0", rate: "0" },
  provider_gateway: { fixed: "0", rate: "0.01" }
}

/** `TopupFees` from a fixed table by source type. @since 0.1.0 @category layers */
export const layerStaticFees = (fees: Readonly<Record<string, { readonly fixed: string; readonly rate: string }>> = staticFees) =>
  Layer.succeed(TopupFees, {
    fee: ({ sourceType }) => {
      // Own entries only: a source type is request text, and `constructor` must not find Object's.
      const entry = Object.hasOwn(fees, sourceType) ? fees[sourceType] : undefined
      return Effect.succeed(
        entry === undefined
          ? { fixed: 0n, rate: BigDecimal.fromBigInt(0n) }
          : { fixed: BigInt(entry.fixed), rate: decimal(entry.rate) }
      )
    }
  })
