/**
 * `npm run bench:profile`: runs the example server under `--cpu-prof`, drives one kind of
 * request at it, and prints the functions and packages with the most self time.
 * `BENCH_PROFILE` picks the request: `create` (the default, unique idempotency keys), `replay`
 * (one key, answered from its stored response), `get` (one intent by id) or `list` (the first
 * page of 25, after 30 creates). In memory by default; on PostgreSQL:
 * `DATABASE_URL=… TENDER_TABLE_PREFIX=bench_prof_ BENCH_PROFILE=get npm run bench:profile`.
 * `BENCH_PROFILE_DIR=/tmp/tender-ab-<commit>` profiles that built checkout's server instead.
 */
import { basic, demoKey, freePort, promptpayNamed } from "@tender/repo-test-support"
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

// BENCH_PROFILE_DIR: another checkout, built (e.g. bench:compare's base under the temp directory), to diff the two.
const root = resolve(process.env["BENCH_PROFILE_DIR"] ?? resolve(import.meta.dirname, "..", ".."))
const seconds = Number(process.env["BENCH_SECONDS"] ?? "8")
const scenarios = ["create", "replay", "get", "list"] as const
const scenario = scenarios.find((s) => s === process.env["BENCH_PROFILE"]) ?? "create"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly hitCount: number
  readonly children?: ReadonlyArray<number>
}

const port = await freePort()
const dir = mkdtempSync(join(tmpdir(), "tender-prof-"))
const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, "examples/server/dist/main.js"], {
  cwd: root,
  env: { ...process.env, PORT: String(port) },
  stdio: ["ignore", "pipe", "inherit"]
})
let out = ""
child.stdout.on("data", (d) => (out += d))
while (!out.includes("listening on")) await new Promise((r) => setTimeout(r, 50))
let n = 0
const authorization = basic(demoKey)
const created = await fetch(`http://127.0.0.1:${port}/payment_intents`, {
  method: "POST",
  headers: { authorization, "content-type": "application/json" },
  body: JSON.stringify(promptpayNamed)
})
const intent = (await created.json()) as { id: string }
// A page of 25 needs 25 intents; the replay answers the key created here.
if (scenario === "list") {
  for (let i = 0; i < 29; i++) {
    await fetch(`http://127.0.0.1:${port}/payment_intents`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(promptpayNamed)
    })
  }
}
if (scenario === "replay") {
  await fetch(`http://127.0.0.1:${port}/payment_intents`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json", "idempotency-key": "prof-replay" },
    body: JSON.stringify(promptpayNamed)
  })
}
const count = { setupRequest: (req: autocannon.Request) => (++n, req) }
await autocannon(
  scenario === "get" ?
    { url: `http://127.0.0.1:${port}/payment_intents/${intent.id}`, duration: seconds, connections: 16, headers: { authorization }, requests: [count] } :
    scenario === "list" ?
    { url: `http://127.0.0.1:${port}/payment_intents?limit=25`, duration: seconds, connections: 16, headers: { authorization }, requests: [count] } :
    {
      url: `http://127.0.0.1:${port}/payment_intents`,
      method: "POST",
      duration: seconds,
      connections: 16,
      headers: { authorization, "content-type": "application/json", ...(scenario === "replay" ? { "idempotency-key": "prof-replay" } : {}) },
      body: JSON.stringify(promptpayNamed),
      requests: [
        scenario === "replay"
          ? count
          : { setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, "idempotency-key": `prof-${++n}` } }) }
      ]
    }
)
await new Promise<void>((ok) => {
  child.once("close", () => ok())
  child.kill("SIGINT")
})
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
if (file === undefined) throw new Error("no profile written")
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as { nodes: Array<Node>; samples: Array<number>; timeDeltas: Array<number> }
// Only the samples of the load itself (its last `seconds`, shutdown excluded): the start, which
// compiles and links every module and migrates, would otherwise fill the top of the list.
const hits = new Map<number, number>()
const at = profile.timeDeltas.reduce<Array<number>>((acc, d) => (acc.push((acc[acc.length - 1] ?? 0) + d), acc), [])
const end = at[at.length - 1] ?? 0
profile.samples.forEach((id, i) => {
  if ((at[i] ?? 0) >= end - (seconds + 0.2) * 1e6 && (at[i] ?? 0) <= end - 0.2e6) hits.set(id, (hits.get(id) ?? 0) + 1)
})
const total = [...hits.values()].reduce((s, h) => s + h, 0)
const packageOf = (url: string, functionName: string) =>
  /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (/\/(packages\/[^/]+)\//.exec(url)?.[1]) ?? (url === "" ? functionName : "node:internal")
const parent = new Map<number, Node>()
for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node)
const bySite = new Map<string, number>()
const byPackage = new Map<string, number>()
// Node's own work (socket writes, streams, the event loop) charged to the package that asked for it:
// the nearest caller that is a package's code.
const byCaller = new Map<string, number>()
for (const node of profile.nodes) {
  const h = hits.get(node.id) ?? 0
  if (h === 0) continue
  const f = node.callFrame
  const site = `${f.functionName || "(anonymous)"} ${f.url.replace(/^file:\/\/.*?node_modules\//, "").replace(/^file:\/\/.*?\/(packages|examples)\//, "$1/")}:${
    f.lineNumber + 1
  }`
  bySite.set(site, (bySite.get(site) ?? 0) + h)
  const pkg = packageOf(f.url, f.functionName)
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + h)
  let caller: Node | undefined = node
  while (caller !== undefined && !/node_modules|\/(packages|examples)\//.test(caller.callFrame.url)) caller = parent.get(caller.id)
  const charged = caller === undefined ? pkg : packageOf(caller.callFrame.url, caller.callFrame.functionName)
  byCaller.set(charged, (byCaller.get(charged) ?? 0) + h)
}
const top = (m: Map<string, number>, k: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([s, h]) => `${((100 * h) / total).toFixed(1).padStart(5)}%  ${s}`).join("\n")
process.stdout.write(
  `${scenario}s driven: ${n}; profile ${join(dir, file)}; ${total} samples of the load\n\n` +
    `self time by package:\n${top(byPackage, 12)}\n\nself time charged to the calling package (Node's own work included):\n${top(byCaller, 12)}\n\n` +
    `self time by function:\n${top(bySite, 30)}\n`
)
