/**
 * The simulator's notifications (D11, docs/test-environment.md "Notifications"): the signature
 * over the exact bytes, its tolerance and secret rotation, and the notice each event type is.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Simulator } from "../src/index.js"

const now = 1_800_000_000
const parse = (body: string | Uint8Array, header: string | undefined, secret?: string) =>
  Effect.flatMap(TestClock.setTime(now * 1000), () =>
    Simulator.make(secret === undefined ? {} : { notificationSecret: secret }).parseNotification!({
      headers: header === undefined ? {} : { [Simulator.signatureHeader]: header },
      body: typeof body === "string" ? new TextEncoder().encode(body) : body
    }))
const sign = (body: string | Uint8Array, options: { secret?: string; timestamp?: number } = {}) =>
  Simulator.signNotification({ body, timestamp: options.timestamp ?? now, secret: options.secret })
const refused = (effect: Effect.Effect<unknown, { readonly _tag: string; readonly reason: string }>) =>
  Effect.map(Effect.flip(effect), (e) => [e._tag, e.reason])

const event = (type: string, data: Record<string, string> = {}, livemode = false) =>
  JSON.stringify({ id: "evt_sim_1", type, livemode, data: { payment_intent: "dord_x", provider_payment_id: "sim_x", ...data } })

describe("the simulator's notifications (D11)", () => {
  it.effect("D11 simulator: the signature is over the exact bytes, within 300 s, with the configured secret; a rotated secret's extra v1 is accepted", () =>
    Effect.gen(function*() {
      const body = event("payment.succeeded", { amount: "100", currency: "THB" })
      assert.strictEqual((yield* parse(body, sign(body))).notices.length, 1)
      assert.deepStrictEqual(yield* refused(parse(body + " ", sign(body))), ["NotificationUnverified", "no signature matches"])
      assert.deepStrictEqual(yield* refused(parse(body, undefined)), ["NotificationUnverified", `no ${Simulator.signatureHeader} header`])
      assert.deepStrictEqual(yield* refused(parse(body, sign(body, { timestamp: now - 301 }))), [
        "NotificationUnverified",
        "the signature's timestamp is outside the tolerance"
      ])
      assert.strictEqual((yield* parse(body, sign(body, { timestamp: now - 300 }))).notices.length, 1)
      assert.deepStrictEqual(yield* refused(parse(body, sign(body), "rotated")), ["NotificationUnverified", "no signature matches"])
      const both = `${sign(body, { secret: "old" })},${sign(body, { secret: "rotated" }).split(",")[1]}`
      assert.strictEqual((yield* parse(body, both, "rotated")).notices.length, 1)
      assert.deepStrictEqual(yield* refused(parse(body, "v1=abc")), ["NotificationUnverified", "the signature has no timestamp"])
    }))

  it.effect("D11 simulator: a verified body that is not UTF-8 or not an event is refused; it is read only once verified", () =>
    Effect.gen(function*() {
      const bytes = new Uint8Array([0xff, 0xfe, 0x7b])
      assert.deepStrictEqual(yield* refused(parse(bytes, sign(bytes))), ["NotificationUnverified", "the body is not UTF-8"])
      for (const body of ["[]", "{\"type\":\"payment.succeeded\"}", "not json", "{\"id\":\"\",\"type\":\"x\"}"]) {
        assert.deepStrictEqual(yield* refused(parse(body, sign(body))), ["NotificationUnverified", "the body is not a simulator event"], body)
        // Unsigned, the same body is refused for its signature, before anything reads it.
        assert.deepStrictEqual(yield* refused(parse(body, sign("{}"))), ["NotificationUnverified", "no signature matches"], body)
      }
    }))

  it.effect("D11 simulator: each event type is its notice, with the provider's environment; another type is Ignored", () =>
    Effect.gen(function*() {
      const noticeOf = (body: string) => Effect.map(parse(body, sign(body)), (p) => p.notices[0]!)
      const paid = yield* noticeOf(event("payment.succeeded", { amount: "100", currency: "THB" }))
      assert.deepStrictEqual(paid, {
        _tag: "PaymentSucceeded",
        eventId: "evt_sim_1",
        providerPaymentId: "sim_x",
        paymentIntentId: "dord_x",
        environment: "test",
        amount: "100",
        currency: "THB"
      })
      const live = yield* noticeOf(event("payment.processing", {}, true))
      assert.deepStrictEqual(live._tag === "PaymentProcessing" ? live.environment : undefined, "live")
      const failed = yield* noticeOf(event("payment.failed"))
      assert.deepStrictEqual(failed._tag === "PaymentFailed" ? [failed.failureCode, failed.failureMessage] : [], [
        "payment_declined",
        "The provider declined the payment."
      ])
      assert.strictEqual((yield* noticeOf(event("refund.failed", { refund: "rfnd_x", failure_code: "refund_failed" })))._tag, "RefundFailed")
      assert.strictEqual((yield* noticeOf(event("payout.succeeded", { payout_intent: "pout_x" })))._tag, "PayoutSucceeded")
      assert.deepStrictEqual(yield* noticeOf(event("charge.dispute.created")), { _tag: "Ignored", eventId: "evt_sim_1" })
      const answer = (yield* parse(event("x"), sign(event("x")))).answer
      assert.deepStrictEqual(answer, { status: 200, contentType: "application/json", body: "{\"received\":true}" })
    }))
})
