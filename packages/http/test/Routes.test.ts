/**
 * The routes through the real fetch handler: every status and error code each
 * route can return (checked against /openapi.json both ways), idempotency and
 * merchant_reference races and in-flight repeats, and the wire shapes.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { bankTransfer as bankTransferBody, jsonHeaders, promptpayNamed as promptpay } from "@tender/test-support"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import type { Provider } from "@tender/core"
import { Simulator, Storage, StorageError, WebhookEndpoint, Workers } from "@tender/core"
import type { TenderHttp } from "../src/index.js"
import { keys, layer, quiet } from "../../core/test/fixtures.js"
import type { Key, Reply } from "./harness.js"
import { app, assertError, basic, brokenDirectory, brokenStorage, call, failingDirectory, failingStorage, formWith, png } from "./harness.js"


const bankTransfer = bankTransferBody()
const json = jsonHeaders

/** A store that cannot be reached: every operation is StorageUnavailable (503). */
const unavailableStorage = failingStorage(() => new StorageError.StorageUnavailable({ message: "connection refused" }))
/** The key directory unreachable for now: every authenticated route answers 503. */
const unavailableDirectory = failingDirectory(() => new StorageError.StorageUnavailable({ message: "directory restarting" }))

/** The error codes a documented response can carry, read from its schemas (each a D1 body with one code). */
const documentedCodes = (doc: any, response: any): Array<string> => {
  const schema = response.content["application/json"].schema
  return (schema.anyOf ?? [schema]).map((member: { $ref: string }) => {
    const body = doc.components.schemas[member.$ref.replace("#/components/schemas/", "")]
    assert.deepStrictEqual(body.required, ["error"], member.$ref)
    assert.includeMembers(body.properties.error.required, ["code", "message", "request_id"], member.$ref)
    assert.sameMembers(Object.keys(body.properties.error.properties), ["code", "message", "param", "details", "request_id"], member.$ref)
    const codes = body.properties.error.properties.code.enum
    assert.lengthOf(codes, 1, member.$ref)
    return codes[0]
  })
}

/** A simulator whose create-payment waits for `release`; `called` resolves when it is entered. */
const gated = () => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  let signal!: () => void
  const called = new Promise<void>((resolve) => (signal = resolve))
  const sim = Simulator.make()
  const provider: Provider.PaymentProvider = {
    ...sim,
    createPayment: (req) => Effect.sync(signal).pipe(Effect.zipRight(Effect.promise(() => gate)), Effect.zipRight(sim.createPayment(req)))
  }
  return { provider, release, called }
}

type Op =
  | "paymentIntents.create"
  | "paymentIntents.retrieve"
  | "paymentIntents.list"
  | "paymentIntents.confirm"
  | "paymentIntents.receipt"
  | "paymentIntents.cancel"
  | "assets.upload"
  | "payoutIntents.create"
  | "payoutIntents.retrieve"
  | "payoutIntents.list"
  | "payoutIntents.cancel"
  | "refunds.create"
  | "refunds.retrieve"
  | "refunds.list"
  | "topupIntents.create"
  | "topupIntents.retrieve"
  | "topupIntents.list"
  | "topupIntents.receipt"
  | "webhookEndpoints.create"
  | "webhookEndpoints.list"
  | "webhookEndpoints.retrieve"
  | "webhookEndpoints.delete"
  | "paymentMethods.options"
  | "webhookEndpoints.attempts"
  | "webhookEndpoints.resend"
  | "webhookEndpoints.rotateSecret"
  | "webhookEndpoints.enable"
  | "events.list"
  | "events.retrieve"
  | "webhookEventTypes.catalogue"
  | "openapi"

const documented: Record<Exclude<Op, "openapi">, readonly [string, string]> = {
  "paymentIntents.create": ["/payment_intents", "post"],
  "paymentIntents.retrieve": ["/payment_intents/{id}", "get"],
  "paymentIntents.list": ["/payment_intents", "get"],
  "paymentIntents.confirm": ["/payment_intents/{id}/confirm", "post"],
  "paymentIntents.receipt": ["/payment_intents/{id}/receipt", "post"],
  "paymentIntents.cancel": ["/payment_intents/{id}/cancel", "post"],
  "assets.upload": ["/assets", "post"],
  "payoutIntents.create": ["/payout_intents", "post"],
  "payoutIntents.retrieve": ["/payout_intents/{id}", "get"],
  "payoutIntents.list": ["/payout_intents", "get"],
  "payoutIntents.cancel": ["/payout_intents/{id}/cancel", "post"],
  "refunds.create": ["/refunds", "post"],
  "refunds.retrieve": ["/refunds/{id}", "get"],
  "refunds.list": ["/refunds", "get"],
  "topupIntents.create": ["/topup_intents", "post"],
  "topupIntents.retrieve": ["/topup_intents/{id}", "get"],
  "topupIntents.list": ["/topup_intents", "get"],
  "topupIntents.receipt": ["/topup_intents/{id}/receipt", "post"],
  "webhookEndpoints.create": ["/webhook_endpoints", "post"],
  "webhookEndpoints.list": ["/webhook_endpoints", "get"],
  "webhookEndpoints.retrieve": ["/webhook_endpoints/{id}", "get"],
  "webhookEndpoints.delete": ["/webhook_endpoints/{id}", "delete"],
  "webhookEndpoints.attempts": ["/webhook_endpoints/{id}/attempts", "get"],
  "webhookEndpoints.resend": ["/webhook_endpoints/{id}/resend", "post"],
  "webhookEndpoints.rotateSecret": ["/webhook_endpoints/{id}/rotate_secret", "post"],
  "webhookEndpoints.enable": ["/webhook_endpoints/{id}/enable", "post"],
  "events.list": ["/events", "get"],
  "events.retrieve": ["/events/{id}", "get"],
  "paymentMethods.options": ["/payment_methods/options", "get"],
  "webhookEventTypes.catalogue": ["/webhook_event_types", "get"]
}

const runtimes: Array<{ readonly dispose: () => Promise<void> }> = []
afterAll(() => Promise.all(runtimes.map((r) => r.dispose())))

