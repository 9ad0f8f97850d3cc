/**
 * @tender/client against a real Tender on a port: every resource it names, auto-paging across
 * pages, the errors of D1, and its POSTs carrying an Idempotency-Key.
 */
import { assert, describe, it } from "@effect/vitest"
import { bankTransfer, payout, png, promptpay, promptpayFor, topup } from "@tender/repo-test-support"
import { type PaymentIntent, TenderApiError, TenderClient } from "../src/index.js"
import { tender } from "./servers.js"

/** A fetch that records every request it sends. */
const recording = () => {
  const sent: Array<Request> = []
  return { sent, fetch: (request: Request) => (sent.push(request.clone()), globalThis.fetch(request)) }
}

/** Drive a payment to `succeeded`: confirm at the simulator, then run the task. */
const paid = async (t: Awaited<ReturnType<typeof tender>>, amount = "150000") => {
  const created = await t.client.paymentIntents.create(promptpayFor(amount))
  await t.client.paymentIntents.confirm(created.id)
  await t.work()
  const intent = await t.client.paymentIntents.retrieve(created.id)
  assert.strictEqual(intent.status, "succeeded")
  return intent
}

describe("client: payment intents", () => {
  it("client: create (201), retrieve, cancel (D10) a payment intent; every POST carries a generated UUID Idempotency-Key", async () => {
    const log = recording()
    const { client } = await tender({ fetch: log.fetch })
    const created = await client.paymentIntents.create(promptpay)
    assert.match(created.id, /^dord_/)
    assert.strictEqual(created.status, "requires_action")
    assert.strictEqual(created.next_action?.type, "display_qr_code")
    const got = await client.paymentIntents.retrieve(created.id)
    assert.strictEqual(got.id, created.id)
    assert.isNull(got.receipt)
    const canceled = await client.paymentIntents.cancel(created.id, { cancellation_reason: "abandoned" })
    assert.strictEqual(canceled.status, "canceled")
    assert.strictEqual(canceled.cancellation_reason, "abandoned")
    const posts = log.sent.filter((r) => r.method === "POST")
    assert.lengthOf(posts, 2)
    const keys = posts.map((r) => r.headers.get("idempotency-key"))
    for (const k of keys) assert.match(k ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.notStrictEqual(keys[0], keys[1], "a key per call")
    assert.isNull(log.sent.find((r) => r.method === "GET")!.headers.get("idempotency-key"), "no key on a GET")
    assert.match(log.sent[0]!.headers.get("authorization") ?? "", /^Basic /)
  })

  it("4.9.4 client: the same idempotencyKey twice replays the first create (one intent)", async () => {
    const { client } = await tender()
    const first = await client.paymentIntents.create(promptpay, { idempotencyKey: "order-42" })
    const again = await client.paymentIntents.create(promptpay, { idempotencyKey: "order-42" })
    assert.strictEqual(again.id, first.id)
    assert.lengthOf((await client.paymentIntents.list()).data, 1)
  })

  it("D6 client: `await list()` is the first page; `for await` walks every item across pages, asking each next page with the cursor and the same filters", async () => {
    const log = recording()
    const { client } = await tender({ fetch: log.fetch })
    const ids: Array<string> = []
    for (let i = 0; i < 5; i++) ids.push((await client.paymentIntents.create(promptpay)).id)
    await client.paymentIntents.create(promptpayFor("20000")) // filtered out below
    const first = await client.paymentIntents.list({ limit: 2, status: "requires_action", currency: "THB" })
    assert.lengthOf(first.data, 2)
    assert.isTrue(first.has_more)
    assert.isString(first.next_cursor)

    const pages = client.paymentIntents.list({ limit: 2, currency: "THB" })
    log.sent.length = 0
    const seen: Array<PaymentIntent> = []
    for await (const pi of pages) if (pi.amount === "150000") seen.push(pi)
    assert.deepStrictEqual(seen.map((pi) => pi.id), [...ids].reverse(), "every item once, most recent first")
    const asked = log.sent.map((r) => new URL(r.url))
    assert.lengthOf(asked, 3, "6 items at 2 a page: 3 pages")
    assert.isNull(asked[0]!.searchParams.get("cursor"))
    for (const u of asked) assert.strictEqual(u.searchParams.get("limit"), "2")
    for (const u of asked) assert.strictEqual(u.searchParams.get("currency"), "THB")
    for (const u of asked.slice(1)) assert.isString(u.searchParams.get("cursor"))

    // The page object awaited once and iterated reuses its first page.
    log.sent.length = 0
    const again = client.paymentIntents.list({ limit: 4 })
    assert.lengthOf((await again).data, 4)
    assert.lengthOf(await again.autoPagingToArray({ limit: 100 }), 6)
    assert.lengthOf(log.sent, 2)
    assert.lengthOf(await client.paymentIntents.list({ limit: 1 }).autoPagingToArray({ limit: 3 }), 3)
  })
})

describe("client: refunds, payouts, top-ups, discovery, webhook endpoints", () => {
  it("D10 client: refunds.create on a succeeded payment, retrieve, and list by payment_intent", async () => {
    const t = await tender()
    const intent = await paid(t)
    const refund = await t.client.refunds.create({ payment_intent: intent.id, amount: "50000", reason: "requested_by_customer" })
    assert.match(refund.id, /^rfnd_/)
    assert.strictEqual(refund.status, "pending")
    await t.work()
    assert.strictEqual((await t.client.refunds.retrieve(refund.id)).status, "succeeded")
    const listed = await t.client.refunds.list({ payment_intent: intent.id })
    assert.deepStrictEqual(listed.data.map((r) => r.id), [refund.id])
    assert.strictEqual((await t.client.paymentIntents.retrieve(intent.id)).amount_refunded, "50000")
    const over = await t.client.refunds.create({ payment_intent: intent.id, amount: "100001" }).catch((e: unknown) => e)
    assert.instanceOf(over, TenderApiError)
    assert.strictEqual((over as TenderApiError).code, "amount_exceeds_refundable")
  })

  it("D8 D12 client: top-ups create (the required key is sent), retrieve and list; the balance they fund; payout intents create, retrieve, list and cancel", async () => {
    const { client, work } = await tender()
    // D12: a test balance is funded with a test_funding top-up before a payout draws from it.
    const topupIntent = await client.topupIntents.create(topup)
    assert.match(topupIntent.id, /^tuin_/)
    assert.strictEqual((await client.topupIntents.retrieve(topupIntent.id)).id, topupIntent.id)
    assert.deepStrictEqual((await client.topupIntents.list({ source_type: "test_funding" })).data.map((x) => x.id), [topupIntent.id])
    await work()
    assert.deepStrictEqual((await client.balance.retrieve()).available, [{ amount: topup.destination_amount, currency: "THB" }])
    const [credit] = (await client.balanceTransactions.list({ type: "topup" })).data
    assert.strictEqual((await client.balanceTransactions.retrieve(credit!.id)).source, topupIntent.id)
    const created = await client.payoutIntents.create(payout("payout-1"))
    assert.strictEqual(created.status, "requires_approval")
    assert.strictEqual((await client.payoutIntents.retrieve(created.id)).id, created.id)
    assert.deepStrictEqual((await client.payoutIntents.list()).data.map((p) => p.id), [created.id])
    assert.strictEqual((await client.payoutIntents.cancel(created.id)).status, "canceled")
    const again = await client.payoutIntents.cancel(created.id).catch((e: unknown) => e)
    assert.strictEqual((again as TenderApiError).code, "payout_not_cancelable")
  })

  it("client: paymentMethods.options is discovery (4.6); webhook endpoints create (secret once), retrieve, list, delete; client.http reaches any route", async () => {
    const { client } = await tender()
    const discovery = await client.paymentMethods.options({ amount: "150000", country: "TH", currency: "THB", checkout_mode: "merchant" })
    assert.include(discovery.methods.map((m) => m.code), "th_promptpay")
    const endpoint = await client.webhookEndpoints.create({ url: "https://merchant.example.com/hooks" })
    assert.match(endpoint.secret, /^whsec_/)
    assert.strictEqual((await client.webhookEndpoints.retrieve(endpoint.id)).url, "https://merchant.example.com/hooks")
    assert.deepStrictEqual((await client.webhookEndpoints.list()).data.map((e) => e.id), [endpoint.id])
    await client.webhookEndpoints.delete(endpoint.id)
    assert.lengthOf((await client.webhookEndpoints.list()).data, 0)
    const catalogue = await client.http.GET("/webhook_event_types")
    assert.include(catalogue.data!.data.map((t) => t.type), "refund.succeeded")
  })
})

describe("client: every operation of the document is a method", () => {
  it("4.4 client: assets.upload sends the file as multipart (part file) and paymentIntents.receipt takes the asset, or the file itself", async () => {
    const log = recording()
    const { client } = await tender({ fetch: log.fetch })
    const asset = await client.assets.upload({ file: new Blob([png()], { type: "image/png" }) })
    assert.match(asset.id, /^asst_/)
    assert.match(log.sent.at(-1)!.headers.get("content-type") ?? "", /^multipart\/form-data; boundary=/)
    const byAsset = await client.paymentIntents.create(bankTransfer())
    assert.isNotNull((await client.paymentIntents.receipt(byAsset.id, { asset_id: asset.id })).receipt)
    const byFile = await client.paymentIntents.create(bankTransfer())
    assert.isNotNull((await client.paymentIntents.receipt(byFile.id, { file: new Blob([png()], { type: "image/png" }) })).receipt)
  })

  it("D7 client: events retrieve and list; the event type catalogue; a webhook endpoint's attempts, resend, rotateSecret and enable", async () => {
    const { client } = await tender()
    const created = await client.paymentIntents.create(promptpay)
    const events = await client.events.list({ type: "payment_intent.created" })
    const event = events.data.find((e) => (e.data.object as { id?: string }).id === created.id)!
    assert.strictEqual((await client.events.retrieve(event.id)).id, event.id)
    assert.include((await client.webhookEventTypes.catalogue()).data.map((t) => t.type), "refund.succeeded")

    const endpoint = await client.webhookEndpoints.create({ url: "https://merchant.example.com/hooks" })
    assert.deepStrictEqual((await client.webhookEndpoints.attempts(endpoint.id)).data, [])
    assert.strictEqual((await client.webhookEndpoints.resend(endpoint.id, { event: event.id })).object, "webhook_resend")
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id)
    assert.notStrictEqual(rotated.secret, endpoint.secret)
    assert.strictEqual((await client.webhookEndpoints.enable(endpoint.id)).status, "enabled")
  })
})

