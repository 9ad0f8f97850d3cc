/**
 * Contenders measured in alternating rounds, so that a ratio is of two loads taken seconds apart,
 * several times, rather than of two single runs minutes apart. `BENCH_ROUNDS` (default 3) sets
 * the rounds; each round gets the scenario's `BENCH_SECONDS` shared out over them.
 */
import type autocannon from "autocannon"
import { load, type Measured, measuredOf, seconds } from "./load.js"

/** One contender's load for a given number of seconds: a server under a request, or pgbench. */
export type Contender = (seconds: number) => Promise<Measured>

/** An HTTP load as a contender. */
export const httpLoad = (opts: autocannon.Options): Contender => (duration) => load({ ...opts, duration })

export const rounds = Math.max(1, Number(process.env["BENCH_ROUNDS"] ?? "3"))
/** Each round's seconds: the scenario's seconds shared out over the rounds. */
export const roundSeconds = Math.max(1, Math.round(seconds / rounds))

/** The middle sample, or the mean of the two middle ones for an even count. */
export const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * Every contender measured in `rounds` rounds that alternate between them, each round in a
 * rotated order. On this shared 2-core machine the same load read 2,176 and 4,189 req/s a few
 * minutes apart (docs/performance.md, "Measuring on a shared machine"). Per contender: the median of its
 * rounds' req/s, and p50 and p99 of all its responses.
 */
export const interleaved = async (contenders: ReadonlyArray<Contender>): Promise<Array<Measured>> => {
  const runs = contenders.map((): Array<Measured> => [])
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < contenders.length; i++) {
      const c = (i + r) % contenders.length
      runs[c]!.push(await contenders[c]!(roundSeconds))
    }
  }
  return runs.map((ms) => measuredOf(median(ms.map((m) => m.rps)), ms.reduce((sum, m) => sum + m.non2xx, 0), ms.flatMap((m) => m.latencies ?? [])))
}
