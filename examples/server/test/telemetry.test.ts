/**
 * The demo server with the standard OTEL_* variables (docs/observability.md): a collector on
 * loopback receives its spans and metrics over OTLP/HTTP, and the health routes answer.
 */
import { basic, demoKey, promptpay, startDemo, stopProcess } from "@tender/repo-test-support"
import type { ChildProcess } from "node:child_process"
import { createServer, type Server } from "node:http"
import { afterAll, assert, describe, it } from "vitest"

const children: Array<ChildProcess> = []
let collector: Server | undefined
afterAll(async () => {
  await Promise.all(children.map((child) => stopProcess(child)))
  collector?.closeAllConnections()
  collector?.close()
})

describe("telemetry: the demo server exports over OTLP from OTEL_* variables", () => {
  it("telemetry: with OTEL_EXPORTER_OTLP_ENDPOINT set, the demo sends a create's spans to /v1/traces and Tender's metrics to /v1/metrics; /healthz and /readyz answer 200", async () => {
    const received: Array<{ path: string; body: string }> = []
    collector = createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (c) => (body += c))
      req.on("end", () => {
        received.push({ path: req.url ?? "", body })
        res.setHeader("content-type", "application/json")
        res.end("{}")
      })
    })
    await new Promise<void>((ok) => collector!.listen(0, "127.0.0.1", ok))
    const address = collector.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const server = await startDemo({
      // In memory whatever the suite's DATABASE_URL: spans are the point here, and the demo's
      // default table prefix would be left behind in a DATABASE_URL of the host's.
      DATABASE_URL: "",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: "tender-demo-test",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "200"
    }, { children })
    const created = await fetch(`${server.url}/payment_intents`, {
      method: "POST",
      headers: { authorization: basic(demoKey), "content-type": "application/json" },
      body: JSON.stringify(promptpay)
    })
    assert.strictEqual(created.status, 201)
    assert.strictEqual((await fetch(`${server.url}/healthz`)).status, 200)
    assert.strictEqual((await fetch(`${server.url}/readyz`)).status, 200)
    const has = (path: string, text: string) => received.some((r) => r.path === path && r.body.includes(text))
    for (let i = 0; i < 100 && !(has("/v1/traces", "tender.provider.call") && has("/v1/metrics", "tender.payments.created")); i++) {
      await new Promise((ok) => setTimeout(ok, 50))
    }
    assert.isTrue(has("/v1/traces", "tender.provider.call"), "spans exported")
    assert.isTrue(has("/v1/traces", "tender-demo-test"), "service.name from OTEL_SERVICE_NAME")
    assert.isTrue(has("/v1/metrics", "tender.payments.created"), "metrics exported")
    assert.notInclude(received.map((r) => r.body).join("\n"), demoKey.secret)
  })
})
