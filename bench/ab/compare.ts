/**
 * `npm run bench:compare`: the working tree against a git revision, A/B in one run, on every
 * request the performance targets name (`bench:ab`, bench/ab/create-ab.ts, is the PostgreSQL create
 * alone against a checkout given by path). Both demo servers run from built JavaScript (the working tree's `npm run build`; the revision checked out in a
 * worktree of its own under the temp directory, `npm ci` and built once, then reused), with the
 * bare HttpApi ceiling (bench/http/bare-server.ts) beside them. Short autocannon runs alternate between
 * the servers, round after round and in alternating order, so the machine's load drifts over all
 * of them alike. Prints, per scenario, the median req/s, p50 and p99 of each, the ratio working
 * tree / revision, the ratio of each to the bare ceiling, and the ratio of every round; and the
 * server's own CPU time per request (from /proc, Linux), which a loaded machine moves much less
 * than throughput: a server waiting for a core serves fewer requests but spends no more CPU on each.
 *
 *   npm run bench:compare                               # against main, in memory
 *   BENCH_BASE=HEAD~3 npm run bench:compare
 *   BENCH_BASE_DIR=/tmp/checkout npm run bench:compare  # a checkout already built (BENCH_BASE ignored)
 *   BENCH_HEAD_DIR=/tmp/other npm run bench:compare     # a built checkout in the working tree's place (two revisions, e.g. to bisect)
 *   BENCH_STORE=postgres DATABASE_URL=… npm run bench:compare
 *   BENCH_ROUNDS=5 BENCH_SECONDS=3 BENCH_CONNECTIONS=16 BENCH_SCENARIOS=create,list
 *   BENCH_CREATES=1000   # requests per create round (a count, so both stores grow alike)
 */
import { basic, demoKey, freePort, median, promptpay, spawnProcess, stopProcess, testDatabaseUrl, waitListening } from "@tender/repo-test-support"
import autocannon from "autocannon"
import type { ChildProcess } from "node:child_process"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { dropPrefix } from "../shared/pg-prefix.js"
import { roundRatios } from "../shared/ratios.js"

const root = resolve(import.meta.dirname, "..", "..")
const seconds = Number(process.env["BENCH_SECONDS"] ?? "3")
const rounds = Number(process.env["BENCH_ROUNDS"] ?? "5")
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? "16")
// A create round is a fixed number of requests, not a fixed time: both stores then grow alike, and
// the later scenarios meet heaps of the same size (a faster server would otherwise hold more).
const creates = Number(process.env["BENCH_CREATES"] ?? "1000")
const store = process.env["BENCH_STORE"] === "postgres" ? "postgres" : "memory"
const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? testDatabaseUrl
const authorization = basic(demoKey)
const createBody = JSON.stringify(promptpay)

const git = (args: ReadonlyArray<string>, cwd = root) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim()

