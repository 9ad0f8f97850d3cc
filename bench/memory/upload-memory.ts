/**
 * `npm run bench:upload`: what 5 MiB receipt uploads cost in memory. Not a test.
 *
 * 1. One upload at a time, in process through the fetch handler on the in-memory store: the
 *    peak of heap + external memory above the idle baseline while each upload runs, as a
 *    multiple of the file's size (the file itself is stored in memory too, so the floor is
 *    about 1x).
 * 2. A burst: the demo server (`examples/server/dist/main.js`, as `npm start` runs it) takes
 *    `BENCH_UPLOAD_BURST` (default 200) concurrent 5 MiB uploads, on PostgreSQL and on the
 *    in-memory store, through `POST /assets` and through `POST /payment_intents/{id}/receipt`
 *    (whose task then reads the asset back to submit it). The server's memory after two full
 *    collections (bench/memory/upload-probe.mjs answers over IPC) is read before the burst, just after
 *    it and `BENCH_UPLOAD_SETTLE_MS` (default 60000) later: what stays is what the burst left
 *    behind, and the server's peak RSS. On the in-memory store the files themselves stay
 *    (200 × 5 MiB = 1000 MiB). Any `MALLOC_*` variable (glibc's tunables) is passed on to the
 *    server. docs/reliability.md, "Memory after a burst of uploads", has the figures.
 *
 * 3. While the burst runs, plain GETs one after another (`GET /payment_intents?limit=10`): their
 *    p50, p99 and worst time, and the server's largest RSS sampled meanwhile. An upload refused
 *    past the server's bound on uploads at once (503 with `Retry-After`, docs/reliability.md
 *    "Uploads") is sent again after that delay, as a client would, until it is stored.
 *    `--bounds 200,4` runs each scenario once per `TENDER_MAX_CONCURRENT_UPLOADS` (A/B in one run;
 *    a bound at or above the burst is no bound).
 *
 *   npm run bench:upload                          # everything
 *   npm run bench:upload -- --stores pg --routes receipt --skip-peak
 *   npm run bench:upload -- --stores pg --routes assets --skip-peak --bounds 200,4
 */
import { Seed, Tender } from "@tender/core"
import { TenderHttp } from "@tender/http"
import { bankTransfer, basic, demoKey, freePort, freshTablePrefix, stopProcess, testDatabaseUrl, waitListening } from "@tender/repo-test-support"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { dropPrefix } from "../shared/pg-prefix.js"

const { values: flags } = parseArgs({
  options: {
    stores: { type: "string", default: "pg,memory" },
    routes: { type: "string", default: "assets,receipt" },
    // The server's TENDER_MAX_CONCURRENT_UPLOADS, one scenario each: a bound at or above the burst
    // is no bound (as before there was one); the default is the server's own.
    bounds: { type: "string", default: "" },
    "skip-peak": { type: "boolean", default: false }
  }
})
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const root = resolve(import.meta.dirname, "..", "..")
const auth = basic(demoKey)
const size = 5 * 1024 * 1024
const file = new Uint8Array(size)
file.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
for (let i = 8; i < size; i++) file[i] = (i * 31) & 0xff
const mib = (n: number) => (n / 1024 / 1024).toFixed(1)
const out = (line: string) => process.stdout.write(line + "\n")

