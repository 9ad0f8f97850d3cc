import * as StripeStandIn from "@tender/stripe/testing"
import { openApiOf } from "@tender/testing/StandIn"
import Stripe from "stripe"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { emitted, served } from "../src/internal/standin/handlers.js"

let standIn: StripeStandIn.StripeStandIn
beforeEach(async () => {
  standIn = await StripeStandIn.start()
})
afterEach(() => standIn.close())

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${standIn.url}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_x", "stripe-version": "2023-08-16", "content-type": "application/x-www-form-urlencoded", ...headers },
    body
  })

describe("the Stripe stand-in (Stripe's published OpenAPI description, 2023-08-16)", () => {
  it("records its source: the stripe/openapi commit and file the extract was generated from", () => {
    expect(StripeStandIn.extract.source).toMatchObject({ spec: { commit: "63a674638635c68de26b9f3add13e58198f4df44", file: "openapi/spec3.yaml" } })
    expect(StripeStandIn.extract.apiVersion).toBe("2023-08-16")
  })

  it("refuses what the description does not allow, in Stripe's error shape, and records it", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["/v1/payment_intents", "amount=100&currency=thb&colour=red", /unknown parameter colour/],
      ["/v1/payment_intents", "amount=ten&currency=thb", /body\.amount: must be integer/],
      ["/v1/payment_intents", "currency=thb", /missing required amount/],
      ["/v1/payment_intents", "amount=100&currency=thb&payment_method_types=promptpay", /payment_method_types: must be array/],
      ["/v1/payment_intents/pi_1/capture", "", /is not an operation of the description/],
      ["/v1/refunds", "payment_intent=pi_1&metadata[a][b]=c", /metadata\.a: must be string/]
    ]
    for (const [path, body, problem] of cases) {
      const res = await post(path, body)
      expect(res.status).toBeGreaterThanOrEqual(400)
      const json = await res.json() as { error: { type: string; message: string } }
      expect(json.error.type).toBe("invalid_request_error")
      expect(json.error.message).toMatch(problem)
    }
    expect(standIn.refusals.map((r) => r.problems.join("; "))).toHaveLength(cases.length)
    expect(standIn.paymentIntents.size).toBe(0)
  })

  it("refuses the SDK's default API version: only the description's version is checked", async () => {
    const sdk = new Stripe("sk_test_x", { host: "127.0.0.1", port: standIn.port, protocol: "http", maxNetworkRetries: 0 })
    await expect(sdk.paymentIntents.retrieve("pi_1")).rejects.toThrow(/the description is of API version 2023-08-16/)
    expect(standIn.refusals).toHaveLength(1)
    standIn.refusals.length = 0
  })

  it("decodes the SDK's bracket notation into arrays and objects of the schema's types", async () => {
    const res = await post(
      "/v1/payment_intents",
      "amount=1000&currency=thb&confirm=true&payment_method_types[0]=promptpay&payment_method_data[type]=promptpay&metadata[tender_payment_intent]=dord_1"
    )
    expect(res.status).toBe(200)
    const pi = await res.json() as Record<string, unknown>
    expect(pi).toMatchObject({ amount: 1000, status: "requires_action", payment_method_types: ["promptpay"], metadata: { tender_payment_intent: "dord_1" } })
    expect(standIn.refusals).toEqual([])
  })

  it("answers a repeated Idempotency-Key with the first answer, and with Stripe's idempotency_error when the body differs", async () => {
    const body = "amount=1000&currency=thb"
    const first = await (await post("/v1/payment_intents", body, { "idempotency-key": "k1" })).json() as { id: string }
    const again = await post("/v1/payment_intents", body, { "idempotency-key": "k1" })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect((await again.json() as { id: string }).id).toBe(first.id)
    const other = await post("/v1/payment_intents", "amount=2000&currency=thb", { "idempotency-key": "k1" })
    expect(other.status).toBe(400)
    expect(await other.json()).toMatchObject({ error: { type: "idempotency_error" } })
    expect(standIn.paymentIntents.size).toBe(1)
    expect(standIn.refusals).toEqual([])
  })

  it("refuses a request without a secret key with Stripe's 401", async () => {
    const res = await fetch(`${standIn.url}/v1/payment_intents/pi_1`)
    expect(res.status).toBe(401)
  })

  it("compiles, when it starts, the checks of every operation it serves and of the events it sends: no request pays for compiling", async () => {
    const api = openApiOf(StripeStandIn.extract)
    expect(api.uncompiled(served, emitted)).toEqual([])
    expect(served).toContain("PostPaymentIntents")
    await expect(api.compile(["PostPaymentIntent"], ["event"])).rejects.toThrow("not in the OpenAPI extract: PostPaymentIntent")
  })

  it("checks its own answers against the description's response schemas", () => {
    const api = openApiOf(StripeStandIn.extract)
    const op = api.match("GET", "/v1/refunds/re_1")!
    expect(api.checkResponse(op, 200, { id: "re_1", object: "refund", amount: 100, created: 1, currency: "thb" })).toEqual([])
    expect(api.checkResponse(op, 200, { id: "re_1", object: "refund", created: 1, currency: "thb" })).toEqual(["response: missing required amount"])
    expect(api.checkResponse(op, 200, { id: "re_1", object: "refund", amount: 100, created: 1, currency: "thb", status: 3 })).toContain(
      "response.status: must be string,null"
    )
  })
})