describe("error codes x routes over HTTP", () => {
  it("D1 every status and error code of every route, in the D1 body with Request-Id, and each one documented in /openapi.json (and each documented one produced)", async () => {
    const h = app()
    const h500 = app(Layer.mergeAll(layer({ storage: brokenStorage }), quiet))
    const hStoreDown = app(Layer.mergeAll(layer({ storage: unavailableStorage }), quiet))
    const hDirectoryDown = app(Layer.merge(layer(), brokenDirectory).pipe(Layer.merge(quiet)))
    const h503 = app(Layer.merge(layer(), unavailableDirectory).pipe(Layer.merge(quiet)))
    const observed: Array<{ op: Op; status: number; code?: string }> = []
    const ok = async (op: Op, res: Promise<Reply>, status: number) => {
      const r = await res
      assert.strictEqual(r.status, status, `${op}: ${r.text}`)
      assert.match(r.headers.get("request-id") ?? "", /^req_[0-9A-Za-z]{24}$/, op)
      assert.strictEqual(r.headers.get("content-type"), "application/json")
      observed.push({ op, status })
      return r
    }
    const err = async (op: Op, res: Promise<Reply>, status: number, code: string, param?: string) => {
      const e = assertError(await res, status, code, param)
      observed.push({ op, status, code })
      return e
    }
    const wrongSecret: Key = { public: keys.demoTest.public, secret: "sk_test_wrongwrongwrong" }

    // POST /payment_intents
    const C = "paymentIntents.create" as const
    const post = (options: Parameters<typeof call>[3], handler = h) => call(handler, "POST", "/payment_intents", options)
    const created = await ok(C, post({ key: keys.demoTest, body: { ...promptpay, merchant_reference: "matrix-1" } }), 201)
    await ok(C, post({ key: keys.demoTest, body: { ...promptpay, merchant_reference: "matrix-1" } }), 200)
    await err(C, post({ key: keys.demoTest, body: { ...promptpay, amount: "0" } }), 400, "validation_failed", "amount")
    await err(C, post({ key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
    await err(C, post({ key: keys.demoTest, raw: JSON.stringify(promptpay), headers: { "content-type": "text/plain" } }), 400, "validation_failed", "Content-Type")
    await err(C, post({ key: keys.demoTest, body: promptpay, headers: { "idempotency-key": "k".repeat(256) } }), 400, "validation_failed", "Idempotency-Key")
    await err(C, post({ key: keys.demoTest, body: { ...promptpay, payment_method: undefined } }), 400, "validation_failed", "payment_method")
    await err(C, post({ key: keys.demoTest, body: { ...promptpay, return_url: "https://shop.example/" } }), 400, "validation_failed", "return_url")
    await err(C, post({ key: keys.demoTest, body: { ...promptpay, checkout_mode: "hosted", payment_method: undefined, payment_method_options: { bank: "KBANK" } } }), 400, "validation_failed", "payment_method_options")
    await err(C, post({ key: keys.demoTest, body: { ...bankTransfer, payment_method_options: { ...bankTransfer.payment_method_options, bank: "NOPE" } } }), 400, "validation_failed", "payment_method_options.bank")
    await err(C, post({ key: keys.demoTest, body: { ...bankTransfer, customer: {} } }), 400, "validation_failed", "customer.name")
    await err(C, post({ body: promptpay }), 401, "authentication_required")
    await err(C, post({ key: wrongSecret, body: promptpay }), 401, "invalid_api_key")
    await err(C, post({ key: keys.hostedOnly, body: promptpay }), 403, "checkout_mode_not_allowed", "checkout_mode")
    await ok(C, post({ key: keys.demoTest, body: promptpay, headers: { "idempotency-key": "matrix-key" } }), 201)
    await err(C, post({ key: keys.demoTest, body: { ...promptpay, amount: "150001" }, headers: { "idempotency-key": "matrix-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(C, post({ key: keys.demoTest, body: { ...promptpay, amount: "150001", merchant_reference: "matrix-1" } }), 409, "idempotency_conflict", "merchant_reference")
    const big = JSON.stringify({ ...promptpay, metadata: { blob: "x".repeat(1024 * 1024) } })
    await err(C, post({ key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(C, post({ key: keys.unconfigured, body: bankTransfer }), 422, "payment_configuration_unavailable")
    await err(C, post({ key: keys.degraded, body: promptpay }), 422, "routing_unavailable")
    await err(C, post({ key: keys.demoTest, body: promptpay }, h500), 500, "internal_error")
    await err(C, post({ key: keys.demoTest, body: promptpay }, h503), 503, "service_unavailable")
    await err(C, post({ key: keys.demoTest, body: promptpay, headers: { "idempotency-key": "matrix-503" } }, hStoreDown), 503, "service_unavailable")
    const put = await call(h, "PUT", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assertError(put, 405, "method_not_allowed")
    assert.strictEqual(put.headers.get("allow"), "GET, POST")

    // GET /payment_intents/{id}
    const R = "paymentIntents.retrieve" as const
    const get = (id: string, key: Key | null = keys.demoTest, handler = h) =>
      call(handler, "GET", `/payment_intents/${id}`, key !== null ? { key } : {})
    const id = created.json.id as string
    await ok(R, get(id), 200)
    await err(R, get("abc"), 400, "validation_failed", "id")
    await err(R, get("dord_%E0%A4%A"), 400, "validation_failed", "id")
    await err(R, get(id, null), 401, "authentication_required")
    await err(R, get(id, wrongSecret), 401, "invalid_api_key")
    await err(R, get("dord_" + "Z".repeat(24)), 404, "resource_not_found")
    await err(R, get(id, keys.otherTest), 404, "resource_not_found")
    await err(R, get(id, keys.demoTest, h500), 500, "internal_error")
    await err(R, get(id, keys.demoTest, h503), 503, "service_unavailable")
    const del = await call(h, "DELETE", `/payment_intents/${id}`, { key: keys.demoTest })
    assertError(del, 405, "method_not_allowed")
    assert.strictEqual(del.headers.get("allow"), "GET")

    // GET /payment_intents
    const L = "paymentIntents.list" as const
    const list = (query: string, key: Key | null = keys.demoTest, handler = h) =>
      call(handler, "GET", `/payment_intents${query}`, key !== null ? { key } : {})
    await ok(L, list(""), 200)
    for (const [query, param] of [
      ["?limit=0", "limit"], ["?cursor=%21%21", "cursor"], ["?status=done", "status"], ["?colour=red", "colour"],
      ["?created_after=2026-02-30T00:00:00Z", "created_after"], ["?created_before=2026-11-22T08:15:30", "created_before"]
    ] as const) {
      await err(L, list(query), 400, "validation_failed", param)
    }
    await err(L, list("", null), 401, "authentication_required")
    await err(L, list("", wrongSecret), 401, "invalid_api_key")
    await err(L, list("", keys.demoTest, h500), 500, "internal_error")
    await err(L, list("", keys.demoTest, h503), 503, "service_unavailable")

    // POST /payment_intents/{id}/confirm (4.5, D3)
    const F = "paymentIntents.confirm" as const
    const confirm = (cid: string, options: Parameters<typeof call>[3] = { key: keys.demoTest }, handler = h) =>
      call(handler, "POST", `/payment_intents/${cid}/confirm`, options)
    const pending = (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })).json.id as string
    await ok(F, confirm(pending), 200)
    await ok(F, confirm(pending, { key: keys.demoTest, body: {} }), 200)
    await err(F, confirm(pending, { key: keys.demoTest, body: { amount: "1" } }), 400, "validation_failed", "body")
    await err(F, confirm(pending, { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(F, confirm("nope"), 400, "validation_failed", "id")
    await err(F, confirm(pending, {}), 401, "authentication_required")
    await err(F, confirm(pending, { key: wrongSecret }), 401, "invalid_api_key")
    await err(F, confirm(pending, { key: keys.otherTest }), 404, "resource_not_found")
    await ok(F, confirm(pending, { key: keys.demoTest, headers: { "idempotency-key": "matrix-confirm" } }), 200)
    await err(F, confirm(created.json.id, { key: keys.demoTest, headers: { "idempotency-key": "matrix-confirm" } }), 409, "idempotency_conflict", "Idempotency-Key")
    const declined = (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: "40001" } })).json.id as string
    await err(F, confirm(declined), 409, "payment_intent_unexpected_state")
    await err(F, confirm(pending, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(F, confirm(pending, { key: keys.demoTest }, h503), 503, "service_unavailable")
    assertError(await call(h, "GET", `/payment_intents/${pending}/confirm`, { key: keys.demoTest }), 405, "method_not_allowed")

    // POST /assets (D3)
    const U = "assets.upload" as const
    const upload = (options: Parameters<typeof call>[3], handler = h) => call(handler, "POST", "/assets", options)
    const uploadKey = { "idempotency-key": "matrix-upload" }
    const asset = await ok(U, upload({ key: keys.demoTest, form: formWith(png()), headers: uploadKey }), 201)
    await ok(U, upload({ key: keys.demoTest, form: formWith(png()), headers: uploadKey }), 201)
    await err(U, upload({ key: keys.demoTest, form: formWith(png(65)), headers: uploadKey }), 409, "idempotency_conflict", "Idempotency-Key")
    // 4.9.1: the key is optional here (D5 requires it on two other routes); a malformed one is refused (4.9.2).
    await ok(U, upload({ key: keys.demoTest, form: formWith(png()) }), 201)
    await err(U, upload({ key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "caf\u00e9" } }), 400, "validation_failed", "Idempotency-Key")
    await err(U, upload({ key: keys.demoTest, form: formWith(new TextEncoder().encode("GIF89a")), headers: { "idempotency-key": "matrix-gif" } }), 400, "validation_failed", "file")
    await err(U, upload({ key: keys.demoTest, body: {}, headers: { "idempotency-key": "matrix-json" } }), 400, "validation_failed", "Content-Type")
    await err(U, upload({ form: formWith(png()), headers: uploadKey }), 401, "authentication_required")
    await err(U, upload({ key: wrongSecret, form: formWith(png()), headers: uploadKey }), 401, "invalid_api_key")
    const hugeForm = formWith(png(6 * 1024 * 1024))
    const hugeLength = (await new Request("http://x", { method: "POST", body: hugeForm }).arrayBuffer()).byteLength
    await err(U, upload({ key: keys.demoTest, form: hugeForm, headers: { "idempotency-key": "matrix-huge", "content-length": String(hugeLength) } }), 413, "validation_failed", "file")
    await err(U, upload({ key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "matrix-500" } }, h500), 500, "internal_error")
    await err(U, upload({ key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "matrix-503" } }, hStoreDown), 503, "service_unavailable")

    // POST /payment_intents/{id}/receipt (4.4)
    const P = "paymentIntents.receipt" as const
    const receipt = (rid: string, options: Parameters<typeof call>[3], handler = h) => call(handler, "POST", `/payment_intents/${rid}/receipt`, options)
    const transfer = () => call(h, "POST", "/payment_intents", { key: keys.demoTest, body: bankTransfer }).then((r) => r.json.id as string)
    await ok(P, receipt(await transfer(), { key: keys.demoTest, body: { asset_id: asset.json.id } }), 200)
    await ok(P, receipt(await transfer(), { key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "matrix-receipt" } }), 200)
    const another = await transfer()
    await err(P, receipt(another, { key: keys.demoTest, form: formWith(png()) }), 400, "validation_failed", "Idempotency-Key")
    await err(P, receipt(another, { key: keys.demoTest, body: { asset_id: asset.json.id, extra: 1 } }), 400, "validation_failed", "extra")
    await err(P, receipt(another, { key: keys.demoTest, body: { asset_id: "nope" } }), 400, "validation_failed", "asset_id")
    await err(P, receipt("nope", { key: keys.demoTest, body: { asset_id: asset.json.id } }), 400, "validation_failed", "id")
    await err(P, receipt(another, { body: { asset_id: asset.json.id } }), 401, "authentication_required")
    await err(P, receipt(another, { key: wrongSecret, body: { asset_id: asset.json.id } }), 401, "invalid_api_key")
    await err(P, receipt(another, { key: keys.otherTest, body: { asset_id: asset.json.id } }), 404, "resource_not_found")
    await err(P, receipt(pending, { key: keys.demoTest, body: { asset_id: asset.json.id } }), 409, "payment_intent_unexpected_state")
    await ok(P, receipt(another, { key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "matrix-receipt-2" } }), 200)
    await err(P, receipt(another, { key: keys.demoTest, form: formWith(png(65)), headers: { "idempotency-key": "matrix-receipt-2" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(P, receipt(another, { key: keys.demoTest, form: hugeForm, headers: { "idempotency-key": "matrix-huge", "content-length": String(hugeLength) } }), 413, "validation_failed", "file")
    await err(P, receipt(another, { key: keys.demoTest, body: { asset_id: asset.json.id } }, h500), 500, "internal_error")
    await err(P, receipt(another, { key: keys.demoTest, body: { asset_id: asset.json.id } }, h503), 503, "service_unavailable")

    // Payout intents (D3, D8)
    const PC = "payoutIntents.create" as const
    const PR = "payoutIntents.retrieve" as const
    const PL = "payoutIntents.list" as const
    const PX = "payoutIntents.cancel" as const
    const payout = {
      amount: "500000",
      currency: "THB",
      merchant_reference: "matrix-payout",
      destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "Somchai Jaidee" }
    }
    const payouts = (method: string, suffix: string, options: Parameters<typeof call>[3], handler = h) =>
      call(handler, method, `/payout_intents${suffix}`, options)
    const pout = await ok(PC, payouts("POST", "", { key: keys.demoTest, body: payout }), 201)
    await ok(PC, payouts("POST", "", { key: keys.demoTest, body: payout }), 200)
    await err(PC, payouts("POST", "", { key: keys.demoTest, body: { ...payout, amount: "1" } }), 409, "idempotency_conflict", "merchant_reference")
    await err(PC, payouts("POST", "", { key: keys.demoTest, body: { ...payout, merchant_reference: undefined } }), 400, "validation_failed", "merchant_reference")
    await err(PC, payouts("POST", "", { key: keys.demoTest, body: { ...payout, merchant_reference: "m2", destination: { ...payout.destination, bank: "NOPE" } } }), 400, "validation_failed", "destination.bank")
    await err(PC, payouts("POST", "", { key: keys.demoLive, body: payout }), 422, "payment_configuration_unavailable")
    await err(PC, payouts("POST", "", { body: payout }), 401, "authentication_required")
    await err(PC, payouts("POST", "", { key: wrongSecret, body: payout }), 401, "invalid_api_key")
    await err(PC, payouts("POST", "", { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(PC, payouts("POST", "", { key: keys.demoTest, body: payout }, h500), 500, "internal_error")
    await err(PC, payouts("POST", "", { key: keys.demoTest, body: payout }, h503), 503, "service_unavailable")
    assert.strictEqual(pout.json.destination.account_number, "******6789")
    const poutId = pout.json.id as string
    await ok(PR, payouts("GET", `/${poutId}`, { key: keys.demoTest }), 200)
    await err(PR, payouts("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(PR, payouts("GET", `/${poutId}`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(PR, payouts("GET", `/${poutId}`, {}), 401, "authentication_required")
    await err(PR, payouts("GET", `/${poutId}`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(PR, payouts("GET", `/${poutId}`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(PR, payouts("GET", `/${poutId}`, { key: keys.demoTest }, h503), 503, "service_unavailable")
    await ok(PL, payouts("GET", "?status=requires_approval", { key: keys.demoTest }), 200)
    await err(PL, payouts("GET", "?status=paid", { key: keys.demoTest }), 400, "validation_failed", "status")
    await err(PL, payouts("GET", "", {}), 401, "authentication_required")
    await err(PL, payouts("GET", "", { key: wrongSecret }), 401, "invalid_api_key")
    await err(PL, payouts("GET", "", { key: keys.demoTest }, h500), 500, "internal_error")
    await err(PL, payouts("GET", "", { key: keys.demoTest }, h503), 503, "service_unavailable")
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(PX, payouts("POST", "/nope/cancel", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(PX, payouts("POST", `/${poutId}/cancel`, {}), 401, "authentication_required")
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest }, h503), 503, "service_unavailable")
    await ok(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-cancel" } }), 200)
    await ok(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-cancel" } }), 200)
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, body: {}, headers: { "idempotency-key": "matrix-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest }), 409, "payout_not_cancelable")

    // POST /payment_intents/{id}/cancel (D10)
    const X = "paymentIntents.cancel" as const
    const cancel = (cid: string, options: Parameters<typeof call>[3] = { key: keys.demoTest }, handler = h) =>
      call(handler, "POST", `/payment_intents/${cid}/cancel`, options)
    const toCancel = async () => (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })).json.id as string
    await ok(X, cancel(await toCancel()), 200)
    await ok(X, cancel(await toCancel(), { key: keys.demoTest, body: {} }), 200)
    const reasoned = await ok(X, cancel(await toCancel(), { key: keys.demoTest, body: { cancellation_reason: "duplicate" } }), 200)
    assert.strictEqual(reasoned.json.cancellation_reason, "duplicate")
    const cancelable = await toCancel()
    await err(X, cancel(cancelable, { key: keys.demoTest, body: { cancellation_reason: "changed_my_mind" } }), 400, "validation_failed", "cancellation_reason")
    await err(X, cancel(cancelable, { key: keys.demoTest, body: { reason: "duplicate" } }), 400, "validation_failed", "reason")
    await err(X, cancel("nope"), 400, "validation_failed", "id")
    await err(X, cancel(cancelable, {}), 401, "authentication_required")
    await err(X, cancel(cancelable, { key: wrongSecret }), 401, "invalid_api_key")
    await err(X, cancel(cancelable, { key: keys.otherTest }), 404, "resource_not_found")
    await err(X, cancel(cancelable, { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(X, cancel(declined), 409, "payment_intent_unexpected_state")
    await ok(X, cancel(cancelable, { key: keys.demoTest, headers: { "idempotency-key": "matrix-pi-cancel" } }), 200)
    await ok(X, cancel(cancelable, { key: keys.demoTest, headers: { "idempotency-key": "matrix-pi-cancel" } }), 200)
    await err(X, cancel(cancelable, { key: keys.demoTest, headers: { "idempotency-key": "matrix-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(X, cancel(cancelable, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(X, cancel(cancelable, { key: keys.demoTest }, h503), 503, "service_unavailable")

    // Refunds (D10): on services whose workers the test runs, so payments succeed.
    const RC = "refunds.create" as const
    const RR = "refunds.retrieve" as const
    const RL = "refunds.list" as const
    const withWorkers = async (providers?: ReadonlyArray<Provider.PaymentProvider>) => {
      const runtime = ManagedRuntime.make(layer(providers === undefined ? {} : { providers }))
      runtimes.push(runtime)
      const handler = app(Layer.succeedContext(await runtime.runPromise(Effect.context<TenderHttp.Services>())))
      const paid = async (body: Record<string, unknown> = promptpay) => {
        const pid = (await call(handler, "POST", "/payment_intents", { key: keys.demoTest, body })).json.id as string
        if (body === promptpay) await call(handler, "POST", `/payment_intents/${pid}/confirm`, { key: keys.demoTest })
        else await call(handler, "POST", `/payment_intents/${pid}/receipt`, { key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": `r-${pid}` } })
        await runtime.runPromise(Workers.drain({ owner: "matrix" }))
        return pid
      }
      return { handler, paid }
    }
    const hr = await withWorkers()
    const refunds = (method: string, suffix: string, options: Parameters<typeof call>[3], handler = hr.handler) =>
      call(handler, method, `/refunds${suffix}`, options)
    const refunded = await hr.paid()
    const rbody = { payment_intent: refunded, amount: "1000", merchant_reference: "matrix-refund" }
    const rfnd = await ok(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }), 201)
    await ok(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }), 200)
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { ...rbody, amount: "1001" } }), 409, "idempotency_conflict", "merchant_reference")
    await ok(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "1" }, headers: { "idempotency-key": "matrix-refund-key" } }), 201)
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "2" }, headers: { "idempotency-key": "matrix-refund-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "150000" } }), 409, "amount_exceeds_refundable", "amount")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: await toCancel() } }, h), 409, "payment_intent_unexpected_state", "payment_intent")
    await err(RC, refunds("POST", "", { key: keys.otherTest, body: { payment_intent: refunded } }), 404, "resource_not_found", "payment_intent")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "0" } }), 400, "validation_failed", "amount")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: "nope" } }), 400, "validation_failed", "payment_intent")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, reason: "late_payment" } }), 400, "validation_failed", "reason")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: await hr.paid(bankTransfer) } }), 400, "validation_failed", "destination")
    await err(RC, refunds("POST", "", { key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
    await err(RC, refunds("POST", "", { body: rbody }), 401, "authentication_required")
    await err(RC, refunds("POST", "", { key: wrongSecret, body: rbody }), 401, "invalid_api_key")
    await err(RC, refunds("POST", "", { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    const noRefunds = await withWorkers([{ ...Simulator.make(), refund: undefined }])
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: await noRefunds.paid() } }, noRefunds.handler), 422, "refund_not_supported")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }, h500), 500, "internal_error")
    await err(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }, h503), 503, "service_unavailable")
    const rfndId = rfnd.json.id as string
    await ok(RR, refunds("GET", `/${rfndId}`, { key: keys.demoTest }), 200)
    await err(RR, refunds("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(RR, refunds("GET", `/${rfndId}`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(RR, refunds("GET", `/${rfndId}`, {}), 401, "authentication_required")
    await err(RR, refunds("GET", `/${rfndId}`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(RR, refunds("GET", `/${rfndId}`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(RR, refunds("GET", `/${rfndId}`, { key: keys.demoTest }, h503), 503, "service_unavailable")
    const rl = await ok(RL, refunds("GET", `?payment_intent=${refunded}&status=pending,succeeded`, { key: keys.demoTest }), 200)
    assert.isTrue(rl.json.data.some((x: { id: string }) => x.id === rfndId))
    for (const [query, param] of [
      ["?limit=0", "limit"], ["?cursor=%21%21", "cursor"], ["?status=paid", "status"], ["?payment_intent=nope", "payment_intent"],
      ["?merchant_reference=", "merchant_reference"], ["?colour=red", "colour"], ["?created_after=2026-02-30T00:00:00Z", "created_after"]
    ] as const) {
      await err(RL, refunds("GET", query, { key: keys.demoTest }), 400, "validation_failed", param)
    }
    await err(RL, refunds("GET", "", {}), 401, "authentication_required")
    await err(RL, refunds("GET", "", { key: wrongSecret }), 401, "invalid_api_key")
    await err(RL, refunds("GET", "", { key: keys.demoTest }, h500), 500, "internal_error")
    await err(RL, refunds("GET", "", { key: keys.demoTest }, h503), 503, "service_unavailable")
    assertError(await refunds("DELETE", `/${rfndId}`, { key: keys.demoTest }), 405, "method_not_allowed")

    // Top-up intents (2.5, 4.7, 4.8, D3, D5)
    const TC = "topupIntents.create" as const
    const TR = "topupIntents.retrieve" as const
    const TL = "topupIntents.list" as const
    const TX = "topupIntents.receipt" as const
    const topup = { destination_amount: "200000", destination_currency: "THB", source: { type: "manual_receipt" } }
    /** Every create carries a fresh Idempotency-Key (4.7) unless the case is about the key. */
    const topups = (method: string, suffix: string, options: Parameters<typeof call>[3] & { noKey?: boolean }, handler = h) =>
      call(handler, method, `/topup_intents${suffix}`, {
        ...options,
        headers: method === "POST" && suffix === "" && options?.noKey !== true
          ? { "idempotency-key": crypto.randomUUID(), ...options?.headers }
          : options?.headers ?? {}
      })
    const tuin = await ok(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, merchant_reference: "matrix-topup" } }), 201)
    await ok(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, merchant_reference: "matrix-topup" } }), 200)
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: "1", merchant_reference: "matrix-topup" } }), 409, "idempotency_conflict", "merchant_reference")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: topup, noKey: true }), 400, "validation_failed", "Idempotency-Key")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: topup, headers: { "idempotency-key": "" } }), 400, "validation_failed", "Idempotency-Key")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: "0" } }), 400, "validation_failed", "destination_amount")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_currency: "thb" } }), 400, "validation_failed", "destination_currency")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_currency: "ZZZ" } }), 400, "validation_failed", "destination_currency")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, source: { type: "card" } } }), 400, "validation_failed", "source.type")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, source: { type: "test_funding", provider: "nope" } } }), 400, "validation_failed", "source.provider")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, source: undefined } }), 400, "validation_failed", "source")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, country: "tha" } }), 400, "validation_failed", "country")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, colour: "red" } }), 400, "validation_failed", "colour")
    await err(TC, topups("POST", "", { key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
    await err(TC, topups("POST", "", { body: topup }), 401, "authentication_required")
    await err(TC, topups("POST", "", { key: wrongSecret, body: topup }), 401, "invalid_api_key")
    await err(TC, topups("POST", "", { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(TC, topups("POST", "", { key: keys.demoLive, body: topup }), 422, "payment_configuration_unavailable", "source.type")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_currency: "JPY" } }), 422, "payment_configuration_unavailable", "destination_currency")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: Simulator.magicAmounts.unavailable } }), 422, "routing_unavailable")
    await ok(TC, topups("POST", "", { key: keys.demoTest, body: topup, headers: { "idempotency-key": "matrix-topup-key" } }), 201)
    await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: "2" }, headers: { "idempotency-key": "matrix-topup-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    // D5: the route is part of the fingerprint: a key used on POST /payment_intents conflicts here.
    await err(TC, topups("POST", "", { key: keys.demoTest, body: topup, headers: { "idempotency-key": "matrix-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: topup }, h500), 500, "internal_error")
    await err(TC, topups("POST", "", { key: keys.demoTest, body: topup }, h503), 503, "service_unavailable")
    const tuinId = tuin.json.id as string
    assert.strictEqual(tuin.json.next_action.type, "display_bank_transfer_instructions")
    await ok(TR, topups("GET", `/${tuinId}`, { key: keys.demoTest }), 200)
    await err(TR, topups("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(TR, topups("GET", `/${tuinId}`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(TR, topups("GET", `/${tuinId}`, { key: keys.demoLive }), 404, "resource_not_found")
    await err(TR, topups("GET", `/${tuinId}`, {}), 401, "authentication_required")
    await err(TR, topups("GET", `/${tuinId}`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(TR, topups("GET", `/${tuinId}`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(TR, topups("GET", `/${tuinId}`, { key: keys.demoTest }, h503), 503, "service_unavailable")
    const tl = await ok(TL, topups("GET", "?source_type=manual_receipt,provider_gateway&status=requires_payment&currency=THB", { key: keys.demoTest }), 200)
    assert.isTrue(tl.json.data.some((x: { id: string }) => x.id === tuinId))
    for (const [query, param] of [
      ["?limit=0", "limit"], ["?limit=101", "limit"], ["?cursor=%21%21", "cursor"], ["?status=paid", "status"], ["?source_type=card", "source_type"],
      ["?country=tha", "country"], ["?currency=thb", "currency"], ["?merchant_reference=", "merchant_reference"], ["?colour=red", "colour"],
      ["?created_after=2026-02-30T00:00:00Z", "created_after"], ["?created_before=2026-11-22T08:15:30", "created_before"]
    ] as const) {
      await err(TL, topups("GET", query, { key: keys.demoTest }), 400, "validation_failed", param)
    }
    await err(TL, topups("GET", "", {}), 401, "authentication_required")
    await err(TL, topups("GET", "", { key: wrongSecret }), 401, "invalid_api_key")
    await err(TL, topups("GET", "", { key: keys.demoTest }, h500), 500, "internal_error")
    await err(TL, topups("GET", "", { key: keys.demoTest }, h503), 503, "service_unavailable")
    const byAsset = { asset_id: asset.json.id }
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: {} }), 400, "validation_failed", "asset_id")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: { asset_id: "nope" } }), 400, "validation_failed", "asset_id")
    await err(TX, topups("POST", "/nope/receipt", { key: keys.demoTest, body: byAsset }), 400, "validation_failed", "id")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.otherTest, body: byAsset }), 404, "resource_not_found")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { body: byAsset }), 401, "authentication_required")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: wrongSecret, body: byAsset }), 401, "invalid_api_key")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset }, h500), 500, "internal_error")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset }, h503), 503, "service_unavailable")
    await ok(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset, headers: { "idempotency-key": "matrix-topup-receipt" } }), 200)
    await ok(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset, headers: { "idempotency-key": "matrix-topup-receipt" } }), 200)
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset, headers: { "idempotency-key": "matrix-key" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset }), 409, "topup_intent_unexpected_state")
    assertError(await call(h, "DELETE", `/topup_intents/${tuinId}`, { key: keys.demoTest }), 405, "method_not_allowed")

    // Webhook endpoints (6, D3)
    const WC = "webhookEndpoints.create" as const
    const WL = "webhookEndpoints.list" as const
    const WR = "webhookEndpoints.retrieve" as const
    const WD = "webhookEndpoints.delete" as const
    const endpoints = (method: string, suffix: string, options: Parameters<typeof call>[3], handler = h) =>
      call(handler, method, `/webhook_endpoints${suffix}`, options)
    const registered = await ok(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/hook" } }), 201)
    assert.match(registered.json.secret, /^whsec_/)
    await ok(WC, endpoints("POST", "", { key: keys.demoLive, body: { url: "https://hooks.example.com/tender", enabled_events: ["payment_intent.succeeded"] } }), 201)
    await err(WC, endpoints("POST", "", { key: keys.demoLive, body: { url: "http://hooks.example.com/tender" } }), 400, "validation_failed", "url")
    await err(WC, endpoints("POST", "", { key: keys.demoLive, body: { url: "https://127.0.0.1/hook" } }), 400, "validation_failed", "url")
    await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://x", enabled_events: ["payment_intent.nope"] } }), 400, "validation_failed")
    await err(WC, endpoints("POST", "", { body: { url: "http://x" } }), 401, "authentication_required")
    await err(WC, endpoints("POST", "", { key: wrongSecret, body: { url: "http://x" } }), 401, "invalid_api_key")
    await ok(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/a" }, headers: { "idempotency-key": "matrix-we" } }), 201)
    await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/b" }, headers: { "idempotency-key": "matrix-we" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(WC, endpoints("POST", "", { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
    await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/c" } }, h500), 500, "internal_error")
    await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/c" } }, h503), 503, "service_unavailable")
    const listed = await ok(WL, endpoints("GET", "", { key: keys.demoTest }), 200)
    assert.isTrue(listed.json.data.every((e: Record<string, unknown>) => !("secret" in e)))
    await err(WL, endpoints("GET", "?limit=0", { key: keys.demoTest }), 400, "validation_failed", "limit")
    await err(WL, endpoints("GET", "", {}), 401, "authentication_required")
    await err(WL, endpoints("GET", "", { key: wrongSecret }), 401, "invalid_api_key")
    await err(WL, endpoints("GET", "", { key: keys.demoTest }, h500), 500, "internal_error")
    await err(WL, endpoints("GET", "", { key: keys.demoTest }, h503), 503, "service_unavailable")
    const weId = registered.json.id as string
    await ok(WR, endpoints("GET", `/${weId}`, { key: keys.demoTest }), 200)
    await err(WR, endpoints("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(WR, endpoints("GET", `/${weId}`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(WR, endpoints("GET", `/${weId}`, {}), 401, "authentication_required")
    await err(WR, endpoints("GET", `/${weId}`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(WR, endpoints("GET", `/${weId}`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(WR, endpoints("GET", `/${weId}`, { key: keys.demoTest }, h503), 503, "service_unavailable")
    await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(WD, endpoints("DELETE", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(WD, endpoints("DELETE", `/${weId}`, {}), 401, "authentication_required")
    await err(WD, endpoints("DELETE", `/${weId}`, { key: wrongSecret }), 401, "invalid_api_key")
    await ok(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-del" } }), 200)
    await err(WD, endpoints("DELETE", `/${registered.json.id}`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-we" } }), 409, "idempotency_conflict", "Idempotency-Key")
    await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest }), 404, "resource_not_found")
    await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest }, h503), 503, "service_unavailable")

    // Issue 24: an endpoint's attempts, resend, secret rotation and enable; the Events API.
    const toolsRuntime = ManagedRuntime.make(layer())
    runtimes.push(toolsRuntime)
    const hTools = app(Layer.succeedContext(await toolsRuntime.runPromise(Effect.context<TenderHttp.Services>())))
    const tool = (method: string, path: string, options: Parameters<typeof call>[3], handler = hTools) => call(handler, method, path, options)
    const live = (await ok(WC, tool("POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/tools" } }), 201)).json.id as string
    const off = (await ok(WC, tool("POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/off" } }), 201)).json.id as string
    await toolsRuntime.runPromise(Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const record = (yield* storage.get(WebhookEndpoint.table, { merchantId: "mch_demo", environment: "test" }, off)).pipe(Option.getOrThrow)
      yield* storage.commit([Storage.Write.update(WebhookEndpoint.table, { ...record, status: "disabled" as const, version: record.version + 1 }, record.version)])
    }))
    await ok("paymentIntents.create", tool("POST", "/payment_intents", { key: keys.demoTest, body: promptpay }), 201)
    const EL = "events.list" as const
    const ER = "events.retrieve" as const
    const evt = (await ok(EL, tool("GET", "/events?type=payment_intent.created,payment_intent.requires_action&limit=1", { key: keys.demoTest }), 200)).json.data[0].id as string
    for (const [query, param] of [["?limit=0", "limit"], ["?type=nope", "type"], ["?cursor=%21%21", "cursor"], ["?colour=red", "colour"], ["?created_after=2026-02-30T00:00:00Z", "created_after"]] as const) {
      await err(EL, tool("GET", `/events${query}`, { key: keys.demoTest }), 400, "validation_failed", param)
    }
    await err(EL, tool("GET", "/events", {}), 401, "authentication_required")
    await err(EL, tool("GET", "/events", { key: wrongSecret }), 401, "invalid_api_key")
    await err(EL, tool("GET", "/events", { key: keys.demoTest }, h500), 500, "internal_error")
    await err(EL, tool("GET", "/events", { key: keys.demoTest }, h503), 503, "service_unavailable")
    await ok(ER, tool("GET", `/events/${evt}`, { key: keys.demoTest }), 200)
    await err(ER, tool("GET", "/events/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(ER, tool("GET", `/events/${evt}`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(ER, tool("GET", `/events/${evt}`, { key: keys.demoLive }), 404, "resource_not_found")
    await err(ER, tool("GET", `/events/${evt}`, {}), 401, "authentication_required")
    await err(ER, tool("GET", `/events/${evt}`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(ER, tool("GET", `/events/${evt}`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(ER, tool("GET", `/events/${evt}`, { key: keys.demoTest }, h503), 503, "service_unavailable")
    assertError(await tool("POST", "/events", { key: keys.demoTest, body: {} }), 405, "method_not_allowed")

    const WA = "webhookEndpoints.attempts" as const
    await ok(WA, tool("GET", `/webhook_endpoints/${live}/attempts`, { key: keys.demoTest }), 200)
    await err(WA, tool("GET", `/webhook_endpoints/${live}/attempts?event=nope`, { key: keys.demoTest }), 400, "validation_failed", "event")
    await err(WA, tool("GET", `/webhook_endpoints/${live}/attempts?limit=101`, { key: keys.demoTest }), 400, "validation_failed", "limit")
    await err(WA, tool("GET", "/webhook_endpoints/nope/attempts", { key: keys.demoTest }), 400, "validation_failed", "id")
    await err(WA, tool("GET", `/webhook_endpoints/${live}/attempts`, { key: keys.otherTest }), 404, "resource_not_found")
    await err(WA, tool("GET", `/webhook_endpoints/${live}/attempts`, {}), 401, "authentication_required")
    await err(WA, tool("GET", `/webhook_endpoints/${live}/attempts`, { key: wrongSecret }), 401, "invalid_api_key")
    await err(WA, tool("GET", `/webhook_endpoints/${weId}/attempts`, { key: keys.demoTest }, h500), 500, "internal_error")
    await err(WA, tool("GET", `/webhook_endpoints/${weId}/attempts`, { key: keys.demoTest }, h503), 503, "service_unavailable")

    // The three POSTs: D1 errors, D5 idempotency, 413, as every other POST.
    const posts = [
      ["webhookEndpoints.resend", "resend", { event: evt }],
      ["webhookEndpoints.rotateSecret", "rotate_secret", { expires_in: 60 }],
      ["webhookEndpoints.enable", "enable", {}]
    ] as const
    for (const [op, action, body] of posts) {
      const path = (id: string) => `/webhook_endpoints/${id}/${action}`
      await ok(op, tool("POST", path(live), { key: keys.demoTest, body, headers: { "idempotency-key": `matrix-${action}` } }), 200)
      const replay = await ok(op, tool("POST", path(live), { key: keys.demoTest, body, headers: { "idempotency-key": `matrix-${action}` } }), 200)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      // D5: the same key on another endpoint's id is another request.
      await err(op, tool("POST", path(off), { key: keys.demoTest, body, headers: { "idempotency-key": `matrix-${action}` } }), 409, "idempotency_conflict", "Idempotency-Key")
      await err(op, tool("POST", path("nope"), { key: keys.demoTest, body }), 400, "validation_failed", "id")
      await err(op, tool("POST", path(live), { key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
      await err(op, tool("POST", path(live), { key: keys.otherTest, body }), 404, "resource_not_found")
      await err(op, tool("POST", path(live), { body }), 401, "authentication_required")
      await err(op, tool("POST", path(live), { key: wrongSecret, body }), 401, "invalid_api_key")
      await err(op, tool("POST", path(live), { key: keys.demoTest, raw: big, headers: { ...json, "content-length": String(Buffer.byteLength(big)) } }), 413, "validation_failed", "body")
      await err(op, tool("POST", path(weId), { key: keys.demoTest, body }, h500), 500, "internal_error")
      await err(op, tool("POST", path(weId), { key: keys.demoTest, body }, h503), 503, "service_unavailable")
      assertError(await tool("GET", path(live), { key: keys.demoTest }), 405, "method_not_allowed")
    }
    await err("webhookEndpoints.resend", tool("POST", `/webhook_endpoints/${off}/resend`, { key: keys.demoTest, body: { event: evt } }), 409, "webhook_endpoint_disabled", "id")
    await err("webhookEndpoints.resend", tool("POST", `/webhook_endpoints/${live}/resend`, { key: keys.demoTest, body: { event: evt, since: "2026-01-01T00:00:00Z" } }), 400, "validation_failed", "event")
    // An endpoint whose resends used the hour's whole bound (webhooks.resendsPerHour): 429 with Retry-After.
    const full = (await ok(WC, tool("POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/full" } }), 201)).json.id as string
    await toolsRuntime.runPromise(Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const record = (yield* storage.get(WebhookEndpoint.table, { merchantId: "mch_demo", environment: "test" }, full)).pipe(Option.getOrThrow)
      const used = { ...record, resendWindowStartedAt: Date.now(), resendsInWindow: 5_000, version: record.version + 1 }
      yield* storage.commit([Storage.Write.update(WebhookEndpoint.table, used, record.version)])
    }))
    const limited = tool("POST", `/webhook_endpoints/${full}/resend`, { key: keys.demoTest, body: { event: evt } })
    await err("webhookEndpoints.resend", limited, 429, "rate_limited", "id")
    assert.match((await limited).headers.get("retry-after") ?? "", /^[1-9][0-9]*$/)
    await err("webhookEndpoints.rotateSecret", tool("POST", `/webhook_endpoints/${live}/rotate_secret`, { key: keys.demoTest, body: { expires_in: -1 } }), 400, "validation_failed", "expires_in")
    await err("webhookEndpoints.enable", tool("POST", `/webhook_endpoints/${live}/enable`, { key: keys.demoTest, body: { x: 1 } }), 400, "validation_failed", "body")

    // GET /payment_methods/options
    const O = "paymentMethods.options" as const
    const options = (query: string, key: Key | null = keys.demoTest, handler = h) =>
      call(handler, "GET", `/payment_methods/options${query}`, key !== null ? { key } : {})
    const q = "?amount=150000&country=TH&currency=THB"
    await ok(O, options(q), 200)
    await err(O, options("?country=TH&currency=THB"), 400, "validation_failed", "amount")
    await err(O, options(q + "&colour=red"), 400, "validation_failed", "colour")
    await err(O, options(q + "&checkout_mode=popup"), 400, "validation_failed", "checkout_mode")
    await err(O, options(q, null), 401, "authentication_required")
    await err(O, options(q, wrongSecret), 401, "invalid_api_key")
    await err(O, options(q, keys.demoTest, hDirectoryDown), 500, "internal_error")
    await err(O, options(q, keys.demoTest, h503), 503, "service_unavailable")
    assertError(await call(h, "POST", "/payment_methods/options", { key: keys.demoTest }), 405, "method_not_allowed")

    // GET /webhook_event_types: no authentication (4.11, 5.5), even with bad credentials or the key directory down.
    const W = "webhookEventTypes.catalogue" as const
    await ok(W, call(h, "GET", "/webhook_event_types"), 200)
    await ok(W, call(h, "GET", "/webhook_event_types", { headers: { authorization: "Bearer nope" } }), 200)
    await ok(W, call(h, "GET", "/webhook_event_types", { key: wrongSecret }), 200)
    await ok(W, call(hDirectoryDown, "GET", "/webhook_event_types"), 200)
    assertError(await call(h, "POST", "/webhook_event_types"), 405, "method_not_allowed")

    // /openapi.json and an unknown route
    const doc = (await ok("openapi", call(h, "GET", "/openapi.json"), 200)).json
    assertError(await call(h, "POST", "/openapi.json"), 405, "method_not_allowed")
    assertError(await call(h, "GET", "/payment_intent", { key: keys.demoTest }), 404, "resource_not_found")

    // Every observed status and code is documented for its operation, with the D1 body schema.
    for (const o of observed) {
      if (o.op === "openapi") continue
      const [path, method] = documented[o.op]
      const response = doc.paths[path][method].responses[String(o.status)]
      assert.isDefined(response, `${o.op} answered ${o.status}, which /openapi.json does not document`)
      if (o.status >= 400) {
        assert.include(documentedCodes(doc, response), o.code, `${o.op} ${o.status}`)
        assert.include(response.description.replace(/^Error: /, "").split(" or "), o.code, `${o.op} ${o.status}`)
      }
    }
    // And every documented status and code was produced above.
    for (const [op, [path, method]] of Object.entries(documented)) {
      for (const [status, response] of Object.entries(doc.paths[path][method].responses as Record<string, { description: string }>)) {
        // The catalogue is a static body: nothing in it can fail, its 500 is only the generic fault.
        if (op === "webhookEventTypes.catalogue" && status === "500") continue
        const codes = Number(status) >= 400 ? documentedCodes(doc, response) : [undefined]
        for (const code of codes) {
          assert.isTrue(
            observed.some((o) => o.op === op && String(o.status) === status && (code === undefined || o.code === code)),
            `${op} documents ${status} ${code ?? ""} but no test produced it`
          )
        }
      }
    }
  }, 60_000) // a few hundred requests: 3 s alone, far more when the machine is shared

  it("D1 bad input of every kind gets a 4xx in the D1 body, never a 500", async () => {
    const h = app()
    const cases: Array<[string, string, { raw?: string; headers?: Record<string, string>; auth?: string | null }]> = [
      ["POST", "/payment_intents", { raw: "null" }],
      ["POST", "/payment_intents", { raw: '"text"' }],
      ["POST", "/payment_intents", { raw: "[]" }],
      ["POST", "/payment_intents", { raw: "1e999" }],
      ["POST", "/payment_intents", { raw: '{"amount":1e999,"currency":"THB","country":"TH","customer":{}}' }],
      ["POST", "/payment_intents", { raw: '{"__proto__":{"amount":"1"},"currency":"THB","country":"TH","customer":{}}' }],
      ["POST", "/payment_intents", { raw: '{"amount":"1","currency":"THB","country":"TH","customer":{"constructor":{}}}' }],
      ["POST", "/payment_intents", { raw: '{"amount":"1","currency":"THB","country":"TH","customer":[]}' }],
      ["POST", "/payment_intents", { raw: '{"amount":"1","currency":"THB","country":"TH","customer":{},"metadata":[]}' }],
      ["POST", "/payment_intents", { raw: '{"amount":"1","currency":"THB","country":"TH","customer":{},"metadata":{"a":{"b":1}}}' }],
      ["POST", "/payment_intents", { raw: '{"amount":"1","currency":"THB","country":"TH","customer":{},"payment_method":"th_promptpay","payment_method_options":"KBANK"}' }],
      ["POST", "/payment_intents", { raw: '{"amount":"1","currency":"THB","country":"TH","customer":{},"return_url":"javascript:alert(1)"}' }],
      ["POST", "/payment_intents", { raw: "[".repeat(100_000) + "]".repeat(100_000) }],
      ["POST", "/payment_intents", { raw: "\u0000" }],
      ["POST", "/payment_intents", { raw: "{}", headers: { "content-type": "application/json; charset=latin1; x" } }],
      ["POST", "/payment_intents", { raw: "amount=1", headers: { "content-type": "application/x-www-form-urlencoded" } }],
      ["GET", "/payment_intents/%E0%A4%A", {}],
      ["GET", "/payment_intents/" + "d".repeat(5000), {}],
      ["GET", "/payment_intents?limit=1&limit=2", {}],
      ["GET", "/payment_intents?cursor=a&cursor=b", {}],
      ["GET", "/payment_intents?cursor=" + Buffer.from("[1e400,\"dord_x\"]").toString("base64url"), {}],
      ["GET", "/payment_intents?created_after=%ZZ", {}],
      ["GET", "/payment_intents?created_after=99999-01-01T00:00:00Z", {}],
      ["GET", "/payment_intents?status=requires_action,", {}],
      ["GET", "/payment_intents?merchant_reference=", {}],
      ["GET", "/payment_methods/options?amount=1e3&country=TH&currency=THB", {}],
      ["GET", "/payment_methods/options?amount=1&country=TH&currency=THB&provider=Bad%20Code", {}],
      ["GET", "/payment_methods/options?amount=1&amount=2&country=TH&currency=THB", {}],
      ["GET", "/payment_intents", { auth: "Basic " + Buffer.from("\u00ff\u00fe:\u00ff").toString("base64") }],
      ["GET", "/payment_intents", { auth: "Basic " + Buffer.from("pk_test_x").toString("base64") }],
      ["GET", "/payment_intents", { auth: "Basic " + Buffer.from(":sk_test_x").toString("base64") }],
      ["GET", "/payment_intents", { auth: "Basic ====" }],
      ["GET", "/payment_intents", { auth: "Digest username=x" }]
    ]
    const authorization = basic(keys.demoTest)
    for (const [method, path, c] of cases) {
      const headers: Record<string, string> = {
        ...(c.auth === undefined ? { authorization } : c.auth === null ? {} : { authorization: c.auth }),
        ...(method === "POST" ? json : {}),
        ...c.headers
      }
      const res = await call(h, method, path, { headers, ...(c.raw !== undefined ? { raw: c.raw } : {}) })
      const label = `${method} ${path.slice(0, 80)} ${(c.raw ?? "").slice(0, 60)}`
      assert.isTrue(res.status >= 400 && res.status < 500, `${label} -> ${res.status} ${res.text}`)
      assertError(res, res.status, res.json.error.code)
      assert.include(["validation_failed", "authentication_required", "invalid_api_key", "resource_not_found"], res.json.error.code, label)
    }
  })
})

describe("body limits through the fetch-style handler (D1)", () => {
  it("D1 a streamed body over 1 MiB without Content-Length -> 413 validation_failed param body, not parsed", async () => {
    const h = app()
    const big = JSON.stringify({ ...promptpay, metadata: { blob: "x".repeat(2 * 1024 * 1024) } })
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      }
    })
    const request = new Request("http://localhost/payment_intents", {
      method: "POST",
      body: stream,
      duplex: "half",
      headers: { ...json, authorization: basic(keys.demoTest) }
    } as RequestInit)
    assert.isNull(request.headers.get("content-length"))
    const res = await h(request)
    const text = await res.text()
    assertError({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, 413, "validation_failed", "body")
    assert.strictEqual(res.headers.get("connection"), "close")
  })

  it("D1 a body just under 1 MiB is read and decoded normally", async () => {
    const h = app()
    const body = { ...promptpay, device_fingerprint: "f".repeat(512) }
    const filler = JSON.stringify({ ...body, metadata: { k: "" } })
    // Pad with whitespace to 1 MiB exactly: still accepted, then decoded (valid request -> 201).
    const raw = filler + " ".repeat(1024 * 1024 - Buffer.byteLength(filler))
    assert.strictEqual(Buffer.byteLength(raw), 1024 * 1024)
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, raw, headers: json })
    assert.strictEqual(res.status, 201, res.text)
  })
})