// 1. One upload's peak, in process.
const peak = async () => {
  const seed = await Effect.runPromise(Seed.decode(JSON.parse(readFileSync(resolve(root, "examples/server/seed.json"), "utf8"))))
  const { dispose, handler } = TenderHttp.toWebHandler(Tender.layerMemory({ seed, hostedCheckout: { baseUrl: "http://127.0.0.1", secret: "bench" } }))
  const used = () => {
    const m = process.memoryUsage()
    return m.heapUsed + m.external
  }
  const peaks: Array<number> = []
  for (let i = 0; i < 8; i++) {
    const form = new FormData()
    form.append("file", new Blob([file], { type: "image/png" }), "receipt.png")
    const request = new Request("http://127.0.0.1/assets", {
      method: "POST",
      headers: { authorization: auth, "idempotency-key": crypto.randomUUID() },
      body: form
    })
    gc()
    const base = used()
    let top = base
    const sampler = setInterval(() => (top = Math.max(top, used())), 1)
    const res = await handler(request)
    await res.text()
    top = Math.max(top, used())
    clearInterval(sampler)
    if (res.status !== 201) throw new Error(`upload answered ${res.status}`)
    peaks.push(top - base)
  }
  await dispose()
  const sorted = [...peaks].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)]!
  out(
    `5 MiB upload, ${peaks.length} runs: median peak ${mib(median)} MiB above idle (${(median / size).toFixed(2)}x the file), ` +
      `max ${mib(sorted[sorted.length - 1]!)} MiB. Node ${process.version}.`
  )
}

// 2. The burst, against the demo server in a child process.
const burst = Number(process.env["BENCH_UPLOAD_BURST"] ?? "200")
const settleMillis = Number(process.env["BENCH_UPLOAD_SETTLE_MS"] ?? "60000")
type Usage = NodeJS.MemoryUsage

/** The child's memory after two full collections (bench/memory/upload-probe.mjs). */
const measure = (child: ChildProcess): Promise<Usage> =>
  new Promise((ok) => {
    const on = (message: { kind: string; usage: Usage }) => {
      if (message.kind !== "measure") return
      child.off("message", on)
      ok(message.usage)
    }
    child.on("message", on)
    child.send("measure")
  })

const json = async (res: Response) => ({ status: res.status, body: await res.json() as Record<string, any> })

/** `n` calls of `f`, at most `width` at a time. */
const pooled = async <A>(n: number, width: number, f: (i: number) => Promise<A>): Promise<Array<A>> => {
  const results: Array<A> = new Array(n)
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++
      results[i] = await f(i)
    }
  }))
  return results
}

/**
 * The multipart body of one upload, built once: every request of the burst sends these same
 * bytes (a `FormData` per request through `fetch` cost the bench itself some 20 MiB per upload
 * and most of a core).
 */
