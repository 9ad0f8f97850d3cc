/**
 * `npm run bench:startup`: how long the demo server takes to start and how much memory it
 * holds, run as `npm start` runs it (built JavaScript, `node dist/main.js`) and as it ran
 * before packages were built (`tsx` compiling the TypeScript sources at load). Each way is
 * started `BENCH_STARTS` times (default 5) in turn; the table shows medians.
 *
 *   npm run bench:startup            # prints the table
 *   npm run bench:startup -- --write # and replaces the table in docs/performance.md
 *
 * Start time is from spawning `node` to the banner (the port is listening). Memory is the
 * resident set (VmRSS) once started and after 200 creates, and the peak (VmHWM), from /proc.
 */
import { basic, demoKey, freePort, median, promptpay, spawnProcess, stopProcess, waitUntil } from "@tender/repo-test-support"
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const example = resolve(root, "examples", "server")
const starts = Number(process.env["BENCH_STARTS"] ?? "5")
const demo = basic(demoKey)
const createBody = JSON.stringify(promptpay)

const ways = [
  { name: "built JavaScript (`node dist/main.js`, what `npm start` runs)", args: ["dist/main.js"] },
  { name: "TypeScript sources through tsx (`node --import tsx src/main.ts`)", args: ["--conditions=@tender/source", "--import", "tsx", "src/main.ts"] }
] as const

const memoryMiB = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

interface Sample {
  readonly startMs: number
  readonly rssStarted: number
  readonly rssAfterCreates: number
  readonly peak: number
}

const once = async (args: ReadonlyArray<string>): Promise<Sample> => {
  const port = await freePort()
  // Only what the server needs: no NODE_OPTIONS (a test runner's conditions), no DATABASE_URL.
  const env = { PATH: process.env["PATH"] ?? "", PORT: String(port) }
  const began = performance.now()
  const server = spawnProcess(process.execPath, args, { cwd: example, env })
  const child = server.child
  if (!(await waitUntil(server, () => server.output().includes("listening on"), 60_000, 5))) throw new Error(`did not start:\n${server.output()}`)
  const startMs = performance.now() - began
  await new Promise((r) => setTimeout(r, 500))
  const rssStarted = memoryMiB(child.pid!, "VmRSS")
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/payment_intents`, {
      method: "POST",
      headers: { authorization: demo, "content-type": "application/json", "idempotency-key": `startup-${i}` },
      body: createBody
    })
    if (res.status !== 201) throw new Error(`create answered ${res.status}`)
  }
  const rssAfterCreates = memoryMiB(child.pid!, "VmRSS")
  const peak = memoryMiB(child.pid!, "VmHWM")
  await stopProcess(child, "SIGINT")
  return { startMs, rssStarted, rssAfterCreates, peak }
}

const results = ways.map((w) => ({ ...w, samples: [] as Array<Sample> }))
// Alternate the two ways, so drift on a shared machine hits both alike.
for (let i = 0; i < starts; i++) {
  for (const r of results) r.samples.push(await once(r.args))
}

const row = (r: (typeof results)[number]) => {
  const m = (f: keyof Sample) => median(r.samples.map((s) => s[f]))
  return `| ${r.name} | ${Math.round(m("startMs"))} | ${Math.round(m("rssStarted"))} | ${Math.round(m("rssAfterCreates"))} | ${Math.round(m("peak"))} |`
}
const [built, source] = results
const ratio = (f: keyof Sample) => (median(built!.samples.map((s) => s[f])) / median(source!.samples.map((s) => s[f]))).toFixed(2)
const table = [
  `Measured by \`npm run bench:startup\` (bench/startup/startup.ts), Node ${process.version}, ${
    new Date().toISOString()
  }: the demo server on the in-memory store, started ${starts} times each way in turn; medians.`,
  "",
  "| how it runs | start to listening (ms) | RSS once started (MiB) | RSS after 200 creates (MiB) | peak RSS (MiB) |",
  "|---|---:|---:|---:|---:|",
  row(built!),
  row(source!),
  `| built / tsx | ${ratio("startMs")} | ${ratio("rssStarted")} | ${ratio("rssAfterCreates")} | ${ratio("peak")} |`
].join("\n")
process.stdout.write(table + "\n")

if (process.argv.includes("--write")) {
  const path = resolve(root, "docs", "performance.md")
  const doc = readFileSync(path, "utf8")
  const begin = "<!-- bench:startup begin -->"
  const end = "<!-- bench:startup end -->"
  const i = doc.indexOf(begin)
  const j = doc.indexOf(end)
  if (i < 0 || j < i) throw new Error(`docs/performance.md has no ${begin} … ${end} block`)
  writeFileSync(path, doc.slice(0, i + begin.length) + "\n" + table + "\n" + doc.slice(j))
}