describe("idempotency and merchant_reference over HTTP (4.9, D5)", () => {
  it("4.9.6 same Idempotency-Key while the original is in flight -> 409 idempotency_conflict with Retry-After; afterwards the original is replayed; 4.9.5 a changed body -> 409 without it", async () => {
    const g = gated()
    const h = app(layer({ providers: [g.provider] }))
    const headers = { "idempotency-key": "http-inflight" }
    const first = call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    await g.called
    const inFlight = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    assertError(inFlight, 409, "idempotency_conflict", "Idempotency-Key")
    assert.strictEqual(inFlight.headers.get("retry-after"), "1", "a retry resolves it: Retry-After says so")
    g.release()
    const original = await first
    assert.strictEqual(original.status, 201)
    const replay = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    assert.strictEqual(replay.status, 201)
    assert.strictEqual(replay.text, original.text)
    assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
    // 4.9.5: a changed body conflicts for good; no Retry-After, so no client retries it.
    const changed = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, amount: "150001" }, headers })
    assertError(changed, 409, "idempotency_conflict", "Idempotency-Key")
    assert.isNull(changed.headers.get("retry-after"))
  })

  it("4.9 ref.3 the same merchant_reference while the original is in flight -> 409 idempotency_conflict; afterwards the original (200)", async () => {
    const g = gated()
    const h = app(layer({ providers: [g.provider] }))
    const body = { ...promptpay, merchant_reference: "http-ref-inflight" }
    const first = call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    await g.called
    const inFlight = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    assertError(inFlight, 409, "idempotency_conflict", "merchant_reference")
    assert.strictEqual(inFlight.headers.get("retry-after"), "1")
    g.release()
    const original = await first
    assert.strictEqual(original.status, 201)
    const again = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body })
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.json.id, original.json.id)
  })

  it("4.9 N concurrent creates with one merchant_reference, each under its own Idempotency-Key, create exactly one intent", async () => {
    const h = app()
    const body = { ...promptpay, merchant_reference: "http-ref-race" }
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      call(h, "POST", "/payment_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `race-${i}` } })))
    assert.lengthOf(results.filter((r) => r.status === 201), 1)
    const id = results.find((r) => r.status === 201)!.json.id
    for (const r of results) {
      if (r.status === 200) assert.strictEqual(r.json.id, id)
      else if (r.status !== 201) assertError(r, 409, "idempotency_conflict", "merchant_reference")
    }
    const list = await call(h, "GET", "/payment_intents?merchant_reference=http-ref-race", { key: keys.demoTest })
    assert.lengthOf(list.json.data, 1)
    // Each key now answers for good: a retry replays its own stored answer, or reaches the original.
    for (let i = 0; i < results.length; i++) {
      const retry = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body, headers: { "idempotency-key": `race-${i}` } })
      assert.include([200, 201], retry.status)
      assert.strictEqual(retry.json.id, id)
    }
  })

  it("D5 a 4xx is stored and replayed over HTTP with Idempotent-Replayed: true", async () => {
    const h = app()
    const headers = { "idempotency-key": "http-403" }
    const first = await call(h, "POST", "/payment_intents", { key: keys.hostedOnly, body: promptpay, headers })
    assertError(first, 403, "checkout_mode_not_allowed")
    const again = await call(h, "POST", "/payment_intents", { key: keys.hostedOnly, body: promptpay, headers })
    assert.strictEqual(again.status, 403)
    assert.strictEqual(again.text, first.text)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(again.headers.get("request-id"), first.json.error.request_id)
  })

  it("4.9.3 the same Idempotency-Key under two API keys of one merchant does not collide", async () => {
    const h = app()
    const headers = { "idempotency-key": "shared-http-key" }
    const test = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay, headers })
    const live = await call(h, "POST", "/payment_intents", { key: keys.demoLive, body: { ...promptpay, checkout_mode: "hosted", payment_method: undefined }, headers })
    assert.strictEqual(test.status, 201)
    assert.strictEqual(live.status, 201)
    assert.isNull(live.headers.get("idempotent-replayed"))
    assert.strictEqual(live.json.environment, "live")
  })
})

