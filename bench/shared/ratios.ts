/**
 * The ratio rows the A/B benches print: two contenders' medians, the one over the other, and
 * every round's own ratio, so a reader sees how steady the median's ratio is.
 */

/** Each round's `b / a`, to two places, in round order. */
export const roundRatios = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => b.map((x, i) => (x / a[i]!).toFixed(2)).join(", ")

/** A markdown row: the scenario, the median of `a` and of `b`, `b / a`, and every round's ratio. */
export const ratioRow = (name: string, a: ReadonlyArray<number>, b: ReadonlyArray<number>, median: (xs: ReadonlyArray<number>) => number) =>
  `| ${name} | ${median(a).toFixed(0)} | ${median(b).toFixed(0)} | ${(median(b) / median(a)).toFixed(3)} | ${roundRatios(a, b)} |\n`
