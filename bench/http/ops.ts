/**
 * `npm run bench:ops`: how many steps Effect's fiber runtime takes to answer one request, for
 * each request `npm run bench` measures, beside the bare HttpApi ceiling (bench/http/bare-server.ts)
 * answering its GET, its POST and its fixed list page. The demo server (in memory, built
 * JavaScript) and the bare server run with bench/http/ops-count.mjs preloaded; requests are sent one
 * at a time after a warm-up, so the counts are exact and the same on every run and machine:
 * read them to see what a change to a request's Effect code costs, where shared machines make
 * times too noisy to see a difference of 10 % (docs/performance.md, "Measuring on a shared machine").
 *
 *   npm run bench:ops
 *   BENCH_OPS_REQUESTS=500 npm run bench:ops
 */
import { basic, demoKey, freePort, promptpay, spawnProcess, stopProcess, waitListening } from "@tender/repo-test-support"
import type { Spawned } from "@tender/repo-test-support"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const requests = Number(process.env["BENCH_OPS_REQUESTS"] ?? "200")
const preload = ["--import", resolve(root, "bench", "http", "ops-count.mjs")]
const authorization = basic(demoKey)
const createBody = JSON.stringify(promptpay)

interface Server {
  readonly spawned: Spawned
  readonly url: string
}

const start = async (args: ReadonlyArray<string>, what: string): Promise<Server> => {
  const port = await freePort()
  const spawned = spawnProcess(process.execPath, [...preload, ...args], { cwd: root, env: { ...process.env, PORT: String(port) } })
  await waitListening(spawned, what)
  return { spawned, url: `http://127.0.0.1:${port}` }
}

/** The counts since the last call: SIGUSR2, then the line it writes. */
const take = async (server: Server): Promise<Record<string, number>> => {
  const seen = (server.spawned.errors().match(/ops-count /g) ?? []).length
  server.spawned.child.kill("SIGUSR2")
  for (let i = 0; i < 200; i++) {
    const lines = server.spawned.errors().split("\n").filter((l) => l.startsWith("ops-count "))
    if (lines.length > seen) return JSON.parse(lines[lines.length - 1]!.slice("ops-count ".length)) as Record<string, number>
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error("no ops-count line")
}

/** Steps per request of `send`, after a warm-up of its own. */
const perRequest = async (server: Server, send: () => Promise<Response>) => {
  for (let i = 0; i < 50; i++) await (await send()).arrayBuffer()
  await take(server)
  for (let i = 0; i < requests; i++) {
    const res = await send()
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`answered ${res.status}`)
  }
  const counts = await take(server)
  const total = Object.values(counts).reduce((a, b) => a + b, 0)
  const top = Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 4)
    .map(([kind, n]) => `${kind} ${(n / requests).toFixed(0)}`).join(", ")
  return { steps: total / requests, top }
}

const tender = await start(["examples/server/dist/main.js"], "demo server")
const bare = await start(["--import", "tsx", "bench/http/bare-server.ts"], "bare server")
try {
  const post = (key?: string) =>
    fetch(`${tender.url}/payment_intents`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
      body: createBody
    })
  const first = (await (await post("ops-replay")).json()) as { id: string }
  for (let i = 0; i < 30; i++) await (await post()).arrayBuffer()
  let n = 0
  const rows: Array<readonly [string, { steps: number; top: string }, string, { steps: number }]> = []
  const bareGet = await perRequest(bare, () => fetch(`${bare.url}/noop`))
  const barePost = await perRequest(
    bare,
    () => fetch(`${bare.url}/noop`, { method: "POST", headers: { "content-type": "application/json" }, body: createBody })
  )
  const barePage = await perRequest(bare, () => fetch(`${bare.url}/page`))
  rows.push(["create (unique keys)", await perRequest(tender, () => post(`ops-${n++}`)), "bare POST", barePost])
  rows.push(["create without a key", await perRequest(tender, () => post()), "bare POST", barePost])
  rows.push(["idempotent replay", await perRequest(tender, () => post("ops-replay")), "bare POST", barePost])
  rows.push([
    "get by id",
    await perRequest(tender, () => fetch(`${tender.url}/payment_intents/${first.id}`, { headers: { authorization } })),
    "bare GET",
    bareGet
  ])
  rows.push([
    "list first page (25)",
    await perRequest(tender, () => fetch(`${tender.url}/payment_intents?limit=25`, { headers: { authorization } })),
    "bare fixed page",
    barePage
  ])
  rows.push(["GET /healthz", await perRequest(tender, () => fetch(`${tender.url}/healthz`)), "bare GET", bareGet])
  console.log(`Effect steps per request, ${requests} requests one at a time after 50 of warm-up (in memory, built JavaScript)\n`)
  console.log("| request | Tender | bare ceiling | Tender / bare | Tender's most frequent steps |")
  console.log("|---|---:|---:|---:|---|")
  for (const [name, t, baseName, b] of rows) {
    console.log(`| ${name} | ${t.steps.toFixed(0)} | ${b.steps.toFixed(0)} (${baseName}) | ${(t.steps / b.steps).toFixed(2)} | ${t.top} |`)
  }
} finally {
  await stopProcess(tender.spawned.child)
  await stopProcess(bare.spawned.child)
}
