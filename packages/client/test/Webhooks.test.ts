/**
 * `webhooks.verify` (Standard Webhooks, D7): cross-checked against the `standardwebhooks`
 * library's signing and Tender's own WebhookSignature, the refusals (wrong secret, changed
 * body, timestamp out of tolerance, missing headers), several signatures during a rotation,
 * and a real delivery from Tender to a local receiver.
 */
import { assert, describe, it } from "@effect/vitest"
import { WebhookSignature } from "@tender/core"
import { promptpay } from "@tender/repo-test-support"
import express from "express"
import { randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { type TenderEvent, webhooks, WebhookVerificationError } from "../src/index.js"
import { listen, tender } from "./servers.js"

const newSecret = () => "whsec_" + randomBytes(24).toString("base64")
const secret = newSecret()
const sample = {
  object: "event",
  id: "evt_1",
  type: "payment_intent.succeeded",
  environment: "test",
  created_at: "2026-11-25T00:00:00.000Z",
  data: { object: { object: "payment_intent", id: "dord_1" } }
}
/** The sample as `webhooks.verify` types what it returns (its resource cut short on purpose). */
const event = sample as unknown as TenderEvent
const payload = JSON.stringify(event)
const now = () => Math.floor(Date.now() / 1000)

/** The headers `standardwebhooks` sends for `body` under `key`, at `timestamp`. */
const signedByLibrary = (key: string, body: string, timestamp = now(), id = "msg_1") => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": new Webhook(key).sign(id, new Date(timestamp * 1000), body)
})

const refusal = (f: () => unknown): WebhookVerificationError["reason"] => {
  try {
    f()
  } catch (e) {
    assert.instanceOf(e, WebhookVerificationError)
    return (e as WebhookVerificationError).reason
  }
  return assert.fail("verified")
}

