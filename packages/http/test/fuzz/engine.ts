/**
 * The crash fuzzer's engine: starts the target (`server.ts`) in a child process,
 * creates a few resources so generated paths reach real ids, sends generated requests over raw
 * sockets, `concurrency` at a time, judges every answer (`oracle.ts`), then checks the child is
 * alive, still creates (201), and that its memory after a GC is back near its baseline.
 * Used by `CrashFuzz.test.ts` (a short run) and `main.ts` (`npm run fuzz`, a long one).
 */
import { basic } from "@tender/repo-test-support"
import fc from "fast-check"
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { keys } from "../../../core/test/fixtures.js"
import { badChunkedRequest, badEncodingRequest, hugeHeaderRequest, oddHeaderRequest, oversizedJsonRequest, truncatedRequest } from "./framing.js"
import { bankTransfer, hosted, topupBases } from "./generators.js"
import { type Failure, judge } from "./oracle.js"
import { headOf, jsonRequest, type Known, multipartRequest, queryRequest } from "./requests.js"
import { exchange, type Outcome, type Wire } from "./wire.js"

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, "../../../..")

export interface Target {
  readonly port: number
  readonly child: ChildProcess
  /** Resolves when the child exits, with its code or signal. */
  readonly exited: Promise<string>
  alive(): boolean
  /** RSS and heap after a full GC in the child. */
  memory(): Promise<NodeJS.MemoryUsage>
  /** What the child wrote on stderr (a logged defect shows here). */
  stderr(): string
  stop(): Promise<void>
}

/** Start `server.ts` in a child process with `--expose-gc` and an IPC channel. */
export const startTarget = (): Promise<Target> =>
  new Promise((ok, fail) => {
    const child = spawn(process.execPath, ["--expose-gc", "--conditions=@tender/source", "--import", "tsx", resolve(here, "server.ts")], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe", "ipc"]
    })
    let err = ""
    let dead = false
    child.stderr!.on("data", (d) => (err = (err + d).slice(-20_000)))
    const exited = new Promise<string>((done) =>
      child.on("exit", (code, signal) => {
        dead = true
        done(signal ?? `exit code ${code}`)
      })
    )
    void exited.then((how) => fail(new Error(`the target exited before listening (${how}): ${err}`)))
    const waiters: Array<(m: NodeJS.MemoryUsage) => void> = []
    child.on("message", (m: any) => {
      if (typeof m?.port === "number") {
        ok({
          port: m.port,
          child,
          exited,
          alive: () => !dead,
          memory: () => new Promise((got) => (waiters.push(got), child.send("memory"))),
          stderr: () => err,
          stop: async () => {
            if (dead) return
            child.send("stop")
            const killer = setTimeout(() => child.kill("SIGKILL"), 5_000)
            await exited
            clearTimeout(killer)
          }
        })
      } else if (m?.memory !== undefined) waiters.shift()?.(m.memory)
    })
  })

const demo = basic(keys.demoTest)

/** One JSON request with the demo key; its status and parsed body. */
export const send = async (port: number, method: string, path: string, body?: unknown) => {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body))
  const headers: Array<readonly [string, string]> = [["Host", "127.0.0.1"], ["Authorization", demo], ["Connection", "close"]]
  if (body !== undefined) {
    headers.push(["Content-Type", "application/json"], ["Content-Length", String(payload.length)], ["Idempotency-Key", crypto.randomUUID()])
  }
  const wire: Wire = { category: "setup", label: path, head: headOf(method, path, headers), pieces: [payload], framing: "raw", end: "wait", mayDrop: false }
  const outcome = await exchange(port, wire, 30_000)
  if (outcome.kind !== "answer") throw new Error(`${method} ${path}: ${outcome.kind}`)
  return { status: outcome.response.status, json: JSON.parse(outcome.response.body.toString("utf8") || "null") }
}

/** Create an intent, a hosted intent, a top-up and a webhook endpoint; their ids for the paths. */
export const setup = async (port: number): Promise<Known> => {
  const intent = await send(port, "POST", "/payment_intents", bankTransfer)
  const page = await send(port, "POST", "/payment_intents", hosted)
  const topup = await send(port, "POST", "/topup_intents", topupBases[1])
  const hook = await send(port, "POST", "/webhook_endpoints", { url: "http://127.0.0.1:9/hook" })
  for (const r of [intent, page, topup, hook]) if (r.status !== 201) throw new Error(`setup: ${r.status} ${JSON.stringify(r.json)}`)
  const link = new URL(page.json.next_action.url)
  return { ids: [intent.json.id, topup.json.id, hook.json.id], hostedId: link.pathname.split("/").pop()!, hostedQuery: link.search }
}

/** Every kind of request, weighted: most are JSON at a route; the heavy ones are rare. */
export const requests = (known: Known): fc.Arbitrary<Wire> =>
  fc.oneof(
    { weight: 30, arbitrary: jsonRequest(known, false) },
    { weight: 14, arbitrary: jsonRequest(known, true) },
    { weight: 10, arbitrary: queryRequest(known) },
    { weight: 12, arbitrary: multipartRequest(known) },
    { weight: 6, arbitrary: truncatedRequest(known, false) },
    { weight: 6, arbitrary: truncatedRequest(known, true) },
    { weight: 5, arbitrary: badChunkedRequest(known) },
    { weight: 3, arbitrary: hugeHeaderRequest(known) },
    { weight: 9, arbitrary: oddHeaderRequest(known) },
    { weight: 5, arbitrary: badEncodingRequest(known) },
    { weight: 1, arbitrary: oversizedJsonRequest(known) }
  )

export interface Tally {
  requests: number
  readonly byCategory: Map<string, { count: number; statuses: Map<string, number> }>
  readonly failures: Array<{ readonly wire: Wire; readonly failure: Failure }>
  created: number
  dropped: number
}

const outcomeKey = (o: Outcome) => (o.kind === "answer" ? String(o.response.status) : o.kind)

/** Send `total` generated requests (seeded), `concurrency` at a time; stops early when the target dies. */
export const run = async (
  target: Target,
  known: Known,
  options: { total: number; concurrency: number; seed: number; onProgress?: (done: number, failures: number) => void }
): Promise<Tally> => {
  const tally: Tally = { requests: 0, byCategory: new Map(), failures: [], created: 0, dropped: 0 }
  const batch = 500
  let next = 0
  let pending: Array<Wire> = []
  let batchNo = 0
  const take = (): Wire | undefined => {
    if (next >= options.total || !target.alive()) return undefined
    if (pending.length === 0) pending = fc.sample(requests(known), { numRuns: Math.min(batch, options.total - next), seed: options.seed + batchNo++ })
    next++
    return pending.shift()
  }
  const worker = async () => {
    for (let wire = take(); wire !== undefined; wire = take()) {
      const outcome = await exchange(target.port, wire, 60_000)
      const entry = tally.byCategory.get(wire.category) ?? { count: 0, statuses: new Map() }
      tally.byCategory.set(wire.category, entry)
      entry.count++
      const key = outcomeKey(outcome)
      entry.statuses.set(key, (entry.statuses.get(key) ?? 0) + 1)
      if (outcome.kind === "dropped") tally.dropped++
      if (outcome.kind === "answer" && outcome.response.status === 201) tally.created++
      const failure = judge(wire, outcome)
      if (failure !== undefined && tally.failures.length < 1000) tally.failures.push({ wire, failure })
      if (++tally.requests % 1000 === 0) options.onProgress?.(tally.requests, tally.failures.length)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  return tally
}