/** The revision's checkout, built: made on first use, reused after (its folder is named by the commit). */
const baseCheckout = (): { dir: string; label: string } => {
  const given = process.env["BENCH_BASE_DIR"]
  if (given !== undefined && given !== "") return { dir: resolve(given), label: `${given} (${git(["rev-parse", "--short", "HEAD"], given)})` }
  const rev = process.env["BENCH_BASE"] ?? "main"
  const commit = git(["rev-parse", "--verify", `${rev}^{commit}`])
  const dir = join(tmpdir(), `tender-ab-${commit.slice(0, 12)}`)
  if (!existsSync(join(dir, "examples", "server", "dist", "main.js"))) {
    process.stdout.write(`checking out and building ${rev} (${commit.slice(0, 12)}) in ${dir}\n`)
    if (!existsSync(dir)) git(["worktree", "add", "--detach", dir, commit])
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
    execFileSync("npm", ["run", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
  }
  return { dir, label: `${rev} (${commit.slice(0, 12)})` }
}

interface Server {
  readonly url: string
  readonly child: ChildProcess
}

/** A server from `dir`'s built demo (or a TypeScript entry through tsx), on a free port. */
const start = async (dir: string, entry: string, env: Record<string, string>): Promise<Server> => {
  const port = await freePort()
  const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : []
  const server = spawnProcess(process.execPath, [...loader, entry], { cwd: dir, env: { ...process.env, ...env, PORT: String(port) } })
  await waitListening(server, `${dir}/${entry}`)
  return { url: `http://127.0.0.1:${port}`, child: server.child }
}

const post = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/payment_intents`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json", ...headers },
    body: createBody
  })
  if (res.status !== 201) throw new Error(`POST ${url}/payment_intents: ${res.status} ${await res.text()}`)
  return (await res.json()) as { id: string }
}

interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly bad: number
  /** The server's CPU time (user + system) per request answered, in microseconds; NaN off Linux. */
  readonly cpuMicros: number
}

/** The CPU time a process has used, in seconds (fields 14 and 15 of /proc/<pid>/stat, at 100 ticks a second). */
const cpuSeconds = (pid: number | undefined): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN
  }
}

const measure = async (server: Server, opts: autocannon.Options): Promise<Measured> => {
  const before = cpuSeconds(server.child.pid)
  const r = await autocannon(opts.amount === undefined ? { duration: seconds, connections, ...opts } : { connections, ...opts })
  const cpu = cpuSeconds(server.child.pid) - before
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors, cpuMicros: (cpu * 1e6) / r.requests.total }
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(", ")

/** The scenarios of one Tender server: what `setup` prepared (an intent to get, a key to replay). */
const scenarios = (run: string) => {
  let n = 0
  return {
    create: (url: string) => ({
      url: `${url}/payment_intents`,
      method: "POST" as const,
      headers: { authorization, "content-type": "application/json" },
      body: createBody,
      amount: creates,
      requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, "idempotency-key": `ab-${run}-${++n}` } }) }]
    }),
    replay: (url: string) => ({
      url: `${url}/payment_intents`,
      method: "POST" as const,
      headers: { authorization, "content-type": "application/json", "idempotency-key": `ab-${run}-replay` },
      body: createBody
    }),
    get: (url: string, id: string) => ({ url: `${url}/payment_intents/${id}`, headers: { authorization } }),
    list: (url: string) => ({ url: `${url}/payment_intents?limit=25`, headers: { authorization } })
  }
}

/** Which bare request a scenario is measured against. */
const ceilingOf = { create: "POST", replay: "POST", get: "GET", list: "GET" } as const
const titles = { create: "create (unique keys)", replay: "idempotent replay", get: "get by id", list: "list first page (25)" } as const
type Scenario = keyof typeof ceilingOf

/** The side measured against the base: the working tree, or the built checkout `BENCH_HEAD_DIR` names. */
const headCheckout = (): { dir: string; label: string } => {
  const given = process.env["BENCH_HEAD_DIR"]
  if (given !== undefined && given !== "") return { dir: resolve(given), label: `${given} (${git(["rev-parse", "--short", "HEAD"], given)})` }
  const changed = git(["status", "--porcelain", "--untracked-files=no"]) === "" ? "" : ", with changes"
  return { dir: root, label: `working tree (${git(["rev-parse", "--short", "HEAD"])}${changed})` }
}

const main = async () => {
  const base = baseCheckout()
  const { dir: headDir, label: head } = headCheckout()
  const chosen = (process.env["BENCH_SCENARIOS"] ?? "create,replay,get,list").split(",").filter((s): s is Scenario => s in ceilingOf)
  process.stdout.write(
    `A/B on the ${store} store: ${head} against ${base.label}; ${rounds} rounds of ${seconds} s per scenario and server ` +
      `(${creates} requests per create round), ` +
      `${connections} connections; load average at the start ${load()}\n`
  )
  const run = `${process.pid}-${Date.now().toString(36)}`
  const prefixes = { a: `bench_ab_a_${Date.now().toString(36)}_`, b: `bench_ab_b_${Date.now().toString(36)}_` }
  const env = (side: "a" | "b"): Record<string, string> =>
    store === "postgres" ? { DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefixes[side] } : { DATABASE_URL: "", MONGODB_URL: "" }
  const servers: Array<Server> = []
  try {
    const bare = await start(root, "bench/http/bare-server.ts", {})
    servers.push(bare)
    const a = await start(base.dir, "examples/server/dist/main.js", env("a"))
    servers.push(a)
    const b = await start(headDir, "examples/server/dist/main.js", env("b"))
    servers.push(b)
    const sides = { base: a, head: b } as const
    const ids: Record<"base" | "head", string> = { base: "", head: "" }
    for (const side of ["base", "head"] as const) {
      const url = sides[side].url
      ids[side] = (await post(url)).id
      for (let i = 0; i < 29; i++) await post(url)
      await post(url, { "idempotency-key": `ab-${run}-replay` })
    }
    const s = scenarios(run)
    const results: Record<string, { base: Array<Measured>; head: Array<Measured> }> = {}
    const bareResults: Record<"GET" | "POST", Array<Measured>> = { GET: [], POST: [] }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["base", "head"] as const) : (["head", "base"] as const)
      for (const method of ["GET", "POST"] as const) {
        bareResults[method].push(
          await measure(
            bare,
            method === "GET" ? { url: `${bare.url}/noop` } : {
              url: `${bare.url}/noop`,
              method: "POST",
              headers: { "content-type": "application/json" },
              body: createBody
            }
          )
        )
      }
      for (const name of chosen) {
        const r = (results[name] ??= { base: [], head: [] })
        for (const side of order) {
          const url = sides[side].url
          r[side].push(await measure(sides[side], name === "get" ? s.get(url, ids[side]) : s[name](url)))
        }
      }
    }
    const bareRps = { GET: median(bareResults.GET.map((m) => m.rps)), POST: median(bareResults.POST.map((m) => m.rps)) }
    const cell = (ms: ReadonlyArray<Measured>) =>
      `${median(ms.map((m) => m.rps)).toFixed(0)} (${median(ms.map((m) => m.p50))} / ${median(ms.map((m) => m.p99))})`
    const bareCpu = { GET: median(bareResults.GET.map((m) => m.cpuMicros)), POST: median(bareResults.POST.map((m) => m.cpuMicros)) }
    process.stdout.write(
      `\nbare HttpApi ceiling: GET ${bareRps.GET.toFixed(0)} req/s (${bareCpu.GET.toFixed(0)} µs of CPU per request), ` +
        `POST ${bareRps.POST.toFixed(0)} req/s (${bareCpu.POST.toFixed(0)} µs) (medians)\n\n` +
        `Each cell: median req/s (median p50 / median p99, ms).\n\n` +
        `| scenario | ${base.label} | working tree | working tree / base | base / bare | working tree / bare | rounds, working tree / base | non-2xx |\n` +
        `|---|---:|---:|---:|---:|---:|---|---:|\n`
    )
    for (const name of chosen) {
      const r = results[name]!
      const rb = median(r.base.map((m) => m.rps))
      const rh = median(r.head.map((m) => m.rps))
      const ceiling = bareRps[ceilingOf[name]]
      const perRound = roundRatios(r.base.map((m) => m.rps), r.head.map((m) => m.rps))
      const bad = [...r.base, ...r.head].reduce((sum, m) => sum + m.bad, 0)
      process.stdout.write(
        `| ${titles[name]} | ${cell(r.base)} | ${cell(r.head)} | ${(rh / rb).toFixed(3)} | ${(rb / ceiling).toFixed(3)} | ${
          (rh / ceiling).toFixed(3)
        } | ${perRound} | ${bad} |\n`
      )
    }
    process.stdout.write(
      `\nThe server's CPU time per request (medians, µs), and the bare ceiling's over it: the share of a bare request's cost.\n\n` +
        `| scenario | ${base.label} | working tree | working tree / base | bare / base | bare / working tree | rounds, working tree / base |\n` +
        `|---|---:|---:|---:|---:|---:|---|\n`
    )
    for (const name of chosen) {
      const r = results[name]!
      const cb = median(r.base.map((m) => m.cpuMicros))
      const ch = median(r.head.map((m) => m.cpuMicros))
      const ceiling = bareCpu[ceilingOf[name]]
      const perRound = roundRatios(r.base.map((m) => m.cpuMicros), r.head.map((m) => m.cpuMicros))
      process.stdout.write(
        `| ${titles[name]} | ${cb.toFixed(0)} | ${ch.toFixed(0)} | ${(ch / cb).toFixed(3)} | ${(ceiling / cb).toFixed(3)} | ${
          (ceiling / ch).toFixed(3)
        } | ${perRound} |\n`
      )
    }
    process.stdout.write(`\nload average at the end ${load()}\n`)
  } finally {
    await Promise.all(servers.map((server) => stopProcess(server.child, "SIGINT")))
    if (store === "postgres") { for (const prefix of Object.values(prefixes)) dropPrefix(prefix, databaseUrl) }
  }
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
  process.exit(1)
})