describe("client: webhooks.verify", () => {
  it("D7 webhooks.verify accepts what standardwebhooks signs and returns the event; standardwebhooks accepts what Tender signs", () => {
    const verified = webhooks.verify(payload, signedByLibrary(secret, payload), secret)
    assert.deepStrictEqual(verified, event)
    const headers = WebhookSignature.sign([secret], { id: "msg_2", timestamp: now(), body: payload })
    assert.deepStrictEqual(webhooks.verify(payload, headers, secret), event)
    assert.deepStrictEqual(new Webhook(secret).verify(payload, headers), event)
    // The secret without its whsec_ prefix is the same key (Standard Webhooks).
    assert.deepStrictEqual(webhooks.verify(payload, headers, secret.slice("whsec_".length)), event)
  })

  it("D7 webhooks.verify takes the body as bytes, fetch Headers, and Node's header records whatever their case", () => {
    const headers = signedByLibrary(secret, payload)
    assert.deepStrictEqual(webhooks.verify(new TextEncoder().encode(payload), new Headers(headers), secret), event)
    assert.deepStrictEqual(
      webhooks.verify(Buffer.from(payload), {
        "Webhook-Id": headers["webhook-id"],
        "Webhook-Timestamp": headers["webhook-timestamp"],
        "Webhook-Signature": headers["webhook-signature"]
      }, secret),
      event
    )
    assert.deepStrictEqual(webhooks.verify(payload, { ...headers, "webhook-signature": [headers["webhook-signature"]] }, secret), event)
    // Multi-byte UTF-8 (a Thai name) signs and verifies alike as text and as the bytes that arrived.
    const thai = JSON.stringify({ ...sample, data: { object: { ...sample.data.object, customer: { name: "สมชาย ใจดี" } } } })
    const thaiHeaders = WebhookSignature.sign([secret], { id: "msg_th", timestamp: now(), body: thai })
    assert.deepStrictEqual(webhooks.verify(Buffer.from(thai, "utf8"), thaiHeaders, secret), JSON.parse(thai))
    assert.deepStrictEqual(webhooks.verify(thai, thaiHeaders, secret), JSON.parse(thai))
  })

  it("D7 webhooks.verify refuses a wrong secret and a changed body: invalid_signature", () => {
    const headers = signedByLibrary(secret, payload)
    assert.strictEqual(refusal(() => webhooks.verify(payload, headers, newSecret())), "invalid_signature")
    assert.strictEqual(refusal(() => webhooks.verify(payload.replace("dord_1", "dord_2"), headers, secret)), "invalid_signature")
    assert.strictEqual(refusal(() => webhooks.verify(payload + " ", headers, secret)), "invalid_signature")
    assert.strictEqual(refusal(() => webhooks.verify(payload, { ...headers, "webhook-id": "msg_other" }, secret)), "invalid_signature")
    assert.strictEqual(
      refusal(() => webhooks.verify(payload, { ...headers, "webhook-signature": "v2," + headers["webhook-signature"].slice(3) }, secret)),
      "invalid_signature"
    )
  })

  it("D7 webhooks.verify refuses a timestamp more than 300 s old or ahead; toleranceSeconds widens or narrows it", () => {
    assert.deepStrictEqual(webhooks.verify(payload, signedByLibrary(secret, payload, now() - 290), secret), event)
    assert.strictEqual(refusal(() => webhooks.verify(payload, signedByLibrary(secret, payload, now() - 310), secret)), "timestamp_out_of_tolerance")
    assert.strictEqual(refusal(() => webhooks.verify(payload, signedByLibrary(secret, payload, now() + 310), secret)), "timestamp_out_of_tolerance")
    assert.deepStrictEqual(webhooks.verify(payload, signedByLibrary(secret, payload, now() - 590), secret, { toleranceSeconds: 600 }), event)
    assert.strictEqual(
      refusal(() => webhooks.verify(payload, signedByLibrary(secret, payload, now() - 60), secret, { toleranceSeconds: 30 })),
      "timestamp_out_of_tolerance"
    )
    const headers = signedByLibrary(secret, payload)
    assert.strictEqual(
      refusal(() => webhooks.verify(payload, { ...headers, "webhook-timestamp": headers["webhook-timestamp"] + "abc" }, secret)),
      "invalid_timestamp"
    )
  })

  it("D7 webhooks.verify needs all three headers: missing_headers", () => {
    const headers: Record<string, string> = signedByLibrary(secret, payload)
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const { [name]: _, ...rest } = headers
      assert.strictEqual(refusal(() => webhooks.verify(payload, rest, secret)), "missing_headers")
    }
  })

  it("D7 webhooks.verify during a rotation: a header with the old and the new secret's signatures verifies under either, and not under a third", () => {
    const previous = newSecret()
    const headers = WebhookSignature.sign([secret, previous], { id: "msg_3", timestamp: now(), body: payload })
    assert.lengthOf(headers["webhook-signature"].split(" "), 2)
    assert.deepStrictEqual(webhooks.verify(payload, headers, secret), event)
    assert.deepStrictEqual(webhooks.verify(payload, headers, previous), event)
    assert.strictEqual(refusal(() => webhooks.verify(payload, headers, newSecret())), "invalid_signature")
  })

  it("D7 webhooks.verify refuses a signed body that is not an event: invalid_payload", () => {
    for (const body of ["not json", "[]", "{\"object\":\"payment_intent\"}"]) {
      assert.strictEqual(refusal(() => webhooks.verify(body, signedByLibrary(secret, body), secret)), "invalid_payload")
    }
  })

  it("D7 webhooks.verify on a real delivery: Tender's payment_intent.created reaches docs/client.md's Express receiver and verifies as a typed event", async () => {
    let secret = ""
    const verified: Array<TenderEvent> = []
    const refused: Array<string> = []
    // docs/client.md, "Verifying webhooks": the raw body on the webhook route only.
    const app = express()
    app.post("/webhooks/tender", express.raw({ type: "application/json" }), (req, res) => {
      let event: TenderEvent
      try {
        event = webhooks.verify(req.body as Buffer, req.headers, secret)
      } catch (e) {
        if (e instanceof WebhookVerificationError) return void res.status(400).send((refused.push(e.reason), e.reason))
        throw e
      }
      res.sendStatus(204)
      verified.push(event)
    })
    const receiver = await listen(app)
    const t = await tender()
    const endpoint = await t.client.webhookEndpoints.create({
      url: `${receiver}/webhooks/tender`,
      enabled_events: ["payment_intent.created", "payment_intent.canceled"]
    })
    secret = endpoint.secret
    const intent = await t.client.paymentIntents.create(promptpay)
    await t.work()
    assert.deepStrictEqual(refused, [])
    assert.lengthOf(verified, 1)
    const event = verified[0]!
    assert.strictEqual(event.type, "payment_intent.created")
    if (event.type !== "payment_intent.created") return
    // Narrowed by its type: data.object is a PaymentIntent.
    assert.strictEqual(event.data.object.id, intent.id)
    assert.strictEqual(event.data.object.status, "requires_action")
    // The same receiver with another secret refuses the next delivery (Tender retries it later).
    secret = newSecret()
    await t.client.paymentIntents.cancel(intent.id)
    await t.work()
    assert.deepStrictEqual(refused, ["invalid_signature"])
    assert.lengthOf(verified, 1)
  })
})