describe("wire shapes over HTTP (2.1, 2.4, 2.6, 4.3, 5.3)", () => {
  // 2.1's fields, and D10's cancellation_reason and amount_refunded.
  const readFields = [
    "amount", "amount_refunded", "cancellation_reason", "checkout_mode", "country", "created_at", "currency", "environment",
    "failure_code", "failure_message", "id", "merchant_reference", "next_action", "object", "payment_method", "processing_reason", "receipt", "status", "updated_at"
  ]

  it("2.1 create answers 2.1's fields less processing_reason and receipt; get and list answer all of them, identically", async () => {
    const h = app()
    const created = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, merchant_reference: "shape-1" } })
    assert.strictEqual(created.status, 201)
    assert.deepStrictEqual(Object.keys(created.json).sort(), readFields.filter((f) => f !== "processing_reason" && f !== "receipt"))
    assert.match(created.json.id, /^dord_[0-9A-Za-z]{24}$/)
    for (const t of ["created_at", "updated_at"]) assert.match(created.json[t], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    assert.deepInclude(created.json, { object: "payment_intent", amount: "150000", currency: "THB", country: "TH", environment: "test", checkout_mode: "merchant", merchant_reference: "shape-1", payment_method: "th_promptpay" })
    const got = await call(h, "GET", `/payment_intents/${created.json.id}`, { key: keys.demoTest })
    assert.deepStrictEqual(Object.keys(got.json).sort(), readFields)
    const listed = await call(h, "GET", "/payment_intents", { key: keys.demoTest })
    assert.deepStrictEqual(listed.json.data[0], got.json)
    const { processing_reason: _p, receipt: _r, ...rest } = got.json
    assert.deepStrictEqual(rest, created.json)
  })

  it("2.6 the list envelope: data newest first, has_more, next_cursor null on the last page", async () => {
    const h = app()
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })).json.id)
    const all = await call(h, "GET", "/payment_intents", { key: keys.demoTest })
    assert.deepStrictEqual(Object.keys(all.json), ["data", "has_more", "next_cursor"])
    assert.isFalse(all.json.has_more)
    assert.isNull(all.json.next_cursor)
    assert.sameMembers(all.json.data.map((d: { id: string }) => d.id), ids)
    const times = all.json.data.map((d: { created_at: string }) => d.created_at)
    assert.deepStrictEqual(times, [...times].sort().reverse())
    const first = await call(h, "GET", "/payment_intents?limit=2", { key: keys.demoTest })
    assert.isTrue(first.json.has_more)
    assert.isString(first.json.next_cursor)
    const last = await call(h, "GET", `/payment_intents?limit=2&cursor=${first.json.next_cursor}`, { key: keys.demoTest })
    assert.lengthOf(last.json.data, 1)
    assert.isFalse(last.json.has_more)
    assert.isNull(last.json.next_cursor)
  })

  it("4.3 limit is an integer from 1 to 100: 1 and 100 are accepted; 0, 101, 1.5, -1, 1e2 -> 400 param limit (D6)", async () => {
    const h = app()
    for (let i = 0; i < 2; i++) await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })
    assert.lengthOf((await call(h, "GET", "/payment_intents?limit=1", { key: keys.demoTest })).json.data, 1)
    assert.lengthOf((await call(h, "GET", "/payment_intents?limit=100", { key: keys.demoTest })).json.data, 2)
    for (const limit of ["0", "101", "1.5", "-1", "1e2", ""]) {
      assertError(await call(h, "GET", `/payment_intents?limit=${limit}`, { key: keys.demoTest }), 400, "validation_failed", "limit")
    }
  })

  it("4.3 each filter applies over HTTP: country, currency, status, merchant_reference, created_after, created_before", async () => {
    const h = app()
    const a = (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...promptpay, merchant_reference: "f-a" } })).json
    const ids = async (query: string) =>
      (await call(h, "GET", `/payment_intents?${query}`, { key: keys.demoTest })).json.data.map((d: { id: string }) => d.id)
    assert.deepStrictEqual(await ids("country=TH"), [a.id])
    assert.deepStrictEqual(await ids("country=VN"), [])
    assert.deepStrictEqual(await ids("currency=USD"), [])
    assert.deepStrictEqual(await ids("status=failed"), [])
    assert.deepStrictEqual(await ids("status=failed,requires_action"), [a.id])
    assert.deepStrictEqual(await ids("merchant_reference=f-b"), [])
    assert.deepStrictEqual(await ids(`created_after=${encodeURIComponent(a.created_at)}`), [a.id])
    assert.deepStrictEqual(await ids(`created_before=${encodeURIComponent(a.created_at)}`), [])
  })

  it("2.4 discovery over HTTP: echo of country and currency, the key's environment, empty methods when nothing is eligible", async () => {
    const h = app()
    const q = "?amount=150000&country=TH&currency=THB"
    const test = await call(h, "GET", `/payment_methods/options${q}`, { key: keys.demoTest })
    assert.deepStrictEqual(Object.keys(test.json), ["country", "currency", "environment", "methods"])
    assert.deepInclude(test.json, { country: "TH", currency: "THB", environment: "test" })
    for (const m of test.json.methods) assert.deepStrictEqual(m.next_action_types, ["redirect_to_url"])
    const live = await call(h, "GET", `/payment_methods/options${q}`, { key: keys.demoLive })
    assert.deepStrictEqual(live.json, { country: "TH", currency: "THB", environment: "live", methods: [] })
    const denied = await call(h, "GET", `/payment_methods/options${q}&checkout_mode=merchant`, { key: keys.hostedOnly })
    assert.deepStrictEqual(denied.json.methods, [])
  })

  it("5.3 no query parameter or header overrides the environment the key stamps", async () => {
    const h = app()
    assertError(await call(h, "GET", "/payment_intents?environment=live", { key: keys.demoTest }), 400, "validation_failed", "environment")
    assertError(await call(h, "GET", "/payment_methods/options?amount=150000&country=TH&currency=THB&environment=live", { key: keys.demoTest }), 400, "validation_failed", "environment")
    const res = await call(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: promptpay,
      headers: { "x-environment": "live", "tender-environment": "live", environment: "live" }
    })
    assert.strictEqual(res.status, 201)
    assert.strictEqual(res.json.environment, "test")
  })
})
