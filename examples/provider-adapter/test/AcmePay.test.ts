/**
 * The adapter author's path (docs/provider-adapters.md): the pure mapping on its own, then
 * the adapter installed beside the simulator in a real Tender, against a tiny local server
 * standing in for the PSP over HTTP.
 */
import { Seed, Simulator, Tender, Workers } from "@tender/core"
import type { Provider } from "@tender/core"
import { TenderHttp } from "@tender/http"
import { basic, demoKey, promptpayNamed } from "@tender/repo-test-support"
import { Effect, HashMap, Layer, Logger } from "effect"
import { readFileSync } from "node:fs"
import { afterAll, assert, describe, it } from "vitest"
import { AcmePay, FakeAcme } from "../src/index.js"

const request: Provider.ProviderPaymentRequest = {
  paymentIntentId: "dord_3kT9qL2mXw8ZbR4nV7cY1pHs",
  environment: "live",
  amount: "150000",
  currency: "THB",
  country: "TH",
  providerMethod: "PROMPTPAY",
  customer: { name: "Somchai Jaidee" },
  payer: null,
  returnUrl: null
}

describe("AcmePay mapping (pure)", () => {
  it("sends our intent id as the reference", () => {
    assert.deepStrictEqual(AcmePay.toAcmeCharge(request), {
      reference: "dord_3kT9qL2mXw8ZbR4nV7cY1pHs",
      method: "PROMPTPAY",
      amount: "150000",
      currency: "THB",
      payer_name: "Somchai Jaidee"
    })
  })

  it("a QR payload is a display_qr_code action; paid is processing then succeeded; declined is a decline", () => {
    assert.deepStrictEqual(AcmePay.fromAcmeCharge({ id: "ch_1", status: "pending", qr_payload: "000201" }), {
      _tag: "Action",
      providerPaymentId: "ch_1",
      nextAction: { type: "display_qr_code", qr_data: "000201" }
    })
    assert.strictEqual(AcmePay.fromAcmeCharge({ id: "ch_2", status: "pending" })._tag, "Processing")
    assert.deepInclude(AcmePay.fromAcmeCharge({ id: "ch_3", status: "declined", decline_code: "insufficient_funds" }), {
      _tag: "Failed",
      failureCode: "insufficient_funds"
    })
    assert.deepStrictEqual(AcmePay.statusOf({ id: "ch_1", status: "paid", amount_paid: "150000" }), { _tag: "Succeeded", amount: "150000" })
    assert.deepStrictEqual(AcmePay.statusOf({ id: "ch_1", status: "pending" }), { _tag: "Pending" })
  })
})

// Tender with the simulator and Acme, on the in-memory store, workers polling fast; the log
// lines kept, as a host routes them into its own logger.
const acme = await FakeAcme.start()
const lines: Array<{ level: string; message: string }> = []
const seed = Effect.runSync(Seed.decode(JSON.parse(readFileSync(new URL("../seed.json", import.meta.url), "utf8"))))
const services = Workers.layer({ pollMillis: 20 }).pipe(
  Layer.provideMerge(Tender.layerMemory({
    seed,
    hostedCheckout: { baseUrl: "https://pay.example.test", secret: "test-secret" },
    providers: [
      Simulator.make({ baseUrl: "https://pay.example.test/simulator" }),
      AcmePay.make({ apiKey: "acme_test_key", baseUrl: acme.url, timeoutMillis: 2_000 })
    ]
  })),
  Layer.provideMerge(Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) =>
      lines.push({
        level: logLevel.label,
        message: [...(Array.isArray(message) ? message : [message]), ...HashMap.values(annotations)].map(String).join(" ")
      })
    )
  ))
)
const tender = TenderHttp.toWebHandler(services)
afterAll(async () => {
  await tender.dispose()
  await acme.close()
})

const live = basic({ public: "pk_live_demo2Tz6Wq1Nc4Vm", secret: "sk_live_demo9Lk3Xb7Rf2Hs5Gd8Q" })
const test = basic(demoKey)
const send = async (method: string, path: string, auth: string, body?: unknown) => {
  const res = await tender.handler(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: auth, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  )
  return { status: res.status, json: await res.json() }
}
const promptpay = promptpayNamed

