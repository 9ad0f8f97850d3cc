/**
 * `npm run bench`: drives the example server over loopback with autocannon, on the
 * in-memory store and on PostgreSQL, and compares every result with a ceiling measured
 * in the same run (a bare HttpApi endpoint; pgbench running the SQL of one create; on
 * PostgreSQL, the two ceilings of bench/postgres/ceilings.ts running Tender's own statements), and
 * another merchant's webhooks and confirms with one merchant's backlog standing against none (bench/http/backlog.ts).
 * Ratios are what to read: the machines are shared and absolute numbers drift.
 *
 *   npm run bench                    # both stores, writes docs/performance.md
 *   BENCH_SECONDS=10 npm run bench   # longer runs
 *   BENCH_STORES=memory npm run bench
 */
import { formatNumber, promptpay, testDatabaseUrl } from "@tender/repo-test-support"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir, totalmem } from "node:os"
import { join, resolve } from "node:path"
import { ceilingContenders, type CeilingRun, ceilingServers } from "../postgres/ceilings.js"
import { createScript } from "../postgres/pgbench-create.js"
import { connections, type Measured, measuredOf, ms, seconds } from "../shared/load.js"
import { readNotes } from "../shared/notes.js"
import { analyzePrefix, dropPrefix } from "../shared/pg-prefix.js"
import { type Contender, httpLoad, median, rounds, roundSeconds } from "../shared/rounds.js"
import { type Server, startServer, stopServer } from "../shared/server.js"
import { backlogComparison, type BacklogRun, backlogSection } from "./backlog.js"
import { createBody, deepPages, deepPageSize, demo, fill, type ScenarioKey, scenarios } from "./scenarios.js"
import { type ConfirmLatency, confirmToSucceeded, wakeupSection } from "./task-wakeups.js"

const root = resolve(import.meta.dirname, "..", "..")
const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? testDatabaseUrl
const stores = (process.env["BENCH_STORES"] ?? "memory,postgres").split(",")

/** Peak resident memory of a process, from /proc (Linux). */
const peakRssMiB = (pid: number): number | null => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return m ? Math.round(Number(m[1]) / 1024) : null
  } catch {
    return null
  }
}

/** pgbench running the SQL of one create (bench/postgres/pgbench-create.ts) on the tables under `prefix`. */
const pgbench = (prefix: string, duration = seconds): { tps: number; latencyMs: number } => {
  const script = join(mkdtempSync(join(tmpdir(), "tender-bench-")), "create.pgbench.sql")
  writeFileSync(script, createScript(prefix, promptpay))
  const out = execFileSync("pgbench", ["-n", "-c", String(connections), "-j", "2", "-T", String(duration), "-f", script, databaseUrl], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })
  const tps = /tps = ([\d.]+)/.exec(out)
  const lat = /latency average = ([\d.]+) ms/.exec(out)
  if (tps === null) throw new Error(`pgbench printed no tps:\n${out}`)
  return { tps: Number(tps[1]), latencyMs: lat ? Number(lat[1]) : NaN }
}

const loadLine = () => loadavg().map((x) => x.toFixed(2)).join(", ")

