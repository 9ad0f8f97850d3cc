/**
 * `npm run bench:ab -- <other checkout>`: this checkout's PostgreSQL create against another
 * checkout's (a worktree of `main`, built), measured A/B in one run (docs/performance.md, "Issue
 * 22: the create's webhook endpoints, cached"). Two demo servers (built JavaScript), each on
 * tables of its own prefix in one database; short autocannon runs alternate between them, round
 * after round and in alternating order, so the machine's load drifts over both alike. Prints the
 * median req/s of each, the ratio this / other, and every round's ratio, per scenario; and the
 * server process's CPU time per request (Linux `/proc/<pid>/stat`), which a loaded machine moves
 * much less than req/s: it counts the work done, not how soon the process got a core.
 *
 *   git worktree add --detach /tmp/main-wt main && (cd /tmp/main-wt && npm ci && npm run build)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:ab -- /tmp/main-wt
 *   BENCH_ROUNDS=7 BENCH_SECONDS=3 BENCH_CONNECTIONS=16
 */
import { basic, demoKey, promptpay, startDemo, stopProcess } from "@tender/repo-test-support"
import autocannon from "autocannon"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { dropPrefix } from "../shared/pg-prefix.js"
import { ratioRow } from "../shared/ratios.js"

const root = resolve(import.meta.dirname, "..", "..")
const other = process.argv[2]
const seconds = Number(process.env["BENCH_SECONDS"] ?? "3")
const rounds = Number(process.env["BENCH_ROUNDS"] ?? "7")
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "16")
const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const authorization = basic(demoKey)
const run = Date.now().toString(36)
const prefixes = { other: `bench_ab_o_${run}_`, this: `bench_ab_t_${run}_` }

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** User + system CPU of process `pid` in clock ticks (100 per second on Linux), from /proc. */
const cpuTicks = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // Fields 14 and 15 of stat(5) (utime, stime); the slice starts at field 3.
  return Number(fields[11]) + Number(fields[12])
}
const ticksPerSecond = 100

const start = (checkout: string, prefix: string) =>
  startDemo({ DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefix }, { args: [resolve(checkout, "examples/server/dist/main.js")] })

const main = async () => {
  if (other === undefined) throw new Error("usage: npm run bench:ab -- <path of another built checkout>")
  const load = () => loadavg().map((x) => x.toFixed(2)).join(", ")
  process.stdout.write(
    `create A/B on PostgreSQL: ${root} against ${
      resolve(other)
    }, ${rounds} rounds of ${seconds} s per scenario and server, ${connections} connections; load average at the start ${load()}\n`
  )
  const servers = { other: await start(resolve(other), prefixes.other), this: await start(root, prefixes.this) }
  try {
    const body = JSON.stringify(promptpay)
    let n = 0
    const scenarios: Record<string, (url: string) => autocannon.Options> = {
      "create (unique keys)": (url) => ({
        url: `${url}/payment_intents`,
        method: "POST",
        body,
        headers: { authorization, "content-type": "application/json" },
        setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, "idempotency-key": `ab-${run}-${++n}` } })
      })
    }
    const results: Record<string, { this: Array<number>; other: Array<number> }> = {}
    const cpu: Record<string, { this: Array<number>; other: Array<number> }> = {}
    for (let round = 0; round < rounds; round++) {
      for (const [name, opts] of Object.entries(scenarios)) {
        const r = (results[name] ??= { this: [], other: [] })
        const c = (cpu[name] ??= { this: [], other: [] })
        const order = round % 2 === 0 ? (["other", "this"] as const) : (["this", "other"] as const)
        for (const which of order) {
          const pid = servers[which].child.pid!
          const before = cpuTicks(pid)
          const result = await autocannon({ duration: seconds, connections, ...opts(servers[which].url) })
          if (result.non2xx > 0 || result.errors > 0) throw new Error(`${which}: ${result.non2xx} non-2xx, ${result.errors} errors`)
          r[which].push(result.requests.average)
          c[which].push(((cpuTicks(pid) - before) / ticksPerSecond) * 1e6 / result.requests.total)
        }
      }
    }
    process.stdout.write(`\n| scenario | other (median req/s) | this (median req/s) | this / other | rounds, this / other |\n|---|---:|---:|---:|---|\n`)
    for (const [name, r] of Object.entries(results)) process.stdout.write(ratioRow(name, r.other, r.this, median))
    process.stdout.write(`\n| scenario | other (median CPU µs per request) | this | this / other | rounds, this / other |\n|---|---:|---:|---:|---|\n`)
    for (const [name, c] of Object.entries(cpu)) process.stdout.write(ratioRow(name, c.other, c.this, median))
    process.stdout.write(`\nload average at the end ${load()}\n`)
  } finally {
    await Promise.all([stopProcess(servers.other.child, "SIGINT"), stopProcess(servers.this.child, "SIGINT")])
    for (const prefix of Object.values(prefixes)) dropPrefix(prefix, databaseUrl)
  }
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
  process.exit(1)
})
