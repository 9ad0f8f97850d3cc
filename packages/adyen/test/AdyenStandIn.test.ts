import * as AdyenStandIn from "@tender/adyen/testing"
import { openApiOf } from "@tender/testing/StandIn"
import * as TestTls from "@tender/testing/TestTls"
import { request } from "node:https"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

let standIn: AdyenStandIn.AdyenStandIn
beforeEach(async () => {
  standIn = await AdyenStandIn.start()
})
afterEach(() => standIn.close())

/** A request over HTTPS trusting the test CA, as the SDK sends them. */
const post = (path: string, body: unknown, headers: Record<string, string> = {}, ca: string | null = TestTls.ca) =>
  new Promise<{ status: number; headers: Record<string, unknown>; json: any }>((resolve, reject) => {
    const text = typeof body === "string" ? body : JSON.stringify(body)
    const req = request(`${standIn.url}${path}`, {
      method: "POST",
      ...(ca === null ? {} : { ca }),
      headers: { "x-api-key": "AQE_key", "content-type": "application/json", ...headers }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString()) }))
    })
    req.on("error", reject)
    req.end(text)
  })

const promptpay = (reference: string) => ({
  amount: { value: 150000, currency: "THB" },
  merchantAccount: "TenderTestTH",
  paymentMethod: { type: "promptpay" },
  reference,
  returnUrl: "https://merchant.example/return"
})

