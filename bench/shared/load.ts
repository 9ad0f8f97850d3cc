/**
 * One HTTP load as every bench drives it: autocannon over loopback, each 2xx response's time
 * taken as measured. `BENCH_SECONDS` (default 5) and `BENCH_CONNECTIONS` (default 16) set it.
 */
import { formatNumber } from "@tender/repo-test-support"
import autocannon from "autocannon"

/** The seconds one scenario is measured for (over all its rounds, shared/rounds.ts). */
export const seconds = Number(process.env["BENCH_SECONDS"] ?? "5")
export const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "16")

export interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  /** Every 2xx response's time in ms, as measured (`load`). */
  readonly latencies?: ReadonlyArray<number>
}

/**
 * The latency percentile `q` of `sorted` (ascending), in milliseconds. autocannon's own
 * percentiles are whole milliseconds (its histogram truncates), so a p50 of 1.9 ms read as 1
 * and a p99 of 4.9 as 4: the rule p99 ≤ 3 × p50 (docs/performance.md) cannot be read off those
 * at these latencies. Each response's time is taken from its `response` event instead, as measured.
 */
const percentileOf = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

/** A load's figures from its req/s, its failures and every response's time. */
export const measuredOf = (rps: number, non2xx: number, latencies: ReadonlyArray<number>): Measured => {
  const sorted = Float64Array.from(latencies).sort()
  return { rps, p50: percentileOf(sorted, 0.5), p99: percentileOf(sorted, 0.99), non2xx, latencies }
}

export const load = async (opts: autocannon.Options): Promise<Measured> => {
  const latencies: Array<number> = []
  // Without a callback autocannon returns its tracker made thenable (lib/init.js); the types give only the promise.
  const run = autocannon({ duration: seconds, connections, ...opts }) as Promise<autocannon.Result> & Pick<autocannon.Instance, "on">
  // Only 2xx answers, as autocannon's own histogram counts them.
  run.on("response", (_client: unknown, status: number, _bytes: number, time: number) => {
    if (status >= 200 && status < 300) latencies.push(time)
  })
  const r = await run
  // Responses over the run's own measured duration: its per-second average has only two or three
  // samples in a round of two seconds.
  return measuredOf(r.requests.total / r.duration, r.non2xx + r.errors, latencies)
}

/**
 * The same load spread over several servers at once (the connections split evenly): requests per
 * second summed; p50 and p99 of every response of all of them.
 */
export const loadOn = async (urls: ReadonlyArray<string>, opts: (url: string) => autocannon.Options): Promise<Measured> => {
  if (urls.length === 1) return load(opts(urls[0]!))
  const parts = await Promise.all(urls.map((url) => load({ connections: Math.max(1, Math.round(connections / urls.length)), ...opts(url) })))
  return measuredOf(
    parts.reduce((sum, m) => sum + m.rps, 0),
    parts.reduce((sum, m) => sum + m.non2xx, 0),
    parts.flatMap((m) => m.latencies ?? [])
  )
}

/** A latency in milliseconds, to a hundredth. */
export const ms = (x: number) => formatNumber(x, 2)
