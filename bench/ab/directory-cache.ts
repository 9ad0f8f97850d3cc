/**
 * `npm run bench:cache`: what the directory cache buys on PostgreSQL, measured A/B in one run.
 * Two demo servers (built JavaScript) on the same tables, one with the cache off
 * (`TENDER_DIRECTORY_CACHE_MAX_AGE_MS=0`), one with the default; short autocannon runs alternate
 * between them, round after round, so that the machine's load drifts over both alike. Prints
 * the median req/s of each and the ratio cache on / cache off, per scenario.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:cache
 *   BENCH_ROUNDS=5 BENCH_SECONDS=3 BENCH_CONNECTIONS=16
 */
import { basic, demoKey, median, promptpay, startDemo, stopProcess, testDatabaseUrl } from "@tender/repo-test-support"
import autocannon from "autocannon"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { dropPrefix } from "../shared/pg-prefix.js"
import { ratioRow } from "../shared/ratios.js"

const root = resolve(import.meta.dirname, "..", "..")
const seconds = Number(process.env["BENCH_SECONDS"] ?? "3")
const rounds = Number(process.env["BENCH_ROUNDS"] ?? "5")
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "16")
const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? testDatabaseUrl
const authorization = basic(demoKey)
const prefix = `bench_cache_${Date.now().toString(36)}_`

const rps = async (opts: autocannon.Options) => (await autocannon({ duration: seconds, connections, ...opts })).requests.average

const start = (maxAge: string) =>
  startDemo({ DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefix, TENDER_DIRECTORY_CACHE_MAX_AGE_MS: maxAge }, {
    args: [resolve(root, "examples/server/dist/main.js")]
  })

const main = async () => {
  const load = () => loadavg().map((x) => x.toFixed(2)).join(", ")
  process.stdout.write(
    `directory cache A/B on PostgreSQL, ${rounds} rounds of ${seconds} s per scenario and server, ${connections} connections; load average at the start ${load()}\n`
  )
  const off = await start("0")
  const on = await start("5000")
  try {
    const created = await (await fetch(`${on.url}/payment_intents`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(promptpay)
    })).json() as { id: string }
    const scenarios: Record<string, (url: string) => autocannon.Options> = {
      "get by id": (url) => ({ url: `${url}/payment_intents/${created.id}`, headers: { authorization } }),
      "list first page (25)": (url) => ({ url: `${url}/payment_intents?limit=25`, headers: { authorization } })
    }
    const results: Record<string, { on: Array<number>; off: Array<number> }> = {}
    for (let round = 0; round < rounds; round++) {
      for (const [name, opts] of Object.entries(scenarios)) {
        const r = (results[name] ??= { on: [], off: [] })
        // Alternate which goes first, so neither always meets the same moment of the load.
        const order = round % 2 === 0 ? [["off", off], ["on", on]] as const : [["on", on], ["off", off]] as const
        for (const [which, server] of order) r[which].push(await rps(opts(server.url)))
      }
    }
    process.stdout.write(`\n| scenario | cache off (median req/s) | cache on (median req/s) | on / off | rounds on / off |\n|---|---:|---:|---:|---|\n`)
    for (const [name, r] of Object.entries(results)) process.stdout.write(ratioRow(name, r.off, r.on, median))
    process.stdout.write(`\nload average at the end ${load()}\n`)
  } finally {
    await Promise.all([stopProcess(off.child, "SIGINT"), stopProcess(on.child, "SIGINT")])
    dropPrefix(prefix, databaseUrl)
  }
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
  process.exit(1)
})