const main = async () => {
  const lines: Array<string> = []
  const say = (s: string) => {
    lines.push(s)
    process.stdout.write(s + "\n")
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${
    new Date().toISOString()
  }`
  say(`# Performance\n\nMeasured by \`npm run bench\` (bench/http/run.ts) on ${machine}, load average at the start ${loadLine()}.`)
  say(
    `autocannon, ${connections} connections, over loopback; every scenario in ${rounds} rounds of ${roundSeconds} s that alternate with what the scenario is compared with (the bare ceiling; on PostgreSQL also the two ceilings running its statements and, for a create, pgbench): the median round's req/s, p50 and p99 of every response. Ratios compare with a ceiling measured in the same rounds; read those, not the absolute numbers, which drift on shared machines.\n`
  )

  // The bare ceiling runs beside every store's server, and each scenario alternates with its
  // bare counterpart (bench/http/bare-server.ts): GET /noop for the reads, POST /noop for a create and
  // a replay, GET /page (a list page held as text) beside a list page of 25.
  const bare = await startServer("bench/http/bare-server.ts", {})
  const bareGet = httpLoad({ url: `${bare.url}/noop` })
  const barePost = httpLoad({ url: `${bare.url}/noop`, method: "POST", headers: { "content-type": "application/json" }, body: createBody })
  const barePage = httpLoad({ url: `${bare.url}/page` })
  const pageBytes = (await (await fetch(`${bare.url}/page`)).text()).length
  const table: Array<string> = []
  type Row = [store: string, scenario: string, m: Measured, ceiling: Measured, ceilingName: string]
  const rows: Array<Row> = []
  const bareSeen: { get: Array<Measured>; post: Array<Measured>; page: Array<Measured> } = { get: [], post: [], page: [] }
  let pg: { tps: number; latencyMs: number } | null = null
  const ceilings: Array<{ name: string; run: CeilingRun }> = []
  let tenderPg: Awaited<ReturnType<typeof scenarios>> | null = null
  let twoProcesses: Awaited<ReturnType<typeof scenarios>> | null = null
  const perStore = new Map<string, { readonly rss: number | null; readonly listDeep: number }>()
  const wakeups = new Map<string, ConfirmLatency>()
  const backlogs = new Map<string, { none: BacklogRun; standing: BacklogRun }>()
  let bareRss: number | null
  try {
    for (const store of stores) {
      const prefix = `bench_${Date.now().toString(36)}_`
      // The memory server must not pick up a DATABASE_URL from the environment.
      const env: Record<string, string> = store === "postgres" ? { DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefix } : { DATABASE_URL: "" }
      let server: Server
      try {
        server = await startServer("examples/server/dist/main.js", env)
      } catch (e) {
        table.push(`| ${store} | (not run: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}) | | | | | | | |`)
        continue
      }
      await fill(server.url, deepPages * deepPageSize + deepPageSize)
      if (store === "postgres") analyzePrefix(prefix, databaseUrl)
      wakeups.set(store, await confirmToSucceeded(server.url))
      // On PostgreSQL the two ceilings run Tender's statements on the same tables, beside it.
      const ceilingRunning = store === "postgres" ? await Promise.all(ceilingServers.map((c) => startServer(c.entry, env))) : []
      const pgbenchTimes: Array<number> = []
      const pgbenchRound: Contender = async (duration) => {
        const r = pgbench(prefix, duration)
        pgbenchTimes.push(r.latencyMs)
        return { rps: r.tps, p50: r.latencyMs, p99: NaN, non2xx: 0 }
      }
      let r: Awaited<ReturnType<typeof scenarios>>
      try {
        r = await scenarios([server.url], (firstId) => {
          const theirs = ceilingRunning.map((c) => ceilingContenders(c.url, firstId, { authorization: demo }, createBody))
          return {
            create: [barePost, ...theirs.map((t) => t.create), ...(store === "postgres" ? [pgbenchRound] : [])],
            replay: [barePost, ...theirs.map((t) => t.replay)],
            get: [bareGet, ...theirs.map((t) => t.get)],
            listFirst: [bareGet, barePage, ...theirs.map((t) => t.listFirst)],
            listShallow: [bareGet],
            listDeep: [bareGet]
          }
        })
      } finally {
        await Promise.all(ceilingRunning.map(stopServer))
      }
      const peak = peakRssMiB(server.child.pid!)
      await stopServer(server)
      const p = r.paired
      const nth = (key: ScenarioKey, i: number) => p[key]![i]!
      bareSeen.post.push(nth("create", 0), nth("replay", 0))
      bareSeen.get.push(nth("get", 0), nth("listFirst", 0), nth("listShallow", 0), nth("listDeep", 0))
      bareSeen.page.push(nth("listFirst", 1))
      if (store === "postgres") {
        const at = (key: "create" | "replay" | "get" | "listFirst", i: number) => nth(key, (key === "listFirst" ? 2 : 1) + i)
        ceilingServers.forEach((c, i) =>
          ceilings.push({ name: c.name, run: { create: at("create", i), replay: at("replay", i), get: at("get", i), listFirst: at("listFirst", i) } })
        )
        pg = { tps: nth("create", 1 + ceilingServers.length).rps, latencyMs: median(pgbenchTimes) }
        tenderPg = r
        // The same scenarios on two server processes sharing the tables, the load split.
        const pair = await Promise.all([startServer("examples/server/dist/main.js", env), startServer("examples/server/dist/main.js", env)])
        try {
          twoProcesses = await scenarios(pair.map((x) => x.url))
        } finally {
          await Promise.all(pair.map(stopServer))
          dropPrefix(prefix, databaseUrl)
        }
      }
      rows.push(
        ...(store === "postgres" && pg !== null
          ? [[store, "create (unique keys)", r.create, { rps: pg.tps, p50: NaN, p99: NaN, non2xx: 0 }, "pgbench create SQL"] as Row]
          : []),
        [store, "create (unique keys)", r.create, nth("create", 0), "bare POST"],
        [store, "idempotent replay", r.replay, nth("replay", 0), "bare POST"],
        [store, "get by id", r.get, nth("get", 0), "bare GET"],
        [store, "list first page (25)", r.listFirst, nth("listFirst", 0), "bare GET"],
        [store, `list page 1 (${deepPageSize})`, r.listShallow, nth("listShallow", 0), "bare GET"],
        [store, `list page ${deepPages} (${deepPageSize})`, r.listDeep, nth("listDeep", 0), "bare GET"]
      )
      perStore.set(store, { rss: peak, listDeep: r.listDeep.rps / r.listShallow.rps })
      // One merchant's backlog against another (bench/http/backlog.ts): servers of their own, after the load.
      backlogs.set(store, await backlogComparison(store, databaseUrl))
    }
  } finally {
    bareRss = peakRssMiB(bare.child.pid!)
    await stopServer(bare).catch(() => {})
  }
  for (const store of stores) {
    for (const [s, scenario, m, ceiling, ceilingName] of rows.filter((x) => x[0] === store)) {
      table.push(
        `| ${s} | ${scenario} | ${formatNumber(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${formatNumber(m.p99 / m.p50, 1)} | ${m.non2xx} | ${
          formatNumber(m.rps / ceiling.rps, 3)
        } | ${ceilingName} (${formatNumber(ceiling.rps)}) |`
      )
    }
    const seen = perStore.get(store)
    if (seen === undefined) continue
    table.push(`| ${store} | peak RSS of the server | ${seen.rss ?? "?"} MiB | | | | | | |`)
    table.push(`| ${store} | page ${deepPages} vs page 1 | | | | | | ${formatNumber(seen.listDeep, 3)} | same store, page 1 |`)
  }
  const range = (ms: ReadonlyArray<Measured>) =>
    ms.length === 0 ? "?" : `${formatNumber(Math.min(...ms.map((m) => m.rps)))} to ${formatNumber(Math.max(...ms.map((m) => m.rps)))} req/s`
  const pooled = (ms: ReadonlyArray<Measured>) => measuredOf(median(ms.map((m) => m.rps)), 0, ms.flatMap((m) => m.latencies ?? []))
  const get = pooled(bareSeen.get)
  const post = pooled(bareSeen.post)
  say(
    `Ceiling, the bare HttpApi endpoint doing nothing (bench/http/bare-server.ts), as measured beside each scenario: GET ${range(bareSeen.get)} (p50 ${
      ms(get.p50)
    } ms, p99 ${ms(get.p99)} ms), POST with a create-sized JSON body ${range(bareSeen.post)} (p50 ${ms(post.p50)} ms, p99 ${ms(post.p99)} ms)${
      bareRss === null ? "" : `, peak RSS ${bareRss} MiB`
    }.`
  )
  const pageRatio = bareSeen.page.map((m, i) => m.rps / (bareSeen.get[4 * i + 1]?.rps ?? NaN))
  say(
    `Floor of a list page: the same bare HttpApi answering a fixed page of 25 payment intents held as text (${
      formatNumber(pageBytes)
    } bytes), in the same rounds as the bare GET beside each store's list page of 25: ${
      pageRatio.map((x) => formatNumber(x, 3)).join(" and ")
    } of the bare GET, the most any list page of 25 can reach against it on this stack.`
  )
  say(`Load average (1, 5, 15 min) at the end: ${loadLine()}; the machine has ${cpus().length} cores and is shared, so read the ratios.`)
  if (pg !== null) {
    say(
      `Ceiling, pgbench running the SQL statements of one create (bench/postgres/pgbench-create.ts) with ${connections} clients, in the same rounds as Tender's create: ${
        formatNumber(pg.tps)
      } tx/s (median round), average latency ${formatNumber(pg.latencyMs, 2)} ms.`
    )
  }
  say("")
  say("| store | scenario | req/s | p50 ms | p99 ms | p99 / p50 | non-2xx | ratio to ceiling | ceiling (req/s in the same rounds) |")
  say("|---|---|---:|---:|---:|---:|---:|---:|---|")
  for (const line of table) say(line)
  if (tenderPg !== null && ceilings.length > 0) ceilingTable(say, tenderPg, ceilings)
  if (tenderPg !== null && twoProcesses !== null) twoProcessTable(say, tenderPg, twoProcesses, ceilings)
  targetsTable(say, { rows, tenderPg, twoProcesses, hand: ceilings.find((c) => c.name.startsWith("(b)"))?.run, pg })
  wakeupSection(say, wakeups)
  backlogSection(say, backlogs)
  if (process.argv.includes("--write")) {
    const path = resolve(root, "docs", "performance.md")
    const notes = readNotes(path)
    writeFileSync(path, lines.join("\n") + "\n" + notes)
    process.stdout.write(`\nwrote ${path}\n`)
  }
}

/** PostgreSQL against the ceilings running its own statements, and the issue's targets. */
const ceilingTable = (
  say: (s: string) => void,
  t: CeilingRun,
  ceilings: ReadonlyArray<{ name: string; run: CeilingRun }>
) => {
  const cell = (m: Measured) => `${formatNumber(m.rps)} (${ms(m.p50)} / ${ms(m.p99)})`
  say(`\n### PostgreSQL against its own stack\n`)
  say(
    `The same requests against Tender and against two servers that run exactly Tender's statements (bench/postgres/pg-statements.ts) on the same tables, pool of 10: ${
      ceilings.map((c) => c.name).join(", ")
    }. Each cell: req/s (p50 / p99 ms).\n`
  )
  say(
    `| scenario | Tender | ${ceilings.map((c) => c.name).join(" | ")} | ${
      ceilings.map((c) => `Tender / ${c.name.split(" ")[0]}`).join(" | ")
    } | (a) / (b) | Tender p99 / p50 |`
  )
  say(`|---|---:|${ceilings.map(() => "---:").join("|")}|${ceilings.map(() => "---:").join("|")}|---:|---:|`)
  const rows: Array<[string, keyof CeilingRun]> = [["get by id", "get"], ["list first page (25)", "listFirst"], ["create (unique keys)", "create"], [
    "idempotent replay",
    "replay"
  ]]
  for (const [name, k] of rows) {
    say(
      `| ${name} | ${cell(t[k])} | ${ceilings.map((c) => cell(c.run[k])).join(" | ")} | ${
        ceilings.map((c) => formatNumber(t[k].rps / c.run[k].rps, 3)).join(" | ")
      } | ${ceilings.length === 2 ? formatNumber(ceilings[0]!.run[k].rps / ceilings[1]!.run[k].rps, 3) : ""} | ${formatNumber(t[k].p99 / t[k].p50, 1)} |`
    )
  }
}

/** Two server processes on one database against one, and against the one-process ceilings. */
const twoProcessTable = (
  say: (s: string) => void,
  one: CeilingRun,
  two: CeilingRun,
  ceilings: ReadonlyArray<{ name: string; run: CeilingRun }>
) => {
  const cell = (m: Measured) => `${formatNumber(m.rps)} (${ms(m.p50)} / ${ms(m.p99)})`
  say(`\n### Two server processes on one database\n`)
  say(
    `The same scenarios with two demo server processes on the same tables, the ${connections} connections split between them (req/s summed; p50 and p99 of all their responses together). Each process caches credentials, route availability and webhook endpoints, cleared by LISTEN/NOTIFY.\n`
  )
  say(`| scenario | one process | two processes | two / one | ${ceilings.map((c) => `two / ${c.name.split(" ")[0]}`).join(" | ")} | two: p99 / p50 |`)
  say(`|---|---:|---:|---:|${ceilings.map(() => "---:").join("|")}|---:|`)
  const rows: Array<[string, keyof CeilingRun]> = [["get by id", "get"], ["list first page (25)", "listFirst"], ["create (unique keys)", "create"], [
    "idempotent replay",
    "replay"
  ]]
  for (const [name, k] of rows) {
    say(
      `| ${name} | ${cell(one[k])} | ${cell(two[k])} | ${formatNumber(two[k].rps / one[k].rps, 3)} | ${
        ceilings.map((c) => formatNumber(two[k].rps / c.run[k].rps, 3)).join(" | ")
      } | ${formatNumber(two[k].p99 / two[k].p50, 1)} |`
    )
  }
}

/** Every performance target (docs/performance.md) that `npm run bench` measures, as this run met it or not. */
const targetsTable = (
  say: (s: string) => void,
  run: {
    readonly rows: ReadonlyArray<readonly [store: string, scenario: string, m: Measured, ceiling: Measured, ceilingName: string]>
    readonly tenderPg: Awaited<ReturnType<typeof scenarios>> | null
    readonly twoProcesses: Awaited<ReturnType<typeof scenarios>> | null
    readonly hand: CeilingRun | undefined
    readonly pg: { readonly tps: number } | null
  }
) => {
  const line = (name: string, ratio: number, goal: string, met: boolean) =>
    say(`| ${name} | ${formatNumber(ratio, 3)} | ${goal} | ${met ? "met" : "not met"} |`)
  const at = (store: string, scenario: string, ceilingName: string) => run.rows.find((r) => r[0] === store && r[1] === scenario && r[4] === ceilingName)
  say(`\n### The targets in this run\n`)
  say("| target | ratio | goal | |")
  say("|---|---:|---:|---|")
  const { hand, pg, tenderPg: t } = run
  if (t !== null && hand !== undefined) line("PostgreSQL get / (b) hand-written server", t.get.rps / hand.get.rps, "≥ 1.0", t.get.rps / hand.get.rps >= 1)
  if (t !== null && pg !== null) line("PostgreSQL create / pgbench create SQL", t.create.rps / pg.tps, "≥ 0.5", t.create.rps / pg.tps >= 0.5)
  if (t !== null && hand !== undefined) {
    line("PostgreSQL list page of 25 / (b) hand-written server", t.listFirst.rps / hand.listFirst.rps, "≥ 0.8", t.listFirst.rps / hand.listFirst.rps >= 0.8)
  }
  const ratioRow = (store: string, scenario: string, ceilingName: string, label: string, goal: number) => {
    const r = at(store, scenario, ceilingName)
    if (r !== undefined) line(label, r[2].rps / r[3].rps, `≥ ${goal}`, r[2].rps / r[3].rps >= goal)
  }
  ratioRow("postgres", "idempotent replay", "bare POST", "PostgreSQL replay / bare POST", 0.5)
  ratioRow("memory", "create (unique keys)", "bare POST", "memory create / bare POST", 0.7)
  ratioRow("memory", "list first page (25)", "bare GET", "memory list page of 25 / bare GET", 0.8)
  // p99 ≤ 3 × p50 in every scenario: Tender's own, one process and two.
  const tails: Array<[string, Measured]> = [...new Map(run.rows.map((r) => [`${r[0]} ${r[1]}`, r[2]] as const))]
  const two = run.twoProcesses
  if (two !== null) {
    tails.push(["postgres, two processes, create", two.create], ["postgres, two processes, replay", two.replay], ["postgres, two processes, get", two.get], [
      "postgres, two processes, list page of 25",
      two.listFirst
    ])
  }
  const worst = tails.reduce<[string, number] | undefined>((w, [name, m]) => (w === undefined || m.p99 / m.p50 > w[1] ? [name, m.p99 / m.p50] : w), undefined)
  if (worst !== undefined) {
    const within = tails.filter(([, m]) => m.p99 / m.p50 <= 3).length
    line(`p99 / p50, the worst of ${tails.length} scenarios (${worst[0]}); ${within} within 3`, worst[1], "≤ 3", worst[1] <= 3)
  }
  // For scale, not a target: the same rule read on the bare endpoint that does nothing, beside each scenario.
  const bare = run.rows.filter((r) => r[4].startsWith("bare ")).map((r) => r[3].p99 / r[3].p50)
  if (bare.length > 0) {
    const within = bare.filter((x) => x <= 3).length
    say(
      `| for scale: the bare HttpApi ceiling's own p99 / p50, the worst of its ${bare.length} measurements beside the scenarios above; ${within} within 3 | ${
        formatNumber(Math.max(...bare), 3)
      } | | |`
    )
  }
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
  process.exit(1)
})
