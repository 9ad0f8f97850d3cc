/**
 * The error-code matrix (RoutesErrorCodes.test.ts), the routes after the payments: top-up
 * intents, webhook endpoints and their tools, events, payment method options and the event
 * type catalogue.
 */
import { assert } from "@effect/vitest"
import { Simulator, Storage, WebhookEndpoint } from "@tender/core"
import { promptpayNamed as promptpay } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { keys, layer } from "../../core/test/fixtures.js"
import type { TenderHttp } from "../src/index.js"
import type { Key, Reply } from "./harness.js"
import { app, assertError, call } from "./harness.js"
import { json, type Matrix } from "./routes.js"

/** Every route of top-ups, webhooks, events and discovery: statuses and codes. `asset` is a stored receipt image. */
export const otherRoutes = async (
  { h, h500, hDirectoryDown, h503, ok, err, guardedRead, refusesQueries, wrongSecret, refusesOversized, runtimes }: Matrix,
  asset: Reply
) => {
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
  await err(
    TC,
    topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: "1", merchant_reference: "matrix-topup" } }),
    409,
    "idempotency_conflict",
    "merchant_reference"
  )
  await err(TC, topups("POST", "", { key: keys.demoTest, body: topup, noKey: true }), 400, "validation_failed", "Idempotency-Key")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: topup, headers: { "idempotency-key": "" } }), 400, "validation_failed", "Idempotency-Key")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: "0" } }), 400, "validation_failed", "destination_amount")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_currency: "thb" } }), 400, "validation_failed", "destination_currency")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_currency: "ZZZ" } }), 400, "validation_failed", "destination_currency")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, source: { type: "card" } } }), 400, "validation_failed", "source.type")
  await err(
    TC,
    topups("POST", "", { key: keys.demoTest, body: { ...topup, source: { type: "test_funding", provider: "nope" } } }),
    400,
    "validation_failed",
    "source.provider"
  )
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, source: undefined } }), 400, "validation_failed", "source")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, country: "tha" } }), 400, "validation_failed", "country")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: { ...topup, colour: "red" } }), 400, "validation_failed", "colour")
  await err(TC, topups("POST", "", { key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
  await err(TC, topups("POST", "", { body: topup }), 401, "authentication_required")
  await err(TC, topups("POST", "", { key: wrongSecret, body: topup }), 401, "invalid_api_key")
  await refusesOversized(TC, (options) => topups("POST", "", options))
  await err(TC, topups("POST", "", { key: keys.demoLive, body: topup }), 422, "payment_configuration_unavailable", "source.type")
  await err(
    TC,
    topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_currency: "JPY" } }),
    422,
    "payment_configuration_unavailable",
    "destination_currency"
  )
  await err(
    TC,
    topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: Simulator.magicAmounts.unavailable } }),
    422,
    "routing_unavailable"
  )
  await ok(TC, topups("POST", "", { key: keys.demoTest, body: topup, headers: { "idempotency-key": "matrix-topup-key" } }), 201)
  await err(
    TC,
    topups("POST", "", { key: keys.demoTest, body: { ...topup, destination_amount: "2" }, headers: { "idempotency-key": "matrix-topup-key" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  // D5: the route is part of the fingerprint: a key used on POST /payment_intents conflicts here.
  await err(
    TC,
    topups("POST", "", { key: keys.demoTest, body: topup, headers: { "idempotency-key": "matrix-key" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await err(TC, topups("POST", "", { key: keys.demoTest, body: topup }, h500), 500, "internal_error")
  await err(TC, topups("POST", "", { key: keys.demoTest, body: topup }, h503), 503, "service_unavailable")
  const tuinId = tuin.json.id as string
  assert.strictEqual(tuin.json.next_action.type, "display_bank_transfer_instructions")
  await ok(TR, topups("GET", `/${tuinId}`, { key: keys.demoTest }), 200)
  await err(TR, topups("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(TR, topups("GET", `/${tuinId}`, { key: keys.otherTest }), 404, "resource_not_found")
  await err(TR, topups("GET", `/${tuinId}`, { key: keys.demoLive }), 404, "resource_not_found")
  await guardedRead(TR, (options, handler) => topups("GET", `/${tuinId}`, options, handler))
  const tl = await ok(TL, topups("GET", "?source_type=manual_receipt,provider_gateway&status=requires_payment&currency=THB", { key: keys.demoTest }), 200)
  assert.isTrue(tl.json.data.some((x: { id: string }) => x.id === tuinId))
  await refusesQueries(TL, (query) => topups("GET", query, { key: keys.demoTest }), [
    ["?status=paid", "status"],
    ["?source_type=card", "source_type"],
    ["?country=tha", "country"],
    ["?currency=thb", "currency"],
    ["?merchant_reference=", "merchant_reference"]
  ])
  await guardedRead(TL, (options, handler) => topups("GET", "", options, handler))
  const byAsset = { asset_id: asset.json.id }
  await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: {} }), 400, "validation_failed", "asset_id")
  await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: { asset_id: "nope" } }), 400, "validation_failed", "asset_id")
  await err(TX, topups("POST", "/nope/receipt", { key: keys.demoTest, body: byAsset }), 400, "validation_failed", "id")
  await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.otherTest, body: byAsset }), 404, "resource_not_found")
  await err(TX, topups("POST", `/${tuinId}/receipt`, { body: byAsset }), 401, "authentication_required")
  await err(TX, topups("POST", `/${tuinId}/receipt`, { key: wrongSecret, body: byAsset }), 401, "invalid_api_key")
  await refusesOversized(TX, (options) => topups("POST", `/${tuinId}/receipt`, options))
  await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset }, h500), 500, "internal_error")
  await err(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset }, h503), 503, "service_unavailable")
  await ok(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset, headers: { "idempotency-key": "matrix-topup-receipt" } }), 200)
  await ok(TX, topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset, headers: { "idempotency-key": "matrix-topup-receipt" } }), 200)
  await err(
    TX,
    topups("POST", `/${tuinId}/receipt`, { key: keys.demoTest, body: byAsset, headers: { "idempotency-key": "matrix-key" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
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
  await ok(
    WC,
    endpoints("POST", "", { key: keys.demoLive, body: { url: "https://hooks.example.com/tender", enabled_events: ["payment_intent.succeeded"] } }),
    201
  )
  await err(WC, endpoints("POST", "", { key: keys.demoLive, body: { url: "http://hooks.example.com/tender" } }), 400, "validation_failed", "url")
  await err(WC, endpoints("POST", "", { key: keys.demoLive, body: { url: "https://127.0.0.1/hook" } }), 400, "validation_failed", "url")
  await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://x", enabled_events: ["payment_intent.nope"] } }), 400, "validation_failed")
  await err(WC, endpoints("POST", "", { body: { url: "http://x" } }), 401, "authentication_required")
  await err(WC, endpoints("POST", "", { key: wrongSecret, body: { url: "http://x" } }), 401, "invalid_api_key")
  await ok(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/a" }, headers: { "idempotency-key": "matrix-we" } }), 201)
  await err(
    WC,
    endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/b" }, headers: { "idempotency-key": "matrix-we" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await refusesOversized(WC, (options) => endpoints("POST", "", options))
  await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/c" } }, h500), 500, "internal_error")
  await err(WC, endpoints("POST", "", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/c" } }, h503), 503, "service_unavailable")
  const listed = await ok(WL, endpoints("GET", "", { key: keys.demoTest }), 200)
  assert.isTrue(listed.json.data.every((e: Record<string, unknown>) => !("secret" in e)))
  await err(WL, endpoints("GET", "?limit=0", { key: keys.demoTest }), 400, "validation_failed", "limit")
  await guardedRead(WL, (options, handler) => endpoints("GET", "", options, handler))
  const weId = registered.json.id as string
  await ok(WR, endpoints("GET", `/${weId}`, { key: keys.demoTest }), 200)
  await err(WR, endpoints("GET", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(WR, endpoints("GET", `/${weId}`, { key: keys.otherTest }), 404, "resource_not_found")
  await guardedRead(WR, (options, handler) => endpoints("GET", `/${weId}`, options, handler))
  await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.otherTest }), 404, "resource_not_found")
  await err(WD, endpoints("DELETE", "/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(WD, endpoints("DELETE", `/${weId}`, {}), 401, "authentication_required")
  await err(WD, endpoints("DELETE", `/${weId}`, { key: wrongSecret }), 401, "invalid_api_key")
  await ok(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-del" } }), 200)
  await err(
    WD,
    endpoints("DELETE", `/${registered.json.id}`, { key: keys.demoTest, headers: { "idempotency-key": "matrix-we" } }),
    409,
    "idempotency_conflict",
    "Idempotency-Key"
  )
  await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest }), 404, "resource_not_found")
  await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest }, h500), 500, "internal_error")
  await err(WD, endpoints("DELETE", `/${weId}`, { key: keys.demoTest }, h503), 503, "service_unavailable")

  // The webhook tools: an endpoint's attempts, resend, secret rotation and enable; the Events API.
  const toolsRuntime = ManagedRuntime.make(layer())
  runtimes.push(toolsRuntime)
  const hTools = app(Layer.succeedContext(await toolsRuntime.runPromise(Effect.context<TenderHttp.Services>())))
  const tool = (method: string, path: string, options: Parameters<typeof call>[3], handler = hTools) => call(handler, method, path, options)
  const live = (await ok(WC, tool("POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/tools" } }), 201)).json.id as string
  const off = (await ok(WC, tool("POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/off" } }), 201)).json.id as string
  await toolsRuntime.runPromise(Effect.gen(function*() {
    const storage = yield* Storage.Storage
    const record = (yield* storage.get(WebhookEndpoint.table, { merchantId: "mch_demo", environment: "test" }, off)).pipe(Option.getOrThrow)
    yield* storage.commit([
      Storage.Write.update(WebhookEndpoint.table, { ...record, status: "disabled" as const, version: record.version + 1 }, record.version)
    ])
  }))
  await ok("paymentIntents.create", tool("POST", "/payment_intents", { key: keys.demoTest, body: promptpay }), 201)
  const EL = "events.list" as const
  const ER = "events.retrieve" as const
  const evt = (await ok(EL, tool("GET", "/events?type=payment_intent.created,payment_intent.requires_action&limit=1", { key: keys.demoTest }), 200)).json
    .data[0].id as string
  await refusesQueries(EL, (query) => tool("GET", `/events${query}`, { key: keys.demoTest }), [["?type=nope", "type"]])
  await guardedRead(EL, (options, handler) => tool("GET", "/events", options, handler))
  await ok(ER, tool("GET", `/events/${evt}`, { key: keys.demoTest }), 200)
  await err(ER, tool("GET", "/events/nope", { key: keys.demoTest }), 400, "validation_failed", "id")
  await err(ER, tool("GET", `/events/${evt}`, { key: keys.otherTest }), 404, "resource_not_found")
  await err(ER, tool("GET", `/events/${evt}`, { key: keys.demoLive }), 404, "resource_not_found")
  await guardedRead(ER, (options, handler) => tool("GET", `/events/${evt}`, options, handler))
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
    await err(
      op,
      tool("POST", path(off), { key: keys.demoTest, body, headers: { "idempotency-key": `matrix-${action}` } }),
      409,
      "idempotency_conflict",
      "Idempotency-Key"
    )
    await err(op, tool("POST", path("nope"), { key: keys.demoTest, body }), 400, "validation_failed", "id")
    await err(op, tool("POST", path(live), { key: keys.demoTest, raw: "{", headers: json }), 400, "validation_failed", "body")
    await err(op, tool("POST", path(live), { key: keys.otherTest, body }), 404, "resource_not_found")
    await err(op, tool("POST", path(live), { body }), 401, "authentication_required")
    await err(op, tool("POST", path(live), { key: wrongSecret, body }), 401, "invalid_api_key")
    await refusesOversized(op, (options) => tool("POST", path(live), options))
    await err(op, tool("POST", path(weId), { key: keys.demoTest, body }, h500), 500, "internal_error")
    await err(op, tool("POST", path(weId), { key: keys.demoTest, body }, h503), 503, "service_unavailable")
    assertError(await tool("GET", path(live), { key: keys.demoTest }), 405, "method_not_allowed")
  }
  await err(
    "webhookEndpoints.resend",
    tool("POST", `/webhook_endpoints/${off}/resend`, { key: keys.demoTest, body: { event: evt } }),
    409,
    "webhook_endpoint_disabled",
    "id"
  )
  await err(
    "webhookEndpoints.resend",
    tool("POST", `/webhook_endpoints/${live}/resend`, { key: keys.demoTest, body: { event: evt, since: "2026-01-01T00:00:00Z" } }),
    400,
    "validation_failed",
    "event"
  )
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
  await err(
    "webhookEndpoints.rotateSecret",
    tool("POST", `/webhook_endpoints/${live}/rotate_secret`, { key: keys.demoTest, body: { expires_in: -1 } }),
    400,
    "validation_failed",
    "expires_in"
  )
  await err(
    "webhookEndpoints.enable",
    tool("POST", `/webhook_endpoints/${live}/enable`, { key: keys.demoTest, body: { x: 1 } }),
    400,
    "validation_failed",
    "body"
  )

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
}