const boundary = "tender-bench-upload"
const multipart = Buffer.concat([
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="receipt.png"\r\nContent-Type: image/png\r\n\r\n`),
  file,
  Buffer.from(`\r\n--${boundary}--\r\n`)
])
/** Connections of their own for the burst: every upload at once, none waiting for a socket. */
const agent = new Agent({ keepAlive: false, maxSockets: Infinity })

/** POST the upload to `path` under the idempotency key `key`; its status and Retry-After. */
const sendOnce = (port: number, path: string, key: string): Promise<{ status: number; retryAfter: number | undefined }> =>
  new Promise((ok, fail) => {
    let answered = false
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      agent,
      headers: {
        authorization: auth,
        "idempotency-key": key,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(multipart.length)
      }
    }, (res) => {
      answered = true
      res.resume()
      const retry = res.headers["retry-after"]
      res.on("end", () => ok({ status: res.statusCode ?? 0, retryAfter: retry === undefined ? undefined : Number(retry) }))
      res.on("error", fail)
    })
    // A refused upload is answered before its body is sent whole, and the connection closed:
    // the write then fails with EPIPE or ECONNRESET after the answer arrived.
    req.on("error", (error) => (answered ? undefined : fail(error)))
    req.end(multipart)
  })

/** Refusals of the burst: each a 503 with Retry-After, retried after it as a client would. */
let refusals = 0

/** POST the upload, again after each 503's Retry-After (at most 100 times); the final status. */
const send = async (port: number, path: string, key: string): Promise<number> => {
  for (let attempt = 0;; attempt++) {
    const { status, retryAfter } = await sendOnce(port, path, key)
    if (status !== 503 || retryAfter === undefined || attempt >= 100) return status
    refusals++
    await new Promise((r) => setTimeout(r, retryAfter * 1000 * (1 + Math.random())))
  }
}

/** Plain GETs one after another until `stop()`: each one's time in ms and the server's RSS sampled. */
const readsDuring = (port: number, pid: number) => {
  const times: Array<number> = []
  let maxRss = 0
  let running = true
  const rss = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    if (m !== null) maxRss = Math.max(maxRss, Number(m[1]) * 1024)
  }
  // A connection of its own for each GET (no keep-alive socket the server may have closed meanwhile).
  const get = () =>
    new Promise<number>((ok, fail) => {
      const req = request({ host: "127.0.0.1", port, path: "/payment_intents?limit=10", headers: { authorization: auth }, agent: false }, (res) => {
        res.resume()
        res.on("end", () => ok(res.statusCode ?? 0))
        res.on("error", fail)
      })
      req.on("error", fail)
      req.end()
    })
  const loop = (async () => {
    while (running) {
      const began = performance.now()
      const status = await get()
      if (status !== 200) throw new Error(`a GET during the burst answered ${status}`)
      times.push(performance.now() - began)
      rss()
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return async () => {
    running = false
    await loop
    rss()
    const sorted = [...times].sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
    return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN, maxRss }
  }
}

interface Row {
  readonly store: string
  readonly route: string
  readonly before: Usage
  readonly after: Usage
  readonly settled: Usage
  readonly seconds: number
  /** The server's peak resident set over its life (VmHWM), in bytes. */
  readonly peakRss: number
  readonly note: string
  /** The server's TENDER_MAX_CONCURRENT_UPLOADS, or "" for its default. */
  readonly bound: string
  /** GETs timed while the burst ran, and the server's largest RSS sampled meanwhile. */
  readonly reads: { readonly count: number; readonly p50: number; readonly p99: number; readonly max: number; readonly maxRss: number }
  readonly refusals: number
}

const scenario = async (store: "pg" | "memory", route: "assets" | "receipt", bound: string): Promise<Row> => {
  const port = await freePort()
  const prefix = freshTablePrefix()
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    PORT: String(port),
    // 200 bodies of 5 MiB on a loaded machine can take longer than the demo's 30 s for each to arrive.
    TENDER_REQUEST_TIMEOUT_MS: "600000",
    // And 200 uploads wait for 10 connections: under load, longer than the 10 s statement timeout
    // (a 503 then, and an upload less). The bench measures memory, not latency.
    TENDER_DB_STATEMENT_TIMEOUT_MS: "300000",
    ...(store === "pg" ? { DATABASE_URL: testDatabaseUrl, TENDER_TABLE_PREFIX: prefix } : {}),
    ...(bound === "" ? {} : { TENDER_MAX_CONCURRENT_UPLOADS: bound }),
    // The C allocator's tunables, to compare what the resident set keeps (docs/reliability.md).
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("MALLOC_")) as Array<[string, string]>)
  }
  // Spawned with an IPC channel, which the probe answers on.
  const child = spawn(process.execPath, ["--expose-gc", "--import", resolve(root, "bench/memory/upload-probe.mjs"), "dist/main.js"], {
    cwd: resolve(root, "examples/server"),
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc"]
  })
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const spawned = { child, output: () => output, errors: () => output, exited: new Promise<number | null>((ok) => child.once("close", ok)) }
  try {
    await waitListening(spawned, "demo server")
    const base = `http://127.0.0.1:${port}`
    const upload = (path: string, key: string) => send(port, path, key)
    const intents = route === "receipt"
      ? await pooled(burst + 2, 8, async (i) => {
        const res = await json(
          await fetch(`${base}/payment_intents`, {
            method: "POST",
            headers: { authorization: auth, "content-type": "application/json", "idempotency-key": `bench-intent-${i}` },
            body: JSON.stringify(bankTransfer())
          })
        )
        if (res.status !== 201 || res.body["next_action"]?.requires_receipt !== true) throw new Error(`create answered ${res.status}`)
        return res.body["id"] as string
      })
      : []
    const target = (i: number) => route === "assets" ? "/assets" : `/payment_intents/${intents[i]}/receipt`
    const expected = route === "assets" ? 201 : 200
    // Two uploads first, so what any first upload loads once (code, prepared statements) is in the baseline.
    for (let i = 0; i < 2; i++) {
      const status = await upload(target(burst + i), `bench-warm-${i}`)
      if (status !== expected) throw new Error(`warm-up upload answered ${status}`)
    }
    await new Promise((r) => setTimeout(r, 2000))
    const before = await measure(child)
    refusals = 0
    const stopReads = readsDuring(port, child.pid!)
    const began = performance.now()
    const statuses = await Promise.all(Array.from({ length: burst }, (_, i) => upload(target(i), `bench-burst-${i}`)))
    const seconds = (performance.now() - began) / 1000
    const reads = await stopReads()
    const failed = statuses.filter((s) => s !== expected)
    if (failed.length > 0) throw new Error(`${failed.length} of ${burst} uploads did not answer ${expected}: ${[...new Set(failed)].join(", ")}`)
    const after = await measure(child)
    await new Promise((r) => setTimeout(r, settleMillis))
    const settled = await measure(child)
    let note = ""
    if (route === "receipt") {
      const states = await pooled(
        burst,
        8,
        async (i) => (await json(await fetch(`${base}/payment_intents/${intents[i]}`, { headers: { authorization: auth } }))).body["status"] as string
      )
      const counts = new Map<string, number>()
      for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1)
      note = `intents then: ${[...counts].map(([s, n]) => `${n} ${s}`).join(", ")}`
    }
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))
    const peakRss = hwm === null ? Number.NaN : Number(hwm[1]) * 1024
    return { store, route, before, after, settled, seconds, peakRss, note, bound, reads, refusals }
  } catch (error) {
    throw new Error(`${String(error)}\n--- the server's output ---\n${output.slice(-4000)}`, { cause: error })
  } finally {
    await stopProcess(child, "SIGINT")
    if (store === "pg") dropPrefix(prefix, testDatabaseUrl)
  }
}

