/**
 * One vocabulary (docs/adding-an-endpoint.md): every operation of `/openapi.json` is a method of
 * the Promise API and of `@tender/client` under its own operation id (`paymentIntents.create` is
 * `tender.paymentIntents.create` and `client.paymentIntents.create`), and each Promise method
 * answers what its route answers, under the same rules.
 */
import { TenderClient } from "@tender/client"
import { ApiResponse } from "@tender/core"
import { bankTransfer, basic, demoKey, png, promptpay, topup } from "@tender/repo-test-support"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createTender, type TenderInstance } from "../src/index.js"
import { fromResponse } from "../src/internal/run.js"
import { base, quietOptions } from "./fixtures.js"
import { rejection } from "./rejection.js"

const demo = { merchant: "mch_demo", environment: "test" } as const

let tender: TenderInstance
beforeAll(async () => {
  tender = await createTender(quietOptions)
})
afterAll(() => tender.close())

/** The Promise API's surfaces with no HTTP endpoint (spec 5, D8, 2.3): the host's own. */
const hostOnly = new Set([
  "merchants.create",
  "merchants.retrieve",
  "merchants.update",
  "keys.issue",
  "keys.rotate",
  "keys.revoke",
  "routes.setAvailable",
  "routes.setProviderAvailable",
  "payoutIntents.approve",
  "balances.adjust",
  "balances.feeRevenue"
])

/** `group.method` for every method of every group object on `api`. */
const methodNames = (api: object): Array<string> =>
  Object.entries(api).flatMap(([group, methods]) =>
    typeof methods === "object" && methods !== null && !Array.isArray(methods)
      ? Object.entries(methods).filter(([, m]) => typeof m === "function").map(([name]) => `${group}.${name}`)
      : []
  )

const get = async (path: string) => {
  const response = await tender.fetch(new Request(`${base}${path}`, { headers: { authorization: basic(demoKey) } }))
  return response.json() as Promise<unknown>
}

