/**
 * How soon a task written by a request runs: confirm → `succeeded`, measured over HTTP against a
 * running server (`npm run bench` calls it on each store's demo server; docs/payment-lifecycle.md,
 * "Workers"). Sequential, one intent at a time: each confirm writes a task due now, which an idle
 * worker runs only once something wakes it (LISTEN/NOTIFY on PostgreSQL, the store itself in
 * memory) or its poll comes round.
 *
 *   tsx bench/task-wakeups.ts http://127.0.0.1:3000   # against a server already running
 */
import { basic, demoKey, promptpay } from "@tender/test-support"
import { pathToFileURL } from "node:url"

const demo = basic(demoKey)

const call = async (url: string, method: string, body?: unknown) => {
  const res = await fetch(url, {
    method,
    headers: { authorization: demo, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<{ readonly id: string; readonly status: string }>
}

/** The median and the worst of `n` confirms' times to `succeeded`, in milliseconds. */
export interface ConfirmLatency {
  readonly median: number
  readonly max: number
  readonly n: number
}

/**
 * Create an intent, confirm it, and read it every 2 ms until it is `succeeded`; `n` times in a row.
 * A read that never sees `succeeded` within `giveUpMillis` fails the run.
 */
export const confirmToSucceeded = async (url: string, n = 20, giveUpMillis = 30_000): Promise<ConfirmLatency> => {
  const times: Array<number> = []
  for (let i = 0; i < n; i++) {
    const created = await call(`${url}/payment_intents`, "POST", promptpay)
    const start = performance.now()
    await call(`${url}/payment_intents/${created.id}/confirm`, "POST")
    for (;;) {
      const got = await call(`${url}/payment_intents/${created.id}`, "GET")
      if (got.status === "succeeded") break
      if (performance.now() - start > giveUpMillis) throw new Error(`${created.id} not succeeded after ${giveUpMillis} ms (${got.status})`)
      await new Promise((r) => setTimeout(r, 2))
    }
    times.push(performance.now() - start)
  }
  const sorted = [...times].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)]!, max: sorted[sorted.length - 1]!, n }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const url = process.argv[2] ?? "http://127.0.0.1:3000"
  confirmToSucceeded(url, Number(process.env["BENCH_CONFIRMS"] ?? "20")).then(
    (r) => process.stdout.write(`confirm → succeeded over ${r.n} intents: median ${r.median.toFixed(1)} ms, max ${r.max.toFixed(1)} ms\n`),
    (e) => {
      process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
      process.exit(1)
    }
  )
}
