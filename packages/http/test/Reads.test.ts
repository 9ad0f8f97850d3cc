/**
 * Payment intent reads are sent as their views' JSON text, not encoded by the definition's
 * success schema (issue 22, docs/performance.md). The wire must not change: each body has to be
 * byte for byte what the schema's encoding of it gives (its fields, their order, nothing more),
 * for every shape an intent takes (a next action of each kind, a receipt, a cancellation).
 */
import { assert, describe, it } from "@effect/vitest"
import { bankTransfer, hosted, promptpay } from "@tender/test-support"
import { PaymentIntent, Pagination } from "@tender/core"
import { Schema } from "effect"
import { keys } from "../../core/test/fixtures.js"
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
