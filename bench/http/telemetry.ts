/**
 * `npm run bench:telemetry`: what tracing and metrics cost on the request path, in one
 * process on the in-memory store (no database noise): creates through the fetch-style handler
 * with telemetry off (twice: the second off run shows the noise) and on (OpenTelemetry SDK,
 * in-memory span exporter, a metric reader, the gauge sampler), in interleaved rounds. Prints
 * creates per second, median of `BENCH_ROUNDS` (default 5) rounds of `BENCH_CREATES` (default
 * 400), and each way's ratio to the first off run. docs/observability.md ("Cost").
 */
import { MetricReader } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Tender } from "@tender/core"
import { TenderHttp } from "@tender/http"
import * as OpenTelemetry from "@tender/http/OpenTelemetry"
import { basic, demoKey, median, promptpay } from "@tender/repo-test-support"
import { Layer } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const rounds = Number(process.env["BENCH_ROUNDS"] ?? "5")
const creates = Number(process.env["BENCH_CREATES"] ?? "400")
const seed = JSON.parse(readFileSync(resolve(import.meta.dirname, "..", "..", "examples", "server", "seed.json"), "utf8"))
const hostedCheckout = { baseUrl: "http://127.0.0.1:3000", secret: "bench-secret" }
const body = JSON.stringify(promptpay)
const authorization = basic(demoKey)

class Reader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

const exporter = new InMemorySpanExporter()
const ways = [
  { name: "telemetry off", layer: Tender.layerMemory({ seed, hostedCheckout }) },
  { name: "telemetry off (again: noise)", layer: Tender.layerMemory({ seed, hostedCheckout }) },
  {
    name: "telemetry on (SDK, in-memory exporter, reader, gauges every 1 s)",
    layer: Tender.layerMemory({ seed, hostedCheckout, telemetry: { gaugeIntervalMillis: 1000 } }).pipe(
      Layer.provide(OpenTelemetry.layer({ spanProcessor: new SimpleSpanProcessor(exporter), metricReader: new Reader() }))
    )
  }
].map((w) => ({ ...w, handler: TenderHttp.toWebHandler(w.layer), perSecond: [] as Array<number> }))

const run = async (handler: TenderHttp.WebHandler) => {
  const start = performance.now()
  for (let i = 0; i < creates; i++) {
    const res = await handler.handler(
      new Request("http://localhost/payment_intents", {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body
      })
    )
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`)
  }
  exporter.reset()
  return creates / ((performance.now() - start) / 1000)
}

for (const way of ways) await run(way.handler) // warm-up
for (let r = 0; r < rounds; r++) for (const way of ways) way.perSecond.push(await run(way.handler))
const base = median(ways[0]!.perSecond)
console.log(`| way | creates/s (median of ${rounds}×${creates}) | ratio to off |`)
console.log("|---|---|---|")
for (const way of ways) console.log(`| ${way.name} | ${median(way.perSecond).toFixed(0)} | ${(median(way.perSecond) / base).toFixed(2)} |`)
await Promise.all(ways.map((w) => w.handler.dispose()))
