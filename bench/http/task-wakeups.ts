/**
 * How soon a task written by a request runs: confirm → `succeeded`, measured over HTTP against a
 * running server (`npm run bench` calls it on each store's demo server; docs/payment-lifecycle.md,
 * "Workers"). Sequential, one intent at a time: each confirm writes a task due now, which an idle
 * worker runs only once something wakes it (LISTEN/NOTIFY on PostgreSQL, the store itself in
 * memory) or its poll comes round.
 *
 *   npm run bench:wakeups                              # both stores, the demo server from its sources
 *   tsx bench/http/task-wakeups.ts http://127.0.0.1:3000   # against a server already running
 */
import { basic, demoKey, promptpay, startDemo, stopProcess, testDatabaseUrl } from "@tender/repo-test-support"
import { pathToFileURL } from "node:url"
import { dropPrefix } from "../shared/pg-prefix.js"

const demo = basic(demoKey)

const call = async (url: string, method: string, body?: unknown, authorization = demo) => {
  const res = await fetch(url, {
    method,
    headers: { authorization, "content-type": "application/json" },
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
 * Create an intent, confirm it, and read it every 2 ms until it is `succeeded`; `n` times in a row,
 * as the merchant `authorization` names (the demo merchant's test key by default). A read that
 * never sees `succeeded` within `giveUpMillis` fails the run.
 */
export const confirmToSucceeded = async (url: string, n = 20, giveUpMillis = 30_000, authorization = demo): Promise<ConfirmLatency> => {
  const times: Array<number> = []
  for (let i = 0; i < n; i++) {
    const created = await call(`${url}/payment_intents`, "POST", promptpay, authorization)
    const start = performance.now()
    await call(`${url}/payment_intents/${created.id}/confirm`, "POST", undefined, authorization)
    for (;;) {
      const got = await call(`${url}/payment_intents/${created.id}`, "GET", undefined, authorization)
      if (got.status === "succeeded") break
      if (performance.now() - start > giveUpMillis) throw new Error(`${created.id} not succeeded after ${giveUpMillis} ms (${got.status})`)
      await new Promise((r) => setTimeout(r, 2))
    }
    times.push(performance.now() - start)
  }
  const sorted = [...times].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)]!, max: sorted[sorted.length - 1]!, n }
}

/**
 * The section of docs/performance.md: confirm → `succeeded` on each store, and PostgreSQL's
 * median against memory's in the same run (goal: within 3 ×, the workers woken by NOTIFY).
 */
export const wakeupSection = (say: (s: string) => void, measured: ReadonlyMap<string, ConfirmLatency>) => {
  if (measured.size === 0) return
  const ms = (x: number) => x.toFixed(1)
  say(`\n### Task wake-ups: confirm → succeeded\n`)
  say(
    `Sequential confirms on each store's demo server (bench/http/task-wakeups.ts): create, confirm, then read every 2 ms until \`succeeded\`; the time from the confirm's request to the first read that sees it. The task the confirm writes runs when the store wakes a worker (docs/payment-lifecycle.md, "Workers"), not at the workers' 5 s poll.\n`
  )
  say("| store | confirms | median ms | max ms |")
  say("|---|---:|---:|---:|")
  for (const [store, r] of measured) say(`| ${store} | ${r.n} | ${ms(r.median)} | ${ms(r.max)} |`)
  const memory = measured.get("memory")
  const postgres = measured.get("postgres")
  if (memory !== undefined && postgres !== undefined) {
    const ratio = postgres.median / memory.median
    say(`\nPostgreSQL / memory, median: ${ratio.toFixed(2)} (goal ≤ 3: ${ratio <= 3 ? "met" : "not met"}).`)
  }
}

/** Both stores' demo servers from the sources, one after the other, each measured then stopped. */
const both = async (n: number) => {
  const measured = new Map<string, ConfirmLatency>()
  for (const store of ["memory", "postgres"]) {
    const prefix = `bench_wake_${Date.now().toString(36)}_`
    const env: Record<string, string> = store === "postgres" ? { DATABASE_URL: testDatabaseUrl, TENDER_TABLE_PREFIX: prefix } : { DATABASE_URL: "" }
    const server = await startDemo(env, { args: ["--conditions=@tender/source", "--import", "tsx", "src/main.ts"] })
    try {
      measured.set(store, await confirmToSucceeded(server.url, n))
    } finally {
      await stopProcess(server.child, "SIGINT")
      if (store === "postgres") dropPrefix(prefix, testDatabaseUrl)
    }
  }
  return measured
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const n = Number(process.env["BENCH_CONFIRMS"] ?? "20")
  const url = process.argv[2]
  const run = url === undefined
    ? both(n).then((m) => wakeupSection((s) => void process.stdout.write(s + "\n"), m))
    : confirmToSucceeded(url, n).then((r) =>
      void process.stdout.write(`confirm → succeeded over ${r.n} intents: median ${r.median.toFixed(1)} ms, max ${r.max.toFixed(1)} ms\n`)
    )
  run.catch((e) => {
    process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
    process.exit(1)
  })
}
