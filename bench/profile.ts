/**
 * `npm run bench:profile`: runs the example server under `--cpu-prof`, drives only
 * creates at it, and prints the functions with the most self time.
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { basic, demoKey, freePort, promptpayNamed } from "@tender/test-support"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const seconds = Number(process.env["BENCH_SECONDS"] ?? "8")

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly hitCount: number
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
await autocannon({
  url: `http://127.0.0.1:${port}/payment_intents`,
  method: "POST",
  duration: seconds,
  connections: 16,
  headers: {
    authorization: basic(demoKey),
    "content-type": "application/json"
  },
  body: JSON.stringify(promptpayNamed),
  requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": `prof-${++n}` } }) }]
})
await new Promise<void>((ok) => {
  child.once("close", () => ok())
  child.kill("SIGINT")
})
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
if (file === undefined) throw new Error("no profile written")
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as { nodes: Array<Node> }
const total = profile.nodes.reduce((s, n) => s + n.hitCount, 0)
const bySite = new Map<string, number>()
for (const node of profile.nodes) {
  const f = node.callFrame
  const site = `${f.functionName || "(anonymous)"} ${f.url.replace(/^file:\/\/.*?node_modules\//, "").replace(/^file:\/\/.*?\/(packages|examples)\//, "$1/")}:${f.lineNumber + 1}`
  bySite.set(site, (bySite.get(site) ?? 0) + node.hitCount)
}
const byPackage = new Map<string, number>()
for (const node of profile.nodes) {
  const url = node.callFrame.url
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (/\/(packages\/[^/]+)\//.exec(url)?.[1]) ?? (url === "" ? node.callFrame.functionName : "node:internal")
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.hitCount)
}
const top = (m: Map<string, number>, k: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([s, h]) => `${((100 * h) / total).toFixed(1).padStart(5)}%  ${s}`).join("\n")
process.stdout.write(`creates driven: ${n}; profile ${join(dir, file)}\n\nself time by package:\n${top(byPackage, 12)}\n\nself time by function:\n${top(bySite, 25)}\n`)
