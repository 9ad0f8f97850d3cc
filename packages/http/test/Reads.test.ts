/**
 * Every resource's reads are sent as their views' JSON text, not encoded by the definition's
 * success schema (docs/performance.md, "HTTP and core"). The wire must not change: each body has
 * to be byte for byte what the schema's encoding of it gives (its fields, their order, nothing
 * more), for every shape an intent takes (a next action of each kind, a receipt, a cancellation)
 * and for every other resource that has a retrieve or a list.
 */
import { assert, describe, it } from "@effect/vitest"
import { Pagination, PaymentIntent } from "@tender/core"
import { bankTransfer, hosted, payout, promptpay, topup } from "@tender/repo-test-support"
import { Schema } from "effect"
import { keys } from "../../core/test/fixtures.js"
import { TenderApi } from "../src/Api.js"
import { world } from "./d10World.js"
import { app, call, formWith, png } from "./harness.js"

/** The body the schema's encoding gives for what `text` holds. */
const encoded = <A, I>(schema: Schema.Schema<A, I>, text: string) => JSON.stringify(Schema.encodeUnknownSync(schema)(JSON.parse(text)))

describe("payment intent reads", () => {
  it("2.1 4.2 4.3 get and list bodies are exactly the PaymentIntent schema's encoding, for every shape of intent", async () => {
    const h = app()
    const key = keys.demoTest
    const merchant = await call(h, "POST", "/payment_intents", { key, body: { ...promptpay, merchant_reference: "reads-1", metadata: { a: "1" } } })
    const page = await call(h, "POST", "/payment_intents", { key, body: hosted })
    const bank = await call(h, "POST", "/payment_intents", { key, body: bankTransfer("1234567890") })
    const canceled = await call(h, "POST", "/payment_intents", { key, body: promptpay })
    const asset = await call(h, "POST", "/assets", { key, form: formWith(png()) })
    for (const res of [merchant, page, bank, canceled, asset]) assert.strictEqual(res.status, 201, res.text)
    assert.strictEqual((await call(h, "POST", `/payment_intents/${canceled.json.id}/cancel`, { key, body: { cancellation_reason: "duplicate" } })).status, 200)
    const receipt = await call(h, "POST", `/payment_intents/${bank.json.id}/receipt`, { key, body: { asset_id: asset.json.id } })
    assert.strictEqual(receipt.status, 200, receipt.text)

    const got = await Promise.all([merchant, page, bank, canceled].map((r) => call(h, "GET", `/payment_intents/${r.json.id}`, { key })))
    const shapes = new Set<string>()
    for (const res of got) {
      assert.strictEqual(res.status, 200, res.text)
      assert.strictEqual(res.headers.get("content-type"), "application/json")
      assert.strictEqual(res.text, encoded(PaymentIntent.PaymentIntent, res.text))
      shapes.add(`${res.json.next_action?.type ?? "none"} ${res.json.receipt?.status ?? "none"} ${res.json.cancellation_reason ?? "none"}`)
    }
    // The shapes above are all different: a redirect, a display, a receipt, a cancellation.
    assert.strictEqual(shapes.size, got.length, [...shapes].join("; "))

    const envelope = Pagination.ListEnvelope(PaymentIntent.PaymentIntent)
    for (const query of ["", "?limit=2", "?limit=1&status=canceled"]) {
      const list = await call(h, "GET", `/payment_intents${query}`, { key })
      assert.strictEqual(list.status, 200, list.text)
      assert.strictEqual(list.headers.get("content-type"), "application/json")
      assert.strictEqual(list.text, encoded(envelope, list.text))
    }
    const all = await call(h, "GET", "/payment_intents", { key })
    assert.lengthOf(all.json.data, 4)
  })
})

describe("every resource's reads", () => {
  it("4.2 4.3 D3 D7 D10 get and list bodies of payouts, top-ups, refunds, webhook endpoints and events are exactly their schemas' encoding", async () => {
    const w = await world()
    const pi = await w.paid()
    const created = await Promise.all([
      w.req("POST", "/payout_intents", { body: payout("reads-payout") }),
      w.req("POST", "/topup_intents", { body: topup, headers: { "idempotency-key": crypto.randomUUID() } }),
      w.refund({ payment_intent: pi.id, amount: "100" }),
      w.req("POST", "/webhook_endpoints", { body: { url: "https://hooks.example.com/reads", enabled_events: ["payment_intent.succeeded"] } })
    ])
    for (const res of created) assert.strictEqual(res.status, 201, res.text)
    const [payoutId, topupId, refundId, endpointId] = created.map((res) => res.json.id as string)
    const events = await w.req("GET", "/events?limit=1")
    const transactions = await w.req("GET", "/balance_transactions?limit=1")
    const reads: Record<string, readonly [path: string, id: string]> = {
      payoutIntents: ["/payout_intents", payoutId!],
      topupIntents: ["/topup_intents", topupId!],
      refunds: ["/refunds", refundId!],
      webhookEndpoints: ["/webhook_endpoints", endpointId!],
      events: ["/events", events.json.data[0].id],
      // D12: the balance is one object, read without an id.
      balance: ["/balance", ""],
      balanceTransactions: ["/balance_transactions", transactions.json.data[0].id]
    }
    const checked: Array<string> = []
    for (const [group, { endpoints }] of Object.entries(TenderApi.groups)) {
      for (const endpoint of Object.values(endpoints)) {
        if (group === "paymentIntents" || (endpoint.name !== "retrieve" && endpoint.name !== "list")) continue
        const read = reads[group]
        assert.isDefined(read, `${group} has a ${endpoint.name}: add it here`)
        const res = await w.req("GET", endpoint.name === "retrieve" && read![1] !== "" ? `${read![0]}/${read![1]}` : read![0])
        assert.strictEqual(res.status, 200, res.text)
        assert.strictEqual(res.headers.get("content-type"), "application/json")
        if (endpoint.name === "list") assert.isAtLeast(res.json.data.length, 1, `${group} list`)
        assert.strictEqual(res.text, encoded(endpoint.successSchema as Schema.Schema<unknown, unknown>, res.text), `${group} ${endpoint.name}`)
        checked.push(`${group}.${endpoint.name}`)
      }
    }
    assert.lengthOf(checked, 13, checked.join(", "))
  })
})
