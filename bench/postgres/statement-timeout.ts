/**
 * `npm run bench:timeout`: what the client side of the statement timeout
 * (packages/postgres/src/internal/timeout.ts, `bound`: a daemon fiber and a timer per call)
 * costs per statement, against the statement it bounds (docs/performance.md, "The
 * statement timeout's client side"). Two measurements, each in alternating rounds so the machine's
 * load falls on both ways alike, reporting the median:
 *
 * 1. `bound` around an effect that does nothing, against that effect alone: the wrapper's own
 *    CPU time per call, with 16 calls in flight as under load.
 * 2. `SELECT 1` through `@effect/sql-pg` (pool of 10, 16 in flight), bounded and not: statements
 *    per second and this process's CPU time per statement (user + system).
 * 3. For scale: the CPU time of a whole warm request in this process, Tender's fetch-style handler
 *    on `PgStorage` with the demo's seed (a get by id: one statement; a create: two), so the
 *    bound's added time can be read as a share of a request.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:timeout
 *   BENCH_ROUNDS=7 BENCH_CALLS=200000 BENCH_STATEMENTS=20000
 */
import { PgClient } from "@effect/sql-pg"
import { Tender } from "@tender/core"
import { TenderHttp } from "@tender/http"
import { PgStorage } from "@tender/postgres"
import { basic, demoKey, promptpay } from "@tender/repo-test-support"
import { Effect, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import * as Timeout from "../../packages/postgres/src/internal/timeout.js"
import { dropPrefix } from "../shared/pg-prefix.js"

const rounds = Number(process.env["BENCH_ROUNDS"] ?? "7")
const calls = Number(process.env["BENCH_CALLS"] ?? "200000")
const statements = Number(process.env["BENCH_STATEMENTS"] ?? "20000")
const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const within = Timeout.bound(Timeout.millisOf(undefined))
const requests = Number(process.env["BENCH_REQUESTS"] ?? "3000")
const prefix = `bench_timeout_${Date.now().toString(36)}_`

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** `n` runs of `make()`, 16 at a time: wall milliseconds and this process's CPU microseconds. */
const timed = <E, R>(n: number, make: () => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const cpu = process.cpuUsage()
    const t0 = performance.now()
    yield* Effect.forEach(Array.from({ length: n }), make, { concurrency: 16, discard: true })
    const wall = performance.now() - t0
    const used = process.cpuUsage(cpu)
    return { wall, cpuMicros: used.user + used.system }
  })

const compare = <E, R>(name: string, n: number, bare: () => Effect.Effect<unknown, E, R>, bounded: () => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    // A warm-up of each, not counted.
    yield* timed(Math.ceil(n / 10), bare)
    yield* timed(Math.ceil(n / 10), bounded)
    const r = { bare: { rate: [] as Array<number>, cpu: [] as Array<number> }, bounded: { rate: [] as Array<number>, cpu: [] as Array<number> } }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["bare", "bounded"] as const) : (["bounded", "bare"] as const)
      for (const which of order) {
        const { cpuMicros, wall } = yield* timed(n, which === "bare" ? bare : bounded)
        r[which].rate.push(n / (wall / 1000))
        r[which].cpu.push(cpuMicros / n)
      }
    }
    const line = (which: "bare" | "bounded") => `${median(r[which].rate).toFixed(0)} /s, ${median(r[which].cpu).toFixed(1)} µs CPU each`
    process.stdout.write(
      `| ${name} | ${line("bare")} | ${line("bounded")} | ${(median(r.bounded.cpu) - median(r.bare.cpu)).toFixed(1)} µs | ${
        (median(r.bounded.rate) / median(r.bare.rate)).toFixed(3)
      } |\n`
    )
  })

const main = Effect.gen(function*() {
  const load = () => loadavg().map((x) => x.toFixed(2)).join(", ")
  process.stdout.write(
    `statement timeout cost, Node ${process.version}, ${new Date().toISOString()}, ${rounds} rounds, load average at the start ${load()}\n\n`
  )
  process.stdout.write(`| what | without the bound | with the bound | CPU added per call | with / without (rate) |\n|---|---|---|---:|---:|\n`)
  yield* compare(`an effect that does nothing (${calls} calls)`, calls, () => Effect.void, () => within("nothing", Effect.void))
  const sql = yield* PgClient.PgClient
  const select = () => sql`SELECT 1`.pipe(Effect.orDie)
  yield* compare(`SELECT 1 through @effect/sql-pg, pool of 10 (${statements} statements)`, statements, select, () => within("select", select()))
  process.stdout.write(`\nload average at the end ${load()}\n`)
})

/** CPU microseconds of this process per warm request through the handler, median of the rounds. */
const requestCost = async () => {
  const seed = JSON.parse(readFileSync(resolve(import.meta.dirname, "..", "..", "examples", "server", "seed.json"), "utf8"))
  const web = TenderHttp.toWebHandler(Tender.layer(
    { seed, hostedCheckout: { baseUrl: "http://127.0.0.1:3000", secret: "bench-secret" } },
    PgStorage.layerFromUrl({ url: databaseUrl, tablePrefix: prefix })
  ))
  const authorization = basic(demoKey)
  const send = async (method: string, path: string, body?: string) => {
    const res = await web.handler(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body })
      })
    )
    const text = await res.text()
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
    return text
  }
  try {
    const { id } = JSON.parse(await send("POST", "/payment_intents", JSON.stringify(promptpay))) as { id: string }
    // The directory cache fills once its listener is up; a few seconds of requests make it warm.
    const body = JSON.stringify(promptpay)
    const scenarios = {
      "get by id (1 statement warm)": () => send("GET", `/payment_intents/${id}`),
      "create (2 statements warm)": () => send("POST", "/payment_intents", body)
    }
    const per = async (f: () => Promise<unknown>, n: number) => {
      const cpu = process.cpuUsage()
      let next = 0
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (next++ < n) await f()
      }))
      const used = process.cpuUsage(cpu)
      return (used.user + used.system) / n
    }
    for (const f of Object.values(scenarios)) await per(f, requests / 2)
    process.stdout.write(`\n| request through the fetch-style handler on PgStorage | CPU per request (this process, median of ${rounds}) |\n|---|---:|\n`)
    for (const [name, f] of Object.entries(scenarios)) {
      const cpu: Array<number> = []
      for (let round = 0; round < rounds; round++) cpu.push(await per(f, requests))
      process.stdout.write(`| ${name} | ${median(cpu).toFixed(0)} µs |\n`)
    }
  } finally {
    await web.dispose()
    dropPrefix(prefix, databaseUrl)
  }
}

Effect.runPromise(main.pipe(
  Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 10 }).pipe(Layer.orDie))
)).then(requestCost).catch((e) => {
  process.stderr.write(`${e}\n`)
  process.exit(1)
})