describe("one vocabulary: the HTTP API, the Promise API and the client", () => {
  it("server: every operation of /openapi.json is a Promise method and a client method of the same name, and the two have no other", async () => {
    const document = await get("/openapi.json") as { paths: Record<string, Record<string, { operationId: string }>> }
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)).sort()
    assert.isAbove(operations.length, 25)
    const promise = methodNames(tender).filter((name) => !hostOnly.has(name)).sort()
    // `client.http` is openapi-fetch itself (any route by path), not a resource.
    const { http: _, ...resources } = new TenderClient({ baseUrl: base, publicKey: demoKey.public, secretKey: demoKey.secret })
    const client = methodNames(resources).sort()
    assert.deepStrictEqual(promise, operations, "the Promise API's merchant methods are the document's operations")
    assert.deepStrictEqual(client, operations, "the client's methods are the document's operations")
  })

  it("server: reads through the Promise API answer what their routes answer (events, discovery, the catalogue, top-ups)", async () => {
    const created = await tender.paymentIntents.create(promptpay, demo)
    const events = await tender.events.list({ limit: 100 }, demo)
    const event = events.data.find((e) => e.type === "payment_intent.created" && (e.data.object as { id?: string }).id === created.id)
    assert.isDefined(event)
    assert.deepStrictEqual(await tender.events.retrieve(event!.id, demo), await get(`/events/${event!.id}`))
    const query = { amount: "150000", country: "TH", currency: "THB", checkout_mode: "merchant" } as const
    assert.deepStrictEqual(await tender.paymentMethods.options(query, demo), await get(`/payment_methods/options?${new URLSearchParams(query)}`))
    assert.deepStrictEqual(await tender.webhookEventTypes.catalogue(), await get("/webhook_event_types"))

    // 4.7, D5: a top-up's create requires the key, as its route requires the header.
    const keyless = await rejection(tender.topupIntents.create(topup, demo))
    assert.deepStrictEqual([keyless.status, keyless.code, keyless.param], [400, "validation_failed", "Idempotency-Key"])
    const top = await tender.topupIntents.create(topup, { ...demo, idempotencyKey: crypto.randomUUID() })
    assert.deepStrictEqual(await tender.topupIntents.retrieve(top.id, demo), await get(`/topup_intents/${top.id}`))
    assert.include((await tender.topupIntents.list(undefined, demo)).data.map((t) => t.id), top.id)
  })

  it("4.4 server: an asset uploaded through the Promise API is a payment's receipt; a file sent as the receipt needs an idempotencyKey", async () => {
    const asset = await tender.assets.upload(png(), demo)
    assert.match(asset.id, /^asst_/)
    const notImage = await rejection(tender.assets.upload(new TextEncoder().encode("GIF89a"), demo))
    assert.deepStrictEqual([notImage.code, notImage.param], ["validation_failed", "file"])

    const transfer = await tender.paymentIntents.create(bankTransfer(), demo)
    const withAsset = await tender.paymentIntents.receipt(transfer.id, { asset_id: asset.id }, demo)
    assert.strictEqual(withAsset.id, transfer.id)
    assert.isNotNull(withAsset.receipt)

    const other = await tender.paymentIntents.create(bankTransfer(), demo)
    const keyless = await rejection(tender.paymentIntents.receipt(other.id, { file: png() }, demo))
    assert.deepStrictEqual([keyless.code, keyless.param], ["validation_failed", "Idempotency-Key"])
    const extra = await rejection(tender.paymentIntents.receipt(other.id, { asset_id: asset.id, extra: 1 } as never, demo))
    assert.deepStrictEqual([extra.code, extra.param], ["validation_failed", "extra"])
    const withFile = await tender.paymentIntents.receipt(other.id, { file: png() }, { ...demo, idempotencyKey: crypto.randomUUID() })
    assert.isNotNull(withFile.receipt)
  })

  it("server: a webhook endpoint's tools through the Promise API: attempts, resend, rotateSecret with expires_in, enable", async () => {
    const endpoint = await tender.webhookEndpoints.create({ url: "http://127.0.0.1:9/hook" }, demo)
    await tender.paymentIntents.create(promptpay, demo)
    assert.deepStrictEqual(
      await tender.webhookEndpoints.attempts(endpoint.id, { limit: 5 }, demo),
      await get(`/webhook_endpoints/${endpoint.id}/attempts?limit=5`)
    )
    const event = (await tender.events.list({ limit: 1 }, demo)).data[0]!
    const resent = await tender.webhookEndpoints.resend(endpoint.id, { event: event.id }, demo)
    assert.deepStrictEqual([resent.object, resent.webhook_endpoint], ["webhook_resend", endpoint.id])
    const rotated = await tender.webhookEndpoints.rotateSecret(endpoint.id, { expires_in: 0 }, demo)
    assert.notStrictEqual(rotated.secret, endpoint.secret)
    assert.isNull(rotated.previous_secret_expires_at, "expires_in 0: the old secret stops signing now")
    assert.strictEqual((await tender.webhookEndpoints.enable(endpoint.id, demo)).status, "enabled")
  })

  it("D5 server: a POST's answer is the value core rendered, not its text parsed back; a replay, which has only the stored text, answers the same JSON", async () => {
    const rendered = ApiResponse.json(201, { id: "dord_x" }, "req_x")
    assert.strictEqual(fromResponse({ ...rendered, body: "not the text" }), rendered.value)
    assert.deepStrictEqual(fromResponse(ApiResponse.replay(rendered)), { id: "dord_x" })
    const key = crypto.randomUUID()
    const first = await tender.paymentIntents.create(promptpay, { ...demo, idempotencyKey: key })
    assert.deepStrictEqual(await tender.paymentIntents.create(promptpay, { ...demo, idempotencyKey: key }), first)
  })
})
