/**
 * The Express example as a host runs it: a real server, the host's own pg.Pool on the real
 * PostgreSQL, Tender under /payments beside the app's routes (docs/embedding.md).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { makeApp } from "../src/app.js"

const url = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const tablePrefix = `t${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}_`
const auth = "Basic " + Buffer.from("pk_test_demo4f8Kq2Lm9XwZ:sk_test_demo7Hn3Rt5Vb8Yc2Pq6Jw").toString("base64")
const intent = {
  amount: "150000",
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_promptpay",
  customer: { name: "Somchai Jaidee", email: "somchai@example.com" }
}

const pool = new pg.Pool({ connectionString: url, max: 5 })
const logs: Array<{ level: string; msg: string }> = []
let server: Server
let base = ""
let made: ReturnType<typeof makeApp>

beforeAll(async () => {
  server = createServer()
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  made = makeApp({
    pool,
    publicUrl: `${base}/payments`,
    checkoutSecret: "test-secret",
    seedPath: fileURLToPath(new URL("../seed.json", import.meta.url)),
    tablePrefix,
    log: (line) => logs.push(line)
  })
  server.on("request", made.app)
  await made.tender.ready()
})

afterAll(async () => {
  await new Promise((ok) => server.close(ok))
  await made.tender.dispose()
  const { rows } = await pool.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, $1)",
    [tablePrefix]
  )
  for (const { name } of rows) await pool.query(`DROP TABLE IF EXISTS "${name}"`)
  await pool.query(`DROP FUNCTION IF EXISTS "${tablePrefix}guard_failed"(text)`)
  await pool.end()
})

describe("examples/express: Tender under /payments on the app's own pool", () => {
  it("creates a payment intent under the prefix; its hosted URL and the OpenAPI servers carry the prefix", async () => {
    const created = await fetch(`${base}/payments/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify(intent)
    })
    assert.strictEqual(created.status, 201)
    const body = await created.json()
    assert.strictEqual(body.amount, "150000")
    const got = await fetch(`${base}/payments/payment_intents/${body.id}`, { headers: { authorization: auth } })
    assert.strictEqual((await got.json()).id, body.id)
    const hosted = await fetch(`${base}/payments/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify({ amount: "990", currency: "THB", country: "TH", customer: {} })
    })
    const next = (await hosted.json()).next_action
    assert.match(JSON.stringify(next), new RegExp(`${base}/payments/checkout/`))
    const doc = await (await fetch(`${base}/payments/openapi.json`)).json()
    // The server resolves against the document's URL: a generated client calls /payments/….
    assert.strictEqual(new URL(doc.servers[0].url, `${base}/payments/openapi.json`).href, `${base}/payments/`)
  })

  it("D10 cancels a payment and refunds a paid one under the prefix, on the app's pool", async () => {
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/payments${path}`, {
        method,
        headers: { authorization: auth, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {})
      })
      return { status: res.status, body: await res.json() }
    }
    const until = async (path: string, done: (b: any) => boolean) => {
      for (let i = 0; i < 150; i++) {
        const b = (await send("GET", path)).body
        if (done(b)) return b
        await new Promise((r) => setTimeout(r, 100))
      }
      return (await send("GET", path)).body
    }
    const toCancel = (await send("POST", "/payment_intents", intent)).body.id
    const canceled = await send("POST", `/payment_intents/${toCancel}/cancel`, { cancellation_reason: "requested_by_customer" })
    assert.deepStrictEqual([canceled.status, canceled.body.status, canceled.body.cancellation_reason], [200, "canceled", "requested_by_customer"])
    const paid = (await send("POST", "/payment_intents", intent)).body.id
    await send("POST", `/payment_intents/${paid}/confirm`)
    assert.strictEqual((await until(`/payment_intents/${paid}`, (b) => b.status === "succeeded")).status, "succeeded")
    const refund = await send("POST", "/refunds", { payment_intent: paid, amount: "50000" })
    assert.deepStrictEqual([refund.status, refund.body.status], [201, "pending"])
    assert.strictEqual((await until(`/refunds/${refund.body.id}`, (b) => b.status !== "pending")).status, "succeeded")
    assert.strictEqual((await send("GET", `/payment_intents/${paid}`)).body.amount_refunded, "50000")
  })

  it("the app's own routes answer beside Tender's, with their body parser; unknown paths get Express's 404", async () => {
    assert.deepStrictEqual(await (await fetch(`${base}/health`)).json(), { ok: true })
    const order = await fetch(`${base}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"sku":"A1"}' })
    assert.strictEqual(order.status, 201)
    assert.deepStrictEqual(await order.json(), { order: { sku: "A1" } })
    const missing = await fetch(`${base}/payments/nope`)
    assert.strictEqual(missing.status, 404)
    assert.notInclude(await missing.text(), "resource_not_found")
  })

  it("Tender's log lines reach the app's logger: a storage fault is logged there, the client gets a D1 5xx", async () => {
    // The idempotency table gone: the create fails in storage, which Tender logs (D1: details to the log only).
    await pool.query(`ALTER TABLE "${tablePrefix}idempotency_keys" RENAME TO "${tablePrefix}idempotency_keys_away"`)
    try {
      const res = await fetch(`${base}/payments/payment_intents`, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(intent)
      })
      assert.isAtLeast(res.status, 500)
      assert.notInclude(await res.text(), "idempotency_keys")
    } finally {
      await pool.query(`ALTER TABLE "${tablePrefix}idempotency_keys_away" RENAME TO "${tablePrefix}idempotency_keys"`)
    }
    const line = logs.find((l) => l.level === "error")
    assert.isDefined(line, JSON.stringify(logs))
    assert.match(line!.msg, /failed/)
  })

  it("shutdown: dispose releases Tender, the app's pool stays open for the app", async () => {
    const { app, tender } = makeApp({
      pool,
      publicUrl: `${base}/other`,
      checkoutSecret: "test-secret",
      seedPath: fileURLToPath(new URL("../seed.json", import.meta.url)),
      tablePrefix,
      log: () => {}
    })
    assert.isFunction(app)
    await tender.ready()
    await tender.dispose()
    assert.strictEqual((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one, 1)
  })
})