describe("client: errors (D1)", () => {
  it("D1 client: 404 throws TenderApiError with status, code, param, message and the Request-Id as requestId", async () => {
    const log = recording()
    const { client } = await tender({ fetch: log.fetch })
    const error = await client.paymentIntents.retrieve("dord_000000000000000000000000").catch((e: unknown) => e)
    assert.instanceOf(error, TenderApiError)
    const e = error as TenderApiError
    assert.strictEqual(e.status, 404)
    assert.strictEqual(e.code, "resource_not_found")
    assert.strictEqual(e.param, "id")
    assert.isAbove(e.message.length, 0)
    assert.match(e.requestId ?? "", /^req_[0-9A-Za-z]{24}$/)
    assert.strictEqual((e.body as { error: { request_id: string } }).error.request_id, e.requestId)
    assert.lengthOf(log.sent, 1, "a 404 is not retried")
  })

  it("D1 client: 400 validation_failed names the param and is sent once (never retried)", async () => {
    const log = recording()
    const { client } = await tender({ fetch: log.fetch })
    const error = await client.paymentIntents.create({ ...promptpay, amount: "0100" }).catch((e: unknown) => e)
    assert.instanceOf(error, TenderApiError)
    assert.strictEqual((error as TenderApiError).status, 400)
    assert.strictEqual((error as TenderApiError).code, "validation_failed")
    assert.strictEqual((error as TenderApiError).param, "amount")
    assert.lengthOf(log.sent, 1)
  })

  it("D2 client: a wrong secret is 401 invalid_api_key", async () => {
    const { url } = await tender()
    const client = new TenderClient({ baseUrl: url, publicKey: "pk_test_demoAAAA1111", secretKey: "sk_test_wrong" })
    const error = await client.paymentIntents.list().catch((e: unknown) => e)
    assert.instanceOf(error, TenderApiError)
    assert.strictEqual((error as TenderApiError).status, 401)
    assert.strictEqual((error as TenderApiError).code, "invalid_api_key")
  })
})

