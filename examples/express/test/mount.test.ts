/**
 * Tender mounted where its `publicUrl` does not say (docs/embedding.md, "The prefix"): the first
 * request that shows it is logged once as a warning naming both paths, instead of every request
 * falling through to the host's 404 without a word.
 */
import { createTender } from "@tender/server"
import express from "express"
import { createServer, type Server } from "node:http"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it, vi } from "vitest"

const merchants = fileURLToPath(new URL("../seed.json", import.meta.url))
const servers: Array<{ server: Server; close: () => Promise<void> }> = []
afterEach(async () => {
  for (const { server, close } of servers.splice(0)) {
    await new Promise<void>((ok) => server.close(() => ok()))
    await close()
  }
})

/** An Express app with Tender (publicUrl path /payments) mounted by `mount`; its warnings. */
const start = async (mount: (app: express.Express, middleware: express.RequestHandler) => void) => {
  const warnings: Array<string> = []
  const tender = await createTender({
    publicUrl: "http://127.0.0.1/payments",
    checkoutSecret: "test-secret",
    merchants,
    logger: { info() {}, error() {}, warn: (_fields, message) => void warnings.push(message) }
  })
  const app = express()
  mount(app, tender.express() as express.RequestHandler)
  app.use((_req, res) => void res.status(404).json({ host: "not found" }))
  const server = createServer(app)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  servers.push({ server, close: tender.close })
  const { port } = server.address() as { port: number }
  const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status)
  const post = (path: string, body: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.status)
  return { warnings, get, post }
}

describe("Tender mounted outside its prefix", () => {
  it("mount: app.use(\"/api\", …) while publicUrl says /payments is warned once, naming both", async () => {
    const { get, warnings } = await start((app, tender) => app.use("/api", tender))
    assert.deepStrictEqual(await Promise.all([get("/api/payment_intents"), get("/api/payment_intents/pi_1"), get("/api/anything")]), [404, 404, 404])
    await vi.waitFor(() => assert.isNotEmpty(warnings))
    await get("/api/refunds")
    assert.deepStrictEqual(warnings, [
      `tender: mounted at "/api" but its prefix (the path of publicUrl) is "/payments": requests under /api never reach Tender's routes; mount it with app.use(tender.express()) (no path) or make publicUrl's path /api`
    ])
  })

  it("mount: one of Tender's routes asked for without the prefix is warned once; the host's own paths are not", async () => {
    const { get, warnings } = await start((app, tender) => app.use(tender))
    assert.strictEqual(await get("/healthz"), 404)
    assert.strictEqual(await get("/openapi.json"), 404)
    assert.strictEqual(await get("/orders"), 404)
    assert.strictEqual(await get("/payments/healthz"), 200)
    assert.deepStrictEqual(warnings, [])
    assert.strictEqual(await get("/payment_intents"), 404)
    await vi.waitFor(() => assert.isNotEmpty(warnings))
    await get("/refunds")
    assert.deepStrictEqual(warnings, [
      `tender: a request for /payment_intents reached Tender outside its prefix "/payments" (the path of publicUrl): Tender answers only under /payments; does a proxy or a framework strip the prefix? then give publicUrl the path it keeps`
    ])
  })

  it("mount: app.use(\"/payments\", …) under its own prefix is not warned", async () => {
    const { get, warnings } = await start((app, tender) => app.use("/payments", tender))
    assert.strictEqual(await get("/payments/healthz"), 200)
    assert.strictEqual(await get("/payments/nothing_here"), 404)
    assert.deepStrictEqual(warnings, [])
  })

  it("body parser: a parser mounted before Tender is named with the fix for Express and for NestJS, not answered with a misleading 400", async () => {
    const errors: Array<string> = []
    const { post, warnings } = await start((app, tender) => {
      app.use(express.json())
      app.use(tender)
      app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        errors.push(error.message)
        res.status(500).json({ host: "error" })
      })
    })
    assert.strictEqual(await post("/payments/payment_intents", "{}"), 500)
    assert.deepStrictEqual(errors, [
      "tender: a body parser read the request body before Tender, which reads it byte for byte. " +
      "Express: app.use(tender.express()) (or Express.middleware(tender)) before express.json(). " +
      "NestJS: NestFactory.create(AppModule, { bodyParser: false }), then app.use(tender.express()) in main.ts before app.useBodyParser(\"json\")"
    ])
    assert.deepStrictEqual(warnings, [])
  })
})
