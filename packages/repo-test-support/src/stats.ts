/**
 * Numbers as the benchmarks report them.
 */

/** The middle sample (the upper of the two middle ones for an even count): robust to a stray slow run. */
export const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** `n` with thousands separators and exactly `digits` decimals, as the reports print figures. */
export const formatNumber = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