if (!flags["skip-peak"]) await peak()
const rows: Array<Row> = []
for (const store of flags.stores.split(",") as Array<"pg" | "memory">) {
  for (const route of flags.routes.split(",") as Array<"assets" | "receipt">) {
    for (const bound of flags.bounds.split(",")) {
      const row = await scenario(store, route, bound)
      rows.push(row)
      const d = (f: keyof Usage, a: Usage) => mib(a[f] - row.before[f])
      out(
        `${burst} × 5 MiB ${route === "assets" ? "POST /assets" : "POST /payment_intents/{id}/receipt"} on ${store === "pg" ? "PostgreSQL" : "memory"} ` +
          `(${row.seconds.toFixed(1)} s): before rss ${mib(row.before.rss)}, heap ${mib(row.before.heapUsed)}, external ${mib(row.before.external)} MiB; ` +
          `held after the burst rss +${d("rss", row.after)}, heap +${d("heapUsed", row.after)}, external +${d("external", row.after)} ` +
          `(arrayBuffers +${d("arrayBuffers", row.after)}); ${settleMillis / 1000} s later rss +${d("rss", row.settled)}, ` +
          `heap +${d("heapUsed", row.settled)}, external +${d("external", row.settled)} (arrayBuffers +${d("arrayBuffers", row.settled)}) MiB; ` +
          `peak rss ${mib(row.peakRss)} MiB` +
          (row.note === "" ? "" : `; ${row.note}`)
      )
      out(
        `  uploads at once: ${row.bound === "" ? "the server's default" : row.bound}; ${row.refusals} refusals (503, retried after Retry-After); ` +
          `${row.reads.count} GETs during the burst: p50 ${row.reads.p50.toFixed(0)} ms, p99 ${row.reads.p99.toFixed(0)} ms, max ${
            row.reads.max.toFixed(0)
          } ms; ` +
          `RSS during the burst at most ${mib(row.reads.maxRss)} MiB (+${mib(row.reads.maxRss - row.before.rss)} MiB over before); load ${
            loadavg().map((l) => l.toFixed(2)).join(" ")
          }`
      )
    }
  }
}