describe("AcmePay refunds (pure, D10)", () => {
  it("sends our refund id as the reference; Acme's refund statuses map to Tender's", () => {
    const payment = {
      paymentIntentId: request.paymentIntentId,
      providerPaymentId: "ch_1",
      environment: "live" as const,
      amount: "150000",
      currency: "THB",
      createdAt: 0
    }
    assert.deepStrictEqual(
      AcmePay.toAcmeRefund({ refundId: "rfnd_7Kq2Wz9Lm4Xc8Vb1Ny3Hn5Rt", payment, amount: "50000", destination: null, createdAt: 0 }),
      { reference: "rfnd_7Kq2Wz9Lm4Xc8Vb1Ny3Hn5Rt", amount: "50000" }
    )
    assert.deepStrictEqual(AcmePay.refundStatusOf({ id: "re_1", status: "succeeded" }), { _tag: "Succeeded" })
    assert.deepStrictEqual(AcmePay.refundStatusOf({ id: "re_1", status: "pending" }), { _tag: "Pending" })
    assert.deepInclude(AcmePay.refundStatusOf({ id: "re_1", status: "failed", failure_code: "account_closed" }), {
      _tag: "Failed",
      failureCode: "account_closed"
    })
  })
})

describe("AcmePay installed beside the simulator", () => {
  it("a live create goes to Acme over HTTP with our id as its idempotency key; confirm pays it", async () => {
    const created = await send("POST", "/payment_intents", live, promptpay)
    assert.strictEqual(created.status, 201, JSON.stringify(created.json))
    assert.strictEqual(created.json.status, "requires_action")
    assert.strictEqual(created.json.next_action.type, "display_qr_code")
    const call = acme.seen.find((c) => c.path === "/v1/charges")
    assert.strictEqual(call?.idempotencyKey, created.json.id)
    assert.deepInclude(call?.body as object, { reference: created.json.id, method: "PROMPTPAY", amount: "150000" })

    assert.strictEqual((await send("POST", `/payment_intents/${created.json.id}/confirm`, live)).status, 200)
    let status = ""
    for (let i = 0; i < 200 && status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 20))
      status = (await send("GET", `/payment_intents/${created.json.id}`, live)).json.status
    }
    assert.strictEqual(status, "succeeded")
    assert.isTrue(acme.seen.some((c) => c.path.endsWith("/confirm") && c.idempotencyKey === created.json.id))
  })

  it("D10 a refund of a live payment goes to Acme with our refund id as its idempotency key, and succeeds", async () => {
    const created = await send("POST", "/payment_intents", live, promptpay)
    await send("POST", `/payment_intents/${created.json.id}/confirm`, live)
    const until = async (path: string, done: (b: any) => boolean) => {
      let body = (await send("GET", path, live)).json
      for (let i = 0; i < 200 && !done(body); i++) {
        await new Promise((r) => setTimeout(r, 20))
        body = (await send("GET", path, live)).json
      }
      return body
    }
    assert.strictEqual((await until(`/payment_intents/${created.json.id}`, (b) => b.status === "succeeded")).status, "succeeded")
    const refund = await send("POST", "/refunds", live, { payment_intent: created.json.id, amount: "50000" })
    assert.strictEqual(refund.status, 201, JSON.stringify(refund.json))
    assert.strictEqual((await until(`/refunds/${refund.json.id}`, (b) => b.status !== "pending")).status, "succeeded")
    const call = acme.seen.find((c) => c.path.endsWith("/refunds"))
    assert.strictEqual(call?.idempotencyKey, refund.json.id)
    assert.deepStrictEqual(call?.body, { reference: refund.json.id, amount: "50000" })
    assert.strictEqual((await send("GET", `/payment_intents/${created.json.id}`, live)).json.amount_refunded, "50000")
  })

  it("a test-key create still goes to the simulator", async () => {
    const before = acme.seen.length
    const created = await send("POST", "/payment_intents", test, promptpay)
    assert.strictEqual(created.status, 201)
    assert.strictEqual(acme.seen.length, before)
  })

  it("an Acme outage is ProviderUnavailable: 422 routing_unavailable, and a warning in the host's logger", async () => {
    acme.failNext(1)
    const refused = await send("POST", "/payment_intents", live, promptpay)
    assert.strictEqual(refused.status, 422)
    assert.strictEqual(refused.json.error.code, "routing_unavailable")
    const warning = lines.find((l) => l.level === "WARN" && l.message.includes("provider unavailable"))
    assert.isDefined(warning, JSON.stringify(lines))
    assert.include(warning!.message, "HTTP 503")
  })
})
