import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { PaymentIntent, PayoutIntent, Refund, TopupIntent, WebhookEndpoint, WebhookEvents } from "../src/index.js"

/** D7's events, resource by resource, each resource's happenings in the order D7 names them. */
const events = (resource: string, ...happenings: ReadonlyArray<string>) => happenings.map((h) => `${resource}.${h}`)
const d7 = [
  ...events("payment_intent", "created", "requires_action", "processing", "succeeded", "failed", "expired", "receipt_submitted"),
  ...events("topup_intent", "created", "succeeded", "failed", "expired"),
  ...events("payout_intent", "created", "processing", "succeeded", "failed", "canceled")
]
// D10 adds these to D7's catalogue, after it.
const d10 = ["payment_intent.canceled", "refund.created", "refund.succeeded", "refund.failed"]
// The webhook tools add the endpoint's own event, after D10's.
const webhookTools = ["webhook_endpoint.disabled"]
const catalogue = [...d7, ...d10, ...webhookTools]

describe("Webhook event type catalogue (4.11, D7)", () => {
  it("D7 D10 the catalogue is exactly D7's closed list, then D10's additions, then the webhook tools', in order, each type once", () => {
    assert.deepStrictEqual([...WebhookEvents.EventType.literals], catalogue)
    assert.deepStrictEqual(WebhookEvents.catalogue.data.map((e) => e.type), catalogue)
  })

  it("D7 every example is an event envelope {object, id evt_, type, environment, created_at, data.object} of the matching resource", () => {
    const ids = new Set<string>()
    for (const entry of WebhookEvents.catalogue.data) {
      const { example } = entry
      assert.deepStrictEqual(Object.keys(example).sort(), ["created_at", "data", "environment", "id", "object", "type"], entry.type)
      assert.strictEqual(example.object, "event")
      assert.strictEqual(example.type, entry.type)
      assert.match(example.id, /^evt_[0-9A-Za-z]{24}$/)
      ids.add(example.id)
      assert.match(example.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.strictEqual((example.data.object as { object: string }).object, entry.type.split(".")[0])
      assert.isAbove(entry.description.length, 0)
    }
    assert.strictEqual(ids.size, catalogue.length)
    Schema.decodeUnknownSync(WebhookEvents.Catalogue)(WebhookEvents.catalogue)
  })

  it("4.11 every example's object has exactly the fields its resource is delivered with: none missing, none extra", () => {
    const schemas: Record<string, Schema.Schema.AnyNoContext> = {
      payment_intent: PaymentIntent.PaymentIntent,
      topup_intent: TopupIntent.TopupIntent,
      payout_intent: PayoutIntent.PayoutIntent,
      refund: Refund.Refund,
      webhook_endpoint: WebhookEndpoint.WebhookEndpoint
    }
    for (const entry of WebhookEvents.catalogue.data) {
      const object = entry.example.data.object as { object: string }
      const schema = schemas[object.object]
      assert.isDefined(schema, entry.type)
      const decoded = Schema.decodeUnknownEither(schema!, { onExcessProperty: "error", exact: true })(object)
      assert.isTrue(decoded._tag === "Right", `${entry.type}: ${decoded._tag === "Left" ? String(decoded.left) : ""}`)
    }
  })

  it("D10 refund examples are valid refunds in the status their type names", () => {
    const decode = Schema.decodeUnknownSync(Refund.Refund)
    const statusOf = { "refund.created": "pending", "refund.succeeded": "succeeded", "refund.failed": "failed" } as Record<string, string>
    const refunds = WebhookEvents.catalogue.data.filter((e) => e.type.startsWith("refund."))
    assert.lengthOf(refunds, 3)
    for (const entry of refunds) assert.strictEqual(decode(entry.example.data.object).status, statusOf[entry.type])
  })

  it("D7 payment intent examples are valid 2.1 resources that keep the status rules of 3.1", () => {
    const decode = Schema.decodeUnknownSync(PaymentIntent.PaymentIntent)
    for (const entry of WebhookEvents.catalogue.data.filter((e) => e.type.startsWith("payment_intent."))) {
      const pi = decode(entry.example.data.object)
      assert.match(pi.id, /^dord_[0-9A-Za-z]{24}$/)
      if (pi.status === "requires_action") assert.isNotNull(pi.next_action, entry.type)
      if (PaymentIntent.isTerminal(pi.status)) assert.isNull(pi.next_action, entry.type)
      if (pi.status !== "failed") {
        assert.isNull(pi.failure_code, entry.type)
        assert.isNull(pi.failure_message, entry.type)
      }
      const suffix = entry.type.split(".")[1]
      if ((PaymentIntent.statuses as ReadonlyArray<string>).includes(suffix!)) assert.strictEqual(pi.status, suffix)
    }
  })

  it("D7 top-up intent examples are valid 2.5 resources: credited only when succeeded, no next_action after a terminal status", () => {
    const decode = Schema.decodeUnknownSync(TopupIntent.TopupIntent)
    for (const entry of WebhookEvents.catalogue.data.filter((e) => e.type.startsWith("topup_intent."))) {
      const t = decode(entry.example.data.object)
      assert.match(t.id, /^tuin_[0-9A-Za-z]{24}$/)
      assert.strictEqual(t.destination.credited_amount, t.status === "succeeded" ? t.destination.amount : "0", entry.type)
      if (TopupIntent.isTerminal(t.status)) assert.isNull(t.next_action, entry.type)
      if (t.status === "requires_payment") assert.isNotNull(t.next_action, entry.type)
      assert.strictEqual(t.status === "failed", t.failure_code !== null, entry.type)
      const suffix = entry.type.split(".")[1]
      if (suffix !== "created") assert.strictEqual(t.status, suffix)
    }
  })
})