describe("client: a key pair of two environments", () => {
  it("D2 client: pk_test_… with sk_live_… is refused before anything is sent, naming the two environments and neither key", () => {
    const sent: Array<Request> = []
    const make = (publicKey: string, secretKey: string) => () =>
      new TenderClient({ baseUrl: "http://127.0.0.1:9/payments", publicKey, secretKey, fetch: async (r) => (sent.push(r), new Response("{}")) })
    assert.throws(
      make("pk_test_demo4f8Kq2Lm9XwZ", "sk_live_demo7Hn3Rt5Vb8Yc2Pq6Jw"),
      TypeError,
      /^pk_test_… with sk_live_…: the two keys are of different environments$/
    )
    assert.throws(
      make("pk_live_demo4f8Kq2Lm9XwZ", "sk_test_demo7Hn3Rt5Vb8Yc2Pq6Jw"),
      TypeError,
      /^pk_live_… with sk_test_…: the two keys are of different environments$/
    )
    // A pair of one environment, and keys of another form (the server judges those), are taken.
    assert.doesNotThrow(make("pk_test_demo4f8Kq2Lm9XwZ", "sk_test_demo7Hn3Rt5Vb8Yc2Pq6Jw"))
    assert.doesNotThrow(make("key", "secret"))
    assert.deepStrictEqual(sent, [])
  })
})