describe("the Adyen stand-in (Adyen's published OpenAPI description, Checkout API v72, Webhooks v1)", () => {
  it("records its source: the Adyen/adyen-openapi commit and files the extract was generated from", () => {
    expect(AdyenStandIn.extract.source).toMatchObject({
      repository: "github.com/Adyen/adyen-openapi",
      commit: "aa014f0cbdb58ff5c44a2ff9d5fe734642210aff",
      checkout: "json/CheckoutService-v72.json",
      webhooks: "json/Webhooks-v1.json"
    })
    expect([AdyenStandIn.extract.apiVersion, AdyenStandIn.extract.webhooksVersion]).toEqual(["v72", "v1"])
    expect(standIn.apiBase).toBe(`${standIn.url}/v72`)
  })

  it("refuses what the description does not allow, in Adyen's ServiceError shape, and records it", async () => {
    const { reference: _, ...noReference } = promptpay("x")
    const cases: Array<[string, unknown, RegExp]> = [
      ["/v72/payments", { ...promptpay("dord_1"), colour: "red" }, /unknown parameter colour/],
      ["/v72/payments", { ...promptpay("dord_1"), amount: { value: "1500", currency: "THB" } }, /body\.amount\.value: must be integer/],
      ["/v72/payments", noReference, /missing required reference/],
      ["/v72/payments", { ...promptpay("dord_1"), paymentMethod: { type: "molpay_ebanking_TH" } }, /body\.paymentMethod/],
      ["/v72/payments", "amount=1500", /not valid JSON/],
      ["/v71/payments", promptpay("dord_1"), /is not an operation of the description/],
      ["/v72/payments/ABC/captures", { merchantAccount: "TenderTestTH", amount: { value: 1, currency: "THB" } }, /is not an operation of the description/],
      ["/v72/payments/ABC/refunds", { merchantAccount: "TenderTestTH" }, /missing required amount/]
    ]
    for (const [path, body, problem] of cases) {
      const res = await post(path, body)
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.json).toMatchObject({ status: res.status, errorCode: expect.any(String), errorType: "validation" })
      expect(res.json.message).toMatch(problem)
    }
    expect(standIn.refusals).toHaveLength(cases.length)
    expect(standIn.payments.size).toBe(0)
    standIn.refusals.length = 0
  })

  it("refuses a form body: the description takes JSON", async () => {
    const res = await post("/v72/payments", "reference=dord_1", { "content-type": "application/x-www-form-urlencoded" })
    expect(res.status).toBe(400)
    expect(standIn.refusals.map((r) => r.problems.join())).toEqual([expect.stringMatching(/takes application\/json/)])
    standIn.refusals.length = 0
  })

  it("serves HTTPS only, with a certificate a client that does not trust the test CA refuses", async () => {
    await expect(post("/v72/payments", promptpay("dord_tls"), {}, null)).rejects.toThrow(/self-signed|unable to verify|certificate/i)
    expect(standIn.url).toMatch(/^https:\/\/127\.0\.0\.1:/)
    expect(standIn.requests).toEqual([])
  })

  it("refuses a request without an API key with Adyen's 401, and another merchant account with Adyen's 403", async () => {
    const res = await post("/v72/payments", promptpay("dord_1"), { "x-api-key": "" })
    expect(res).toMatchObject({ status: 401, json: { status: 401, errorType: "security" } })
    const scoped = await AdyenStandIn.start({ merchantAccount: "OnlyThisOne" })
    try {
      const other = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${scoped.apiBase}/payments`,
          { method: "POST", ca: TestTls.ca, headers: { "x-api-key": "k", "content-type": "application/json" } },
          (r) => {
            r.resume()
            resolve(r.statusCode ?? 0)
          }
        )
        req.on("error", reject)
        req.end(JSON.stringify(promptpay("dord_2")))
      })
      expect(other).toBe(403)
      expect(scoped.refusals).toEqual([])
    } finally {
      await scoped.close()
    }
  })

  it("answers a repeated Idempotency-Key with the first answer, and with Adyen's 422 when the body differs", async () => {
    const first = await post("/v72/payments", promptpay("dord_k1"), { "idempotency-key": "k1" })
    expect(first.json).toMatchObject({ resultCode: "Pending", action: { type: "qrCode", paymentMethodType: "promptpay" } })
    const again = await post("/v72/payments", promptpay("dord_k1"), { "idempotency-key": "k1" })
    expect(again.headers["idempotent-replayed"]).toBe("true")
    expect(again.json.pspReference).toBe(first.json.pspReference)
    const other = await post("/v72/payments", promptpay("dord_k2"), { "idempotency-key": "k1" })
    expect(other).toMatchObject({ status: 422, json: { status: 422, errorCode: "704" } })
    expect(standIn.payments.size).toBe(1)
    expect(standIn.refusals).toEqual([])
  })

  it("compiles, when it starts, the checks of every operation of its description and of its notifications: no request pays for compiling", () => {
    expect(openApiOf(AdyenStandIn.extract).uncompiled(undefined, Object.values(AdyenStandIn.extract.notifications))).toEqual([])
  })

  it("checks its own answers against the description's response schemas, and its notifications against each event's webhook schema", () => {
    const api = openApiOf(AdyenStandIn.extract)
    const op = api.match("POST", "/v72/payments/ABC/refunds")!
    const refund = { merchantAccount: "M", paymentPspReference: "ABC", pspReference: "DEF", status: "received", amount: { value: 1, currency: "THB" } }
    expect(api.checkResponse(op, 201, refund)).toEqual([])
    const { pspReference: _, ...noPsp } = refund
    expect(api.checkResponse(op, 201, noPsp)).toEqual(["response: missing required pspReference"])
    expect(api.checkResponse(op, 201, { ...refund, status: "done" })).toEqual([
      expect.stringMatching(/response\.status: must be equal to one of the allowed values/)
    ])
    const item = {
      amount: { value: 1, currency: "THB" },
      eventCode: "AUTHORISATION",
      eventDate: "2026-11-28T01:00:00+00:00",
      merchantAccountCode: "M",
      merchantReference: "dord_1",
      pspReference: "ABC",
      success: "true",
      additionalData: { hmacSignature: "x" }
    }
    const schema = AdyenStandIn.extract.notifications["AUTHORISATION"]!
    expect(api.checkComponent(schema, { live: "false", notificationItems: [{ NotificationRequestItem: item }] })).toEqual([])
    expect(api.checkComponent(schema, { live: "false", notificationItems: [{ NotificationRequestItem: { ...item, eventCode: "REFUND" } }] })).not.toEqual([])
  })
})
