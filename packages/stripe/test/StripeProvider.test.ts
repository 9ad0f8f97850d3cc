import type { ProviderPaymentResult } from "@tender/core/Provider"
import { NotificationUnverified } from "@tender/core/ProviderNotification"
import { formatRefusals } from "@tender/testing/StandIn"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { layerConfig, stripe, StripeProvider } from "../src/StripeProvider.js"
import { harness, paymentRequest, refOf, WEBHOOK_SECRET } from "./harness.js"

let h: Awaited<ReturnType<typeof harness>>
beforeEach(async () => {
  h = await harness()
})
afterEach(async () => {
  const refusals = [...h.standIn.refusals]
  await h.close()
  expect(refusals, formatRefusals(refusals)).toEqual([])
})

const run = Effect.runPromise
const action = (result: ProviderPaymentResult) => {
  if (result._tag !== "Action") throw new Error(`expected an action, got ${JSON.stringify(result)}`)
  return result
}
const parseLast = () => run(h.provider.parseNotification!(h.received[h.received.length - 1]!))

describe("@tender/stripe against the Stripe stand-in", () => {
  it("th_promptpay: create shows Stripe's PromptPay QR, and Stripe's payment_intent.succeeded notification is a PaymentSucceeded naming our id", async () => {
    const request = paymentRequest()
    const result = action(await run(h.provider.createPayment(request)))
    const pi = h.standIn.paymentIntents.get(result.providerPaymentId)!
    const qr = (pi["next_action"] as any).promptpay_display_qr_code
    expect(result.nextAction).toEqual({ type: "display_qr_code", qr_data: qr.data, qr_image_url: qr.image_url_png })
    expect(pi["metadata"]).toEqual({ tender_payment_intent: request.paymentIntentId })
    expect(await run(h.provider.getPaymentStatus!(refOf(request, result.providerPaymentId)))).toEqual({ _tag: "Pending" })

    const deliveries = await h.standIn.pay(result.providerPaymentId)
    expect(deliveries.map((d) => d.status)).toEqual([200])
    const parsed = await parseLast()
    expect(parsed.answer).toEqual({ status: 200, contentType: "application/json", body: "{\"received\":true}" })
    expect(parsed.notices).toEqual([{
      _tag: "PaymentSucceeded",
      eventId: deliveries[0]!.event["id"],
      providerPaymentId: result.providerPaymentId,
      paymentIntentId: request.paymentIntentId,
      amount: "150000",
      currency: "THB",
      environment: "test"
    }])
    expect(await run(h.provider.confirmPayment!(refOf(request, result.providerPaymentId)))).toEqual({ _tag: "Succeeded", amount: "150000", currency: "THB" })
  })

  it("th_promptpay: processing and failed notifications become PaymentProcessing and PaymentFailed with a Tender failure code", async () => {
    const request = paymentRequest()
    const { providerPaymentId } = action(await run(h.provider.createPayment(request)))
    await h.standIn.process(providerPaymentId)
    expect((await parseLast()).notices).toMatchObject([{ _tag: "PaymentProcessing", providerPaymentId, paymentIntentId: request.paymentIntentId }])
    await h.standIn.failPayment(providerPaymentId, { code: "payment_intent_payment_attempt_expired" })
    expect((await parseLast()).notices).toMatchObject([{ _tag: "PaymentFailed", failureCode: "payment_expired" }])
    expect(await run(h.provider.getPaymentStatus!(refOf(request, providerPaymentId)))).toMatchObject({ _tag: "Failed", failureCode: "payment_expired" })
  })

  it("card: create is a Stripe Checkout redirect; checkout.session.completed is the PaymentSucceeded (its intent's own event is ignored)", async () => {
    const request = paymentRequest({ providerMethod: "checkout_card", amount: "250000" })
    const result = action(await run(h.provider.createPayment(request)))
    expect(result.providerPaymentId).toMatch(/^cs_test_/)
    expect(result.nextAction).toMatchObject({ type: "redirect_to_url", url: h.standIn.checkoutSessions.get(result.providerPaymentId)!["url"] })
    const deliveries = await h.standIn.completeCheckout(result.providerPaymentId)
    expect(deliveries.map((d) => d.event["type"])).toEqual(["checkout.session.completed", "payment_intent.succeeded"])
    const notices = await Promise.all(h.received.map((r) => run(h.provider.parseNotification!(r))))
    expect(notices.map((p) => p.notices[0]!._tag)).toEqual(["PaymentSucceeded", "Ignored"])
    expect(notices[0]!.notices[0]).toMatchObject({
      providerPaymentId: result.providerPaymentId,
      paymentIntentId: request.paymentIntentId,
      amount: "250000",
      currency: "THB"
    })
    expect(await run(h.provider.getPaymentStatus!(refOf(request, result.providerPaymentId)))).toEqual({ _tag: "Succeeded", amount: "250000", currency: "THB" })
  })

  it("cancel stops a pending payment at Stripe; a payment already paid answers what it is, Succeeded with its amount", async () => {
    const pending = paymentRequest()
    const a = action(await run(h.provider.createPayment(pending)))
    expect(await run(h.provider.cancelPayment!(refOf(pending, a.providerPaymentId)))).toEqual({ _tag: "Canceled" })
    expect(h.standIn.paymentIntents.get(a.providerPaymentId)!["status"]).toBe("canceled")
    // The task may run twice: the second cancel replays the first.
    expect(await run(h.provider.cancelPayment!(refOf(pending, a.providerPaymentId)))).toEqual({ _tag: "Canceled" })

    const paid = paymentRequest()
    const b = action(await run(h.provider.createPayment(paid)))
    await h.standIn.pay(b.providerPaymentId)
    expect(await run(h.provider.cancelPayment!(refOf(paid, b.providerPaymentId)))).toEqual({ _tag: "Succeeded", amount: paid.amount, currency: paid.currency })

    const card = paymentRequest({ providerMethod: "checkout_card" })
    const c = action(await run(h.provider.createPayment(card)))
    expect(await run(h.provider.cancelPayment!(refOf(card, c.providerPaymentId)))).toEqual({ _tag: "Canceled" })
    expect(h.standIn.checkoutSessions.get(c.providerPaymentId)!["status"]).toBe("expired")
  })

  it("refund: partial then full, each keyed by our refund id, pending until Stripe settles it, told by refund.updated", async () => {
    const request = paymentRequest()
    const { providerPaymentId } = action(await run(h.provider.createPayment(request)))
    await h.standIn.pay(providerPaymentId)
    const payment = refOf(request, providerPaymentId)
    const partial = { refundId: "rfnd_partial1", payment, amount: "50000", destination: null, createdAt: Date.now() }
    expect(await run(h.provider.refund!(partial))).toEqual({ _tag: "Pending" })
    const stripeRefund = [...h.standIn.refunds.values()][0]!
    expect(stripeRefund).toMatchObject({ amount: 50000, payment_intent: providerPaymentId, metadata: { tender_refund: "rfnd_partial1" } })
    expect(h.standIn.requests.find((r) => r.operation.operationId === "PostRefunds")!.headers["idempotency-key"]).toBe("rfnd_partial1")

    await h.standIn.settleRefund(stripeRefund["id"] as string)
    const parsed = await Promise.all(h.received.slice(-2).map((r) => run(h.provider.parseNotification!(r))))
    expect(parsed.map((p) => p.notices[0])).toEqual([
      {
        _tag: "RefundSucceeded",
        eventId: expect.any(String),
        refundId: "rfnd_partial1",
        providerRefundId: stripeRefund["id"],
        providerPaymentId,
        environment: "test"
      },
      { _tag: "Ignored", eventId: expect.any(String) }
    ])
    // The task asks again: the refund is read anew, not created twice.
    expect(await run(h.provider.refund!(partial))).toEqual({ _tag: "Succeeded" })
    expect(h.standIn.refunds.size).toBe(1)

    const rest = { refundId: "rfnd_rest1", payment, amount: "100000", destination: null, createdAt: Date.now() }
    expect(await run(h.provider.refund!(rest))).toEqual({ _tag: "Pending" })
    const second = [...h.standIn.refunds.values()][1]!
    await h.standIn.settleRefund(second["id"] as string, "failed")
    expect((await parseLast()).notices[0]).toMatchObject({ _tag: "RefundFailed", refundId: "rfnd_rest1", failureCode: "refund_failed" })
    expect(await run(h.provider.refund!(rest))).toMatchObject({ _tag: "Failed", failureCode: "refund_failed" })
  })

  it("a retried create sends the same Idempotency-Key (our payment intent id) and Stripe holds one payment", async () => {
    const request = paymentRequest()
    const first = action(await run(h.provider.createPayment(request)))
    const again = action(await run(h.provider.createPayment(request)))
    expect(again.providerPaymentId).toBe(first.providerPaymentId)
    expect(h.standIn.paymentIntents.size).toBe(1)
    const keys = h.standIn.requests.filter((r) => r.operation.operationId === "PostPaymentIntents").map((r) => r.headers["idempotency-key"])
    expect(keys).toEqual([request.paymentIntentId, request.paymentIntentId])
  })

  it("Stripe's decline codes become Tender failure codes, never Stripe's own", async () => {
    const cases = [
      [{ code: "card_declined", declineCode: "insufficient_funds" }, "insufficient_funds"],
      [{ code: "card_declined", declineCode: "stolen_card" }, "payment_declined"],
      [{ code: "expired_card" }, "card_expired"],
      [{ code: "card_declined", declineCode: "some_future_code" }, "payment_declined"]
    ] as const
    for (const [error, expected] of cases) {
      h.standIn.declineNextConfirm(error)
      const result = await run(h.provider.createPayment(paymentRequest()))
      expect(result).toMatchObject({ _tag: "Failed", failureCode: expected })
      expect(JSON.stringify(result)).not.toContain("stolen_card")
    }
  })

  it("a Stripe 5xx and a dropped connection are ProviderUnavailable (routing counts them)", async () => {
    h.standIn.injectFault({ _tag: "Status", status: 500, body: { error: { type: "api_error", message: "Something went wrong" } } })
    const a = await run(Effect.either(h.provider.createPayment(paymentRequest())))
    expect(Either.isLeft(a) && a.left._tag).toBe("ProviderUnavailable")
    h.standIn.injectFault({ _tag: "Disconnect" })
    const b = await run(Effect.either(h.provider.getPaymentStatus!(refOf(paymentRequest(), "pi_123"))))
    expect(Either.isLeft(b) && b.left._tag).toBe("ProviderUnavailable")
  })

  it("D11 a notification whose Stripe-Signature does not verify (other secret, changed bytes, none) is NotificationUnverified", async () => {
    const { providerPaymentId } = action(await run(h.provider.createPayment(paymentRequest())))
    await h.standIn.pay(providerPaymentId)
    const good = h.received[0]!
    const other = stripe({ secretKey: "sk_test_x", webhookSecret: "whsec_other", apiBase: h.standIn.url })
    const changed = { ...good, body: new Uint8Array(Buffer.from(Buffer.from(good.body).toString().replace("150000", "150001"))) }
    const unsigned = { headers: { ...good.headers, "stripe-signature": undefined as unknown as string }, body: good.body }
    delete (unsigned.headers as Record<string, string | undefined>)["stripe-signature"]
    for (const [provider, request] of [[other, good], [h.provider, changed], [h.provider, unsigned]] as const) {
      const result = await run(Effect.either(provider.parseNotification!(request)))
      expect(Either.isLeft(result) && result.left).toBeInstanceOf(NotificationUnverified)
    }
    // A test and a live endpoint have different secrets: either verifies.
    const both = stripe({ secretKey: "sk_test_x", webhookSecret: ["whsec_live_other", WEBHOOK_SECRET], apiBase: h.standIn.url })
    expect((await run(both.parseNotification!(good))).notices[0]!._tag).toBe("PaymentSucceeded")
  })

  it("a sk_test_ key serves test routes only and a sk_live_ key live routes only", async () => {
    expect(h.provider.methods.map((m) => m.environments)).toEqual([["test"], ["test"]])
    const live = stripe({ secretKey: "sk_live_tender", webhookSecret: WEBHOOK_SECRET, apiBase: h.standIn.url, maxNetworkRetries: 0 })
    expect(live.methods.every((m) => m.environments.join() === "live")).toBe(true)
    const refused = await run(Effect.either(h.provider.createPayment(paymentRequest({ environment: "live" }))))
    expect(Either.isLeft(refused) && refused.left._tag).toBe("ProviderUnavailable")
    expect(h.standIn.requests).toEqual([])
    const result = action(await run(live.createPayment(paymentRequest({ environment: "live" }))))
    expect(h.standIn.paymentIntents.get(result.providerPaymentId)!["livemode"]).toBe(true)
    expect(() => stripe({ secretKey: "pk_test_x", webhookSecret: WEBHOOK_SECRET })).toThrow(/sk_test_ or sk_live_/)
  })

  it("StripeProvider.layerConfig reads STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET (lists) and STRIPE_API_BASE", async () => {
    const config = ConfigProvider.fromMap(
      new Map([
        ["STRIPE_SECRET_KEY", "sk_test_tender,sk_live_tender"],
        ["STRIPE_WEBHOOK_SECRET", `whsec_live_other,${WEBHOOK_SECRET}`],
        ["STRIPE_API_BASE", h.standIn.url]
      ])
    )
    const provider = await run(Effect.provide(StripeProvider, layerConfig.pipe(Layer.provide(Layer.setConfigProvider(config)))))
    expect(provider.methods[0]!.environments).toEqual(["test", "live"])
    const result = action(await run(provider.createPayment(paymentRequest())))
    expect(h.standIn.paymentIntents.has(result.providerPaymentId)).toBe(true)
  })
})
