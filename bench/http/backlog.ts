/**
 * One merchant's backlog against another merchant's webhooks and payments (issue 44;
 * docs/webhooks.md, "Fairness"): on a demo server with merchant A's backlog standing as the
 * backlog test stands it (test-support `standBacklog`: 9 endpoints on real loopback receivers, 4
 * that never answer, 1 that answers after 2.5 s, 4 at once; 300 intents; 40 resends), merchant B
 * with one healthy endpoint creates intents and confirms payments: the delay of B's events (from
 * their `created_at` to their arrival) and B's confirm → `succeeded`, against a server on the same
 * store with no backlog, in the same run. `npm run bench` reports it per store; alone:
 *
 *   npm run bench:backlog                    # both stores
 *   BENCH_STORES=memory npm run bench:backlog
 */
import { basic, closeReceivers, demoKey, type Key, promptpay, receiver, standBacklog, testDatabaseUrl } from "@tender/repo-test-support"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { dropPrefix } from "../shared/pg-prefix.js"
import { startServer, stopServer } from "../shared/server.js"
import { type ConfirmLatency, confirmToSucceeded } from "./task-wakeups.js"

const root = resolve(import.meta.dirname, "..", "..")

/** Merchant B: the demo merchant's routes under a merchant and test key of its own. */
const keyOfB: Key = { public: "pk_test_benchBacklogB1", secret: "sk_test_benchBacklogSecretB1x" }

/** The demo seed with merchant B beside the demo merchant (A), written to a file for TENDER_SEED. */
const seedWithB = (): string => {
  const seed = JSON.parse(readFileSync(resolve(root, "examples", "server", "seed.json"), "utf8"))
  const demo = seed.merchants[0]
  seed.merchants.push({
    ...demo,
    id: "mch_bench_b",
    name: "Bench B",
    api_keys: [{ id: "key_bench_b", public_key: keyOfB.public, secret_key: keyOfB.secret }],
    routes: demo.routes.map((r: { id: string }) => ({ ...r, id: `${r.id}_b` }))
  })
  const path = join(mkdtempSync(join(tmpdir(), "tender-backlog-")), "seed.json")
  writeFileSync(path, JSON.stringify(seed))
  return path
}

const callOk = (url: string) => async (method: string, path: string, body: unknown, key: Key) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: basic(key), "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** B's delivery delays (median and worst of `events`, ms) and confirm → succeeded. */
export interface BacklogRun {
  readonly delivery: { readonly median: number; readonly max: number; readonly n: number }
  readonly confirm: ConfirmLatency
}

const medianOf = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** One server on `env`'s store, with A's backlog standing or not; B measured. */
const measure = async (env: Record<string, string>, backlog: boolean, events = 20, confirms = 10): Promise<BacklogRun> => {
  const server = await startServer("examples/server/dist/main.js", { ...env, TENDER_SEED: seedWithB() })
  const r = await receiver()
  try {
    const ok = callOk(server.url)
    if (backlog) await standBacklog(ok, demoKey, r.url)
    await ok("POST", "/webhook_endpoints", { url: r.url("/b") }, keyOfB)
    // Each intent writes two events (created, requires_action): `events` of them, one intent at a time.
    for (let i = 0; i < events / 2; i++) await ok("POST", "/payment_intents", promptpay, keyOfB)
    const listed = (await ok("GET", `/events?limit=${events}`, undefined, keyOfB)).data as Array<{ id: string; created_at: string }>
    const arrivalOf = (id: string) => r.received.find((x) => x.path === "/b" && JSON.parse(x.body).id === id)?.at
    const giveUp = Date.now() + 120_000
    while (listed.some((e) => arrivalOf(e.id) === undefined) && Date.now() < giveUp) await new Promise((ok) => setTimeout(ok, 20))
    const delays = listed.map((e) => (arrivalOf(e.id) ?? Infinity) - Date.parse(e.created_at))
    const confirm = await confirmToSucceeded(server.url, confirms, 60_000, basic(keyOfB))
    return { delivery: { median: medianOf(delays), max: Math.max(...delays), n: delays.length }, confirm }
  } finally {
    await stopServer(server)
    closeReceivers()
  }
}

/** On one store: with A's backlog and without, each on a fresh server (and, on PostgreSQL, fresh tables). */
export const backlogComparison = async (store: string, databaseUrl: string) => {
  const run = async (backlog: boolean) => {
    const prefix = `bench_backlog_${Date.now().toString(36)}_`
    const env: Record<string, string> = store === "postgres" ? { DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefix } : { DATABASE_URL: "" }
    try {
      return await measure(env, backlog)
    } finally {
      if (store === "postgres") dropPrefix(prefix, databaseUrl)
    }
  }
  const none = await run(false)
  const standing = await run(true)
  return { none, standing }
}

/** The section of docs/performance.md: B with A's backlog standing against B alone, per store. */
export const backlogSection = (say: (s: string) => void, measured: ReadonlyMap<string, { none: BacklogRun; standing: BacklogRun }>) => {
  if (measured.size === 0) return
  const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "never")
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  say(`\n### One merchant's backlog against another merchant (issue 44)\n`)
  say(
    `bench/http/backlog.ts: merchant A's backlog standing as the test \`BacklogIsolation\` stands it (9 endpoints on real loopback receivers: 4 never answer, 1 answers after 2.5 s, 4 at once; 300 intents; 40 resends), then merchant B, one healthy endpoint, creates intents one at a time (20 events) and confirms 10 payments in turn. Delay: an event's \`created_at\` to its arrival at B's receiver. Against the same on a fresh server with no backlog, in the same run.\n`
  )
  say(
    "| store | B's delivery delay, median ms (no backlog) | worst ms (no backlog) | median ratio | confirm → succeeded median ms (no backlog) | worst ms (no backlog) | median ratio |"
  )
  say("|---|---:|---:|---:|---:|---:|---:|")
  for (const [store, { none, standing }] of measured) {
    say(
      `| ${store} | ${ms(standing.delivery.median)} (${ms(none.delivery.median)}) | ${ms(standing.delivery.max)} (${ms(none.delivery.max)}) | ${
        ratio(standing.delivery.median, none.delivery.median)
      } | ${ms(standing.confirm.median)} (${ms(none.confirm.median)}) | ${ms(standing.confirm.max)} (${ms(none.confirm.max)}) | ${
        ratio(standing.confirm.median, none.confirm.median)
      } |`
    )
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const stores = (process.env["BENCH_STORES"] ?? "memory,postgres").split(",")
  const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? testDatabaseUrl
  const main = async () => {
    const measured = new Map<string, { none: BacklogRun; standing: BacklogRun }>()
    for (const store of stores) measured.set(store, await backlogComparison(store, databaseUrl))
    backlogSection((s) => void process.stdout.write(s + "\n"), measured)
    process.exit(0)
  }
  main().catch((e) => {
    process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
    process.exit(1)
  })
}
