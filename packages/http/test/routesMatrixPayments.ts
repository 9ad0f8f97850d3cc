/**
 * The error-code matrix (RoutesErrorCodes.test.ts), its payment routes: payment intents (create,
 * get, list, confirm, receipt, cancel), assets, payout intents and refunds.
 */
import { assert } from "@effect/vitest"
import type { Provider } from "@tender/core"
import { Simulator, Workers } from "@tender/core"
import { bankTransfer as bankTransferBody, promptpayNamed as promptpay } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { keys, layer } from "../../core/test/fixtures.js"
import type { TenderHttp } from "../src/index.js"
import type { Key } from "./harness.js"
import { app, assertError, call, formWith, png } from "./harness.js"
import { json, type Matrix } from "./routes.js"

const bankTransfer = bankTransferBody()

/** Every payment route's statuses and codes; answers the asset later groups attach. */
export const paymentRoutes = async ({ h, h500, hStoreDown, h503, ok, err, guardedRead, refusesQueries, wrongSecret, refusesOversized, runtimes }: Matrix) => {
  // POST /payment_intents
  const C = "paymentIntents.create" as const
  const post = (options: Parameters<typeof call>[3], handler = h) => call(handler, "POST", "/payment_intents", options)
  const created = await ok(C, post({ key: keys.demoTest, body: { ...promptpay, merchant_reference: "matrix-1" } }), 201)
  await ok(C, post({ key: keys.demoTest, body: { ...promptpay, merchant_reference: "matrix-1" } }), 200)
  await err(C, post({ key: keys.demoTest, body: { ...promptpay, amount: "0" } }), 400, "validation_failed", "amount")
  await err(C, post({ key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
  await err(
    C,
    post({ key: keys.demoTest, raw: JSON.stringify(promptpay), headers: { "content-type": "text/plain" } }),
    400,
    "validation_failed",
    "Content-Type"
  )
  await err(C, post({ key: keys.demoTest, body: promptpay, headers: { "idempotency-key": "k".repeat(256) } }), 400, "validation_failed", "Idempotency-Key")
  await err(C, post({ key: keys.demoTest, body: { ...promptpay, payment_method: undefined } }), 400, "validation_failed", "payment_method")
  await err(C, post({ key: keys.demoTest, body: { ...promptpay, return_url: "https://shop.example/" } }), 400, "validation_failed", "return_url")
  await err(
    C,
    post({ key: keys.demoTest, body: { ...promptpay, checkout_mode: "hosted", payment_method: undefined, payment_method_options: { bank: "KBANK" } } }),
    400,
    "validation_failed",
    "payment_method_options"
  )
  await err(
    C,
    post({ key: keys.demoTest, body: { ...bankTransfer, payment_method_options: { ...bankTransfer.payment_method_options, bank: "NOPE" } } }),
    400,
    "validation_failed",
    "payment_method_options.bank"
  )
  await err(C, post({ key: keys.demoTest, body: { ...bankTransfer, customer: {} } }), 400, "validation_failed", "customer.name")
  await err(C, post({ body: promptpay }), 401, "authentication_required")
  await err(C, post({ key: wrongSecret, body: promptpay }), 401, "invalid_api_key")
  await err(C, post({ key: keys.hostedOnly, body: promptpay }), 403, "checkout_mode_not_allowed", "checkout_mode")
  await ok(C, post({ key: keys.demoTest, body: promptpay, headers: { "idempotency-key": "matrix-key" } }), 201)
  await err(
    C,
    post({ key: keys.demoTest, body: { ...promptpay, amount: "150001" }, headers: { "idempotency-key": "matrix-key" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await err(
    C,
    post({ key: keys.demoTest, body: { ...promptpay, amount: "150001", merchant_reference: "matrix-1" } }),
    409,
    "idempotency_conflict",
    "merchant_reference"
  )
  await refusesOversized(C, post)
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
  const get = (id: string, key: Key | null = keys.demoTest, handler = h) => call(handler, "GET", `/payment_intents/${id}`, key !== null ? { key } : {})
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
  const list = (query: string, key: Key | null = keys.demoTest, handler = h) => call(handler, "GET", `/payment_intents${query}`, key !== null ? { key } : {})
  await ok(L, list(""), 200)
  await refusesQueries(L, list, [["?status=done", "status"]])
  await guardedRead(L, (options, handler) => list("", options.key ?? null, handler))

  // POST /payment_intents/{id}/confirm (4.5, D3)
  const F = "paymentIntents.confirm" as const
  const confirm = (cid: string, options: Parameters<typeof call>[3] = { key: keys.demoTest }, handler = h) =>
    call(handler, "POST", `/payment_intents/${cid}/confirm`, options)
  const pending = (await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: promptpay })).json.id as string
  await ok(F, confirm(pending), 200)
  await ok(F, confirm(pending, { key: keys.demoTest, body: {} }), 200)
  await err(F, confirm(pending, { key: keys.demoTest, body: { amount: "1" } }), 400, "validation_failed", "body")
  await refusesOversized(F, (options) => confirm(pending, options))
  await err(F, confirm("nope"), 400, "validation_failed", "id")
  await err(F, confirm(pending, {}), 401, "authentication_required")
  await err(F, confirm(pending, { key: wrongSecret }), 401, "invalid_api_key")
  await err(F, confirm(pending, { key: keys.otherTest }), 404, "resource_not_found")
  await ok(F, confirm(pending, { key: keys.demoTest, headers: { "idempotency-key": "matrix-confirm" } }), 200)
  await err(
    F,
    confirm(created.json.id, { key: keys.demoTest, headers: { "idempotency-key": "matrix-confirm" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
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
  await err(
    U,
    upload({ key: keys.demoTest, form: formWith(new TextEncoder().encode("GIF89a")), headers: { "idempotency-key": "matrix-gif" } }),
    400,
    "validation_failed",
    "file"
  )
  await err(U, upload({ key: keys.demoTest, body: {}, headers: { "idempotency-key": "matrix-json" } }), 400, "validation_failed", "Content-Type")
  await err(U, upload({ form: formWith(png()), headers: uploadKey }), 401, "authentication_required")
  await err(U, upload({ key: wrongSecret, form: formWith(png()), headers: uploadKey }), 401, "invalid_api_key")
  const hugeForm = formWith(png(6 * 1024 * 1024))
  const hugeLength = (await new Request("http://x", { method: "POST", body: hugeForm }).arrayBuffer()).byteLength
  await err(
    U,
    upload({ key: keys.demoTest, form: hugeForm, headers: { "idempotency-key": "matrix-huge", "content-length": String(hugeLength) } }),
    413,
    "validation_failed",
    "file"
  )
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
  await err(
    P,
    receipt(another, { key: keys.demoTest, form: formWith(png(65)), headers: { "idempotency-key": "matrix-receipt-2" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await err(
    P,
    receipt(another, { key: keys.demoTest, form: hugeForm, headers: { "idempotency-key": "matrix-huge", "content-length": String(hugeLength) } }),
    413,
    "validation_failed",
    "file"
  )
  await err(P, receipt(another, { key: keys.demoTest, body: { asset_id: asset.json.id } }, h500), 500, "internal_error")
  await err(P, receipt(another, { key: keys.demoTest, body: { asset_id: asset.json.id } }, h503), 503, "service_unavailable")

  const withWorkers = async (providers?: ReadonlyArray<Provider.PaymentProvider>) => {
    const runtime = ManagedRuntime.make(layer(providers === undefined ? {} : { providers }))
    runtimes.push(runtime)
    const handler = app(Layer.succeedContext(await runtime.runPromise(Effect.context<TenderHttp.Services>())))
    const paid = async (body: Record<string, unknown> = promptpay) => {
      const pid = (await call(handler, "POST", "/payment_intents", { key: keys.demoTest, body })).json.id as string
      if (body === promptpay) await call(handler, "POST", `/payment_intents/${pid}/confirm`, { key: keys.demoTest })
      else {await call(handler, "POST", `/payment_intents/${pid}/receipt`, {
          key: keys.demoTest,
          form: formWith(png()),
          headers: { "idempotency-key": `r-${pid}` }
        })}
      await runtime.runPromise(Workers.drain({ owner: "matrix" }))
      return pid
    }
    /** A balance funded as D12 says a test balance is: a `test_funding` top-up, paid by the workers. */
    const fund = async (amount: string) => {
      const created = await call(handler, "POST", "/topup_intents", {
        key: keys.demoTest,
        body: { destination_amount: amount, destination_currency: "THB", source: { type: "test_funding" } },
        headers: { "idempotency-key": `fund-${amount}` }
      })
      assert.strictEqual(created.status, 201, created.text)
      await runtime.runPromise(Workers.drain({ owner: "matrix" }))
    }
    return { handler, paid, fund }
  }
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
  // D12: a payout draws from the available balance, funded first (on services whose workers run).
  const hp = await withWorkers()
  const payouts = (method: string, suffix: string, options: Parameters<typeof call>[3], handler = hp.handler) =>
    call(handler, method, `/payout_intents${suffix}`, options)
  await err(PC, payouts("POST", "", { key: keys.demoTest, body: { ...payout, merchant_reference: "matrix-unfunded" } }), 422, "balance_insufficient", "amount")
  await hp.fund("500000")
  const pout = await ok(PC, payouts("POST", "", { key: keys.demoTest, body: payout }), 201)
  await ok(PC, payouts("POST", "", { key: keys.demoTest, body: payout }), 200)
  await err(PC, payouts("POST", "", { key: keys.demoTest, body: { ...payout, amount: "1" } }), 409, "idempotency_conflict", "merchant_reference")
  await err(PC, payouts("POST", "", { key: keys.demoTest, body: { ...payout, merchant_reference: undefined } }), 400, "validation_failed", "merchant_reference")
  await err(
    PC,
    payouts("POST", "", { key: keys.demoTest, body: { ...payout, merchant_reference: "m2", destination: { ...payout.destination, bank: "NOPE" } } }),
    400,
    "validation_failed",
    "destination.bank"
  )
  await err(PC, payouts("POST", "", { key: keys.demoLive, body: payout }), 422, "payment_configuration_unavailable")
  await err(PC, payouts("POST", "", { body: payout }), 401, "authentication_required")
  await err(PC, payouts("POST", "", { key: wrongSecret, body: payout }), 401, "invalid_api_key")
  await refusesOversized(PC, (options) => payouts("POST", "", options))
  await err(PC, payouts("POST", "", { key: keys.demoTest, body: payout }, h500), 500, "internal_error")
  await err(PC, payouts("POST", "", { key: keys.demoTest, body: payout }, h503), 503, "service_unavailable")
  assert.strictEqual(pout.json.destination.account_number, "******6789")
  const poutId = pout.json.id as string
  await ok(PR, payouts("GET", `/${poutId}`, { key: keys.demoTest }), 200)
  await err(PR, payouts("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(PR, payouts("GET", `/${poutId}`, { key: keys.otherTest }), 404, "resource_not_found")
  await guardedRead(PR, (options, handler) => payouts("GET", `/${poutId}`, options, handler))
  await ok(PL, payouts("GET", "?status=requires_approval", { key: keys.demoTest }), 200)
  await err(PL, payouts("GET", "?status=paid", { key: keys.demoTest }), 400, "validation_failed", "status")
  await guardedRead(PL, (options, handler) => payouts("GET", "", options, handler))
  await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.otherTest }), 404, "resource_not_found")
  await err(PX, payouts("POST", "/nope/cancel", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(PX, payouts("POST", `/${poutId}/cancel`, {}), 401, "authentication_required")
  await err(PX, payouts("POST", `/${poutId}/cancel`, { key: wrongSecret }), 401, "invalid_api_key")
  await refusesOversized(PX, (options) => payouts("POST", `/${poutId}/cancel`, options))
  await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest }, h500), 500, "internal_error")
  await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest }, h503), 503, "service_unavailable")
  await ok(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-cancel" } }), 200)
  await ok(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-cancel" } }), 200)
  // The key funded the balance on this store: another route's request under it conflicts.
  await err(
    PX,
    payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest, body: {}, headers: { "idempotency-key": "fund-500000" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await err(PX, payouts("POST", `/${poutId}/cancel`, { key: keys.demoTest }), 409, "payout_not_cancelable")

  // GET /balance, GET /balance_transactions(/{id}) (D12), on the store the payouts funded.
  const BR = "balance.retrieve" as const
  const TR = "balanceTransactions.retrieve" as const
  const TL = "balanceTransactions.list" as const
  const reads = (path: string, options: Parameters<typeof call>[3], handler = hp.handler) => call(handler, "GET", path, options)
  await ok(BR, reads("/balance", { key: keys.demoTest }), 200)
  await err(BR, reads("/balance?currency=THB", { key: keys.demoTest }), 400, "validation_failed", "currency")
  await guardedRead(BR, (options, handler) => reads("/balance", options, handler))
  const txn = (await ok(TL, reads("/balance_transactions?type=payout", { key: keys.demoTest }), 200)).json.data[0].id as string
  await refusesQueries(TL, (query) => reads(`/balance_transactions${query}`, { key: keys.demoTest }), [["?type=nope", "type"]])
  await guardedRead(TL, (options, handler) => reads("/balance_transactions", options, handler))
  await ok(TR, reads(`/balance_transactions/${txn}`, { key: keys.demoTest }), 200)
  await err(TR, reads("/balance_transactions/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(TR, reads(`/balance_transactions/${txn}`, { key: keys.otherTest }), 404, "resource_not_found")
  await guardedRead(TR, (options, handler) => reads(`/balance_transactions/${txn}`, options, handler))

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
  await refusesOversized(X, (options) => cancel(cancelable, options))
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
  const hr = await withWorkers()
  const refunds = (method: string, suffix: string, options: Parameters<typeof call>[3], handler = hr.handler) =>
    call(handler, method, `/refunds${suffix}`, options)
  const refunded = await hr.paid()
  const rbody = { payment_intent: refunded, amount: "1000", merchant_reference: "matrix-refund" }
  const rfnd = await ok(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }), 201)
  await ok(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }), 200)
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { ...rbody, amount: "1001" } }), 409, "idempotency_conflict", "merchant_reference")
  await ok(
    RC,
    refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "1" }, headers: { "idempotency-key": "matrix-refund-key" } }),
    201
  )
  await err(
    RC,
    refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "2" }, headers: { "idempotency-key": "matrix-refund-key" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "150000" } }), 409, "amount_exceeds_refundable", "amount")
  await err(
    RC,
    refunds("POST", "", { key: keys.demoTest, body: { payment_intent: await toCancel() } }, h),
    409,
    "payment_intent_unexpected_state",
    "payment_intent"
  )
  await err(RC, refunds("POST", "", { key: keys.otherTest, body: { payment_intent: refunded } }), 404, "resource_not_found", "payment_intent")
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, amount: "0" } }), 400, "validation_failed", "amount")
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: "nope" } }), 400, "validation_failed", "payment_intent")
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: refunded, reason: "late_payment" } }), 400, "validation_failed", "reason")
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: await hr.paid(bankTransfer) } }), 400, "validation_failed", "destination")
  await err(RC, refunds("POST", "", { key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
  await err(RC, refunds("POST", "", { body: rbody }), 401, "authentication_required")
  await err(RC, refunds("POST", "", { key: wrongSecret, body: rbody }), 401, "invalid_api_key")
  await refusesOversized(RC, (options) => refunds("POST", "", options))
  const noRefunds = await withWorkers([{ ...Simulator.make(), refund: undefined }])
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: { payment_intent: await noRefunds.paid() } }, noRefunds.handler), 422, "refund_not_supported")
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }, h500), 500, "internal_error")
  await err(RC, refunds("POST", "", { key: keys.demoTest, body: rbody }, h503), 503, "service_unavailable")
  const rfndId = rfnd.json.id as string
  await ok(RR, refunds("GET", `/${rfndId}`, { key: keys.demoTest }), 200)
  await err(RR, refunds("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(RR, refunds("GET", `/${rfndId}`, { key: keys.otherTest }), 404, "resource_not_found")
  await guardedRead(RR, (options, handler) => refunds("GET", `/${rfndId}`, options, handler))
  const rl = await ok(RL, refunds("GET", `?payment_intent=${refunded}&status=pending,succeeded`, { key: keys.demoTest }), 200)
  assert.isTrue(rl.json.data.some((x: { id: string }) => x.id === rfndId))
  await refusesQueries(RL, (query) => refunds("GET", query, { key: keys.demoTest }), [
    ["?status=paid", "status"],
    ["?payment_intent=nope", "payment_intent"],
    ["?merchant_reference=", "merchant_reference"]
  ])
  await guardedRead(RL, (options, handler) => refunds("GET", "", options, handler))
  assertError(await refunds("DELETE", `/${rfndId}`, { key: keys.demoTest }), 405, "method_not_allowed")
  return { asset }
}
