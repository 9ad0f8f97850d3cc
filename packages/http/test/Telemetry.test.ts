/**
 * Traces and metrics with OpenTelemetry's in-memory exporter and a metric reader we collect
 * from (docs/observability.md): one confirmed payment is one connected trace from its request
 * to the provider call to the webhook attempt, every metric is collected, and no attribute
 * holds a key, a secret or the payer's data.
 */
import { assert, describe, it } from "@effect/vitest"
import { MetricReader } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Simulator, Telemetry, Tender, Workers } from "@tender/core"
import { customer, promptpay } from "@tender/repo-test-support"
import { Layer, Logger } from "effect"
import { createServer, type Server } from "node:http"
import { afterAll } from "vitest"
import { checkoutOptions, keys, seed } from "../../core/test/fixtures.js"
import { TenderHttp, WebhookClient } from "../src/index.js"
import * as OpenTelemetry from "../src/OpenTelemetry.js"
import { basic, call } from "./harness.js"

/** A reader the test collects from on demand. */
class CollectingReader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

const servers: Array<Server> = []
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections()
    s.close()
  }
})

/** A webhook receiver on loopback answering 200. */
const receiver = async () => {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.end("ok")
    })
  })
  servers.push(server)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const address = server.address()
  return { url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`, received: () => received }
}

const until = async (what: string, check: () => boolean, explain: () => string = () => "") => {
  for (let i = 0; i < 150 && !check(); i++) await new Promise((ok) => setTimeout(ok, 20))
  assert.isTrue(check(), `timed out waiting for ${what} ${explain()}`)
}

/** Every attribute value of every span, as text. */
const attributeText = (spans: ReadonlyArray<ReadableSpan>) =>
  spans.flatMap((s) => [s.name, ...Object.entries(s.attributes).map(([k, v]) => `${k}=${String(v)}`)]).join("\n")

/** The span's ancestors (by parent span id) among `spans`, nearest first. */
const ancestors = (span: ReadableSpan, spans: ReadonlyArray<ReadableSpan>) => {
  const out: Array<ReadableSpan> = []
  let parent = span.parentSpanContext?.spanId
  while (parent !== undefined) {
    const found = spans.find((s) => s.spanContext().spanId === parent)
    if (found === undefined) break
    out.push(found)
    parent = found.parentSpanContext?.spanId
  }
  return out
}

describe("telemetry: OpenTelemetry traces and metrics", () => {
  it("telemetry: one confirmed payment is one trace, request -> task run -> provider call -> webhook attempt; every metric is collected; no attribute holds a key, secret or payer data", async () => {
    const exporter = new InMemorySpanExporter()
    const reader = new CollectingReader()
    const hook = await receiver()
    const tender = Tender.layer({
      seed,
      hostedCheckout: checkoutOptions,
      webhookTransport: WebhookClient.layerFetch,
      telemetry: { gaugeIntervalMillis: 20 }
    }, Tender.layerMemoryStorage)
    // Provided (not merged): the tracer is installed before the workers' fibers start.
    const services = Workers.layer({ pollMillis: 20 }).pipe(
      Layer.provideMerge(tender),
      // The D11 mismatch below is logged by design; the test reads its metric.
      Layer.provide(Logger.replace(Logger.defaultLogger, Logger.none)),
      Layer.provide(OpenTelemetry.layer({ serviceName: "tender-test", spanProcessor: new SimpleSpanProcessor(exporter), metricReader: reader }))
    )
    const web = TenderHttp.toWebHandler(services)
    try {
      const handler = web.handler
      const endpoint = await call(handler, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: hook.url } })
      assert.strictEqual(endpoint.status, 201, endpoint.text)
      const webhookSecret = endpoint.json.secret as string
      const created = await call(handler, "POST", "/payment_intents", {
        key: keys.demoTest,
        body: { ...promptpay, customer: { name: customer.name, email: customer.email } }
      })
      assert.strictEqual(created.status, 201, created.text)
      const id = created.json.id as string
      const confirmed = await call(handler, "POST", `/payment_intents/${id}/confirm`, { key: keys.demoTest })
      assert.strictEqual(confirmed.status, 200, confirmed.text)
      // Query values never reach a span (a hosted link carries its signature and token there).
      await call(handler, "GET", "/payment_intents?merchant_reference=query-secret-value", { key: keys.demoTest })

      const spans = () => exporter.getFinishedSpans()
      const attempt = () =>
        spans().find((s) =>
          s.name === Telemetry.names.webhookAttempt && s.attributes["tender.outcome"] === "delivered" &&
          ancestors(s, spans()).some((a) => a.attributes["http.route"] === "/payment_intents/{id}/confirm")
        )
      await until(
        "a delivered webhook attempt in the confirm's trace",
        () => attempt() !== undefined,
        () =>
          spans().map((s) =>
            `${s.name} ${s.spanContext().traceId.slice(0, 6)} ${s.spanContext().spanId.slice(0, 6)}<-${s.parentSpanContext?.spanId.slice(0, 6)} ${
              JSON.stringify(s.attributes)
            }`
          ).join("\n")
      )

      const request = spans().find((s) => s.attributes["http.route"] === "/payment_intents/{id}/confirm")!
      // OpenTelemetry's HTTP conventions: a server span is named `{method} {route template}`.
      assert.strictEqual(request.name, "POST /payment_intents/{id}/confirm")
      assert.strictEqual(
        spans().find((s) => s.attributes["http.route"] === "/payment_intents" && s.attributes["http.request.method"] === "GET")?.name,
        "GET /payment_intents"
      )
      assert.strictEqual(request.attributes["http.response.status_code"], 200)
      assert.strictEqual(request.attributes["tender.request_id"], confirmed.headers.get("request-id"))
      assert.strictEqual(request.attributes["tender.merchant_id"], seed.merchants[0]!.id)
      const chain = [attempt()!, ...ancestors(attempt()!, spans())]
      const names = chain.map((s) => s.name)
      assert.include(names, Telemetry.names.taskRun, names.join(" <- "))
      assert.strictEqual(chain[chain.length - 1]!.spanContext().spanId, request.spanContext().spanId, names.join(" <- "))
      const trace = spans().filter((s) => s.spanContext().traceId === request.spanContext().traceId)
      const provider = trace.find((s) => s.name === Telemetry.names.providerCall && s.attributes["tender.provider.operation"] === "confirmPayment")
      assert.isDefined(provider, "the confirm's provider call is in the request's trace")
      assert.isTrue(
        ancestors(provider!, spans()).some((s) => s.name === Telemetry.names.taskRun && s.attributes["tender.task.kind"] === "payment_intent.confirm")
      )
      // The create's provider call, in the create request's own trace.
      assert.isTrue(spans().some((s) => s.name === Telemetry.names.providerCall && s.attributes["tender.provider.operation"] === "createPayment"))

      const text = attributeText(spans())
      for (
        const secret of [
          keys.demoTest.secret,
          keys.demoTest.public,
          basic(keys.demoTest),
          webhookSecret,
          webhookSecret.replace(/^whsec_/, ""),
          customer.email,
          customer.name,
          "query-secret-value"
        ]
      ) assert.notInclude(text, secret)

      // A payment the provider reports paid with another amount (the simulator's 40902): the D11
      // guard leaves it as it is, and counts it.
      const overpaid = await call(handler, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: Simulator.magicAmounts.overpaid } })
      assert.strictEqual(overpaid.status, 201, overpaid.text)
      assert.strictEqual((await call(handler, "POST", `/payment_intents/${overpaid.json.id as string}/confirm`, { key: keys.demoTest })).status, 200)

      // A provider notification (D11) of a type Tender does not act on: counted as it is stored.
      const notice = JSON.stringify({ id: `evt_${crypto.randomUUID()}`, type: "charge.dispute.created" })
      const noticed = await call(handler, "POST", "/provider_notifications/simulator", {
        raw: notice,
        headers: { [Simulator.signatureHeader]: Simulator.signNotification({ body: notice }) }
      })
      assert.strictEqual(noticed.status, 200, noticed.text)

      // Every metric of docs/observability.md, collected by the host's reader.
      const collect = async () => {
        const { resourceMetrics } = await reader.collect()
        return new Map(resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m]))
      }
      const metricNames = Object.entries(Telemetry.names).filter(([k]) => !["providerCall", "taskRun", "webhookAttempt"].includes(k)).map(([, v]) => v)
      let collected = await collect()
      for (let i = 0; i < 100 && metricNames.some((n) => !collected.has(n)); i++) {
        await new Promise((ok) => setTimeout(ok, 20))
        collected = await collect()
      }
      for (const name of metricNames) assert.isTrue(collected.has(name), `metric ${name} collected`)
      const points = (name: string) => collected.get(name)!.dataPoints as ReadonlyArray<{ attributes: Record<string, unknown>; value: unknown }>
      assert.isTrue(
        points(Telemetry.names.paymentsFinished).some((p) => p.attributes["status"] === "succeeded" && p.attributes["payment_method"] === "th_promptpay")
      )
      assert.isTrue(points(Telemetry.names.paymentsCreated).some((p) => p.attributes["provider"] === "simulator"))
      assert.isTrue(points(Telemetry.names.webhookAttempts).some((p) => p.attributes["outcome"] === "delivered"))
      assert.isTrue(
        points(Telemetry.names.httpRequests).some((p) =>
          p.attributes["http.route"] === "/payment_intents/{id}/confirm" && p.attributes["http.response.status_code"] === "200"
        )
      )
      assert.isTrue(points(Telemetry.names.routeState).some((p) => p.attributes["route"] !== undefined && p.value === 0))
      assert.strictEqual(collected.get(Telemetry.names.httpDuration)!.descriptor.unit, "ms")
      assert.isTrue(points(Telemetry.names.providerNotices).some((p) => p.attributes["provider"] === "simulator" && p.attributes["outcome"] === "ignored"))
      assert.isTrue(points(Telemetry.names.providerMismatches).some((p) => p.attributes["provider"] === "simulator" && p.attributes["source"] === "confirm"))
      assert.isTrue(hook.received() >= 1)
    } finally {
      await web.dispose()
    }
  })
})
