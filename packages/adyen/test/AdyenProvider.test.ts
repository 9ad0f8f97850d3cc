import { capabilitiesOf, failureMessages, type ProviderPaymentResult } from "@tender/core/Provider"
import { NotificationUnverified, type ProviderNotificationRequest } from "@tender/core/ProviderNotification"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { adyen, AdyenProvider, layerConfig, statusOf } from "../src/AdyenProvider.js"
import { HMAC_KEY, MERCHANT_ACCOUNT, paymentRequest, refOf, useHarness } from "./harness.js"

const h = useHarness()

const run = Effect.runPromise
const action = (result: ProviderPaymentResult) => {
  if (result._tag !== "Action") throw new Error(`expected an action, got ${JSON.stringify(result)}`)
  return result
}
const parse = (request: ProviderNotificationRequest) => run(h.provider.parseNotification!(request))
const parseLast = () => parse(h.received[h.received.length - 1]!)
const sent = (operationId: string) => h.standIn.requests.filter((r) => r.operation.operationId === operationId)
const onlineBanking = { providerMethod: "molpay_ebanking_TH", payer: { family: "thai_bank_account", fields: { bank: "molpay_kbank" } } }

describe("@tender/adyen against the Adyen stand-in (HTTPS, Checkout API v72)", () => {
  it("th_promptpay: create shows Adyen's PromptPay QR with its expiry; Adyen's AUTHORISATION is a PaymentSucceeded naming our id, answered [accepted]", async () => {
    const request = paymentRequest()
    const result = action(await run(h.provider.createPayment(request)))
    const [create] = sent("post-payments")
    expect(create!.body).toMatchObject({
      reference: request.paymentIntentId,
      merchantAccount: MERCHANT_ACCOUNT,
      amount: { value: 150000, currency: "THB" },
      paymentMethod: { type: "promptpay" }
    })
    expect(create!.headers["idempotency-key"]).toBe(request.paymentIntentId)
    const answer = h.standIn.payments.get(result.providerPaymentId)!
    expect(answer.resultCode).toBe("Pending")
    expect(result.nextAction).toMatchObject({
      type: "display_qr_code",
      qr_data: expect.stringMatching(/^000201/),
      qr_image_url: expect.stringContaining("generateQRCodeImage")
    })
    expect(Date.parse((result.nextAction as { expires_at: string }).expires_at)).toBeGreaterThan(Date.now())
    // Adyen tells a payment's outcome by notification only: it declares no poll, confirm or receipt.
    expect(capabilitiesOf(h.provider, h.provider.methods[0])).toMatchObject({ confirm: false, poll: false, receipt: false })

    const [delivery] = await h.standIn.pay(result.providerPaymentId)
    expect({ status: delivery!.status, body: delivery!.body }).toEqual({ status: 200, body: "[accepted]" })
    const parsed = await parseLast()
    expect(parsed.answer).toEqual({ status: 200, contentType: "text/plain", body: "[accepted]" })
    expect(parsed.notices).toEqual([{
      _tag: "PaymentSucceeded",
      eventId: `${result.providerPaymentId}:AUTHORISATION`,
      providerPaymentId: result.providerPaymentId,
      paymentIntentId: request.paymentIntentId,
      amount: "150000",
      currency: "THB",
      environment: "test"
    }])
  })

  it("th_online_banking: create is Adyen's redirect to the payer's bank (issuer = the bank's provider code), returning to the intent's return_url", async () => {
    const request = paymentRequest({ ...onlineBanking, returnUrl: "https://merchant.example/orders/42" })
    const result = action(await run(h.provider.createPayment(request)))
    expect(sent("post-payments")[0]!.body).toMatchObject({
      paymentMethod: { type: "molpay_ebanking_TH", issuer: "molpay_kbank" },
      returnUrl: "https://merchant.example/orders/42"
    })
    expect(result.nextAction).toMatchObject({ type: "redirect_to_url", url: `${h.standIn.url}/hpp/bank/${result.providerPaymentId}` })
    expect(h.standIn.payments.get(result.providerPaymentId)!.resultCode).toBe("RedirectShopper")
    // Merchant mode has no return_url: the host's configured one, or a decline without a request.
    const fallback = adyen({
      apiKey: "k",
      merchantAccount: MERCHANT_ACCOUNT,
      hmacKey: HMAC_KEY,
      apiBase: h.standIn.apiBase,
      ca: h.standIn.ca,
      returnUrl: "https://host.example/"
    })
    action(await run(fallback.createPayment(paymentRequest({ ...onlineBanking, returnUrl: null }))))
    expect(sent("post-payments")[1]!.body["returnUrl"]).toBe("https://host.example/")
    expect(await run(h.provider.createPayment(paymentRequest({ ...onlineBanking, returnUrl: null })))).toMatchObject({
      _tag: "Failed",
      failureCode: "return_url_required"
    })
    expect(await run(h.provider.createPayment(paymentRequest({ ...onlineBanking, payer: null })))).toMatchObject({
      _tag: "Failed",
      failureCode: "provider_rejected"
    })
    expect(sent("post-payments")).toHaveLength(2)
  })

  it("a retried create sends the same Idempotency-Key (our payment intent id) and Adyen holds one payment", async () => {
    const request = paymentRequest()
    const first = action(await run(h.provider.createPayment(request)))
    const again = action(await run(h.provider.createPayment(request)))
    expect(again).toEqual(first)
    expect(h.standIn.payments.size).toBe(1)
    expect(sent("post-payments").map((r) => r.headers["idempotency-key"])).toEqual([request.paymentIntentId, request.paymentIntentId])
  })

  it("D1 Adyen's result codes map onto Tender's payment statuses; Checkout v72 reads no payment, so status stays pending until Adyen's notification", () => {
    expect(statusOf("Authorised")).toEqual({ _tag: "Succeeded" })
    expect(statusOf("Received")).toEqual({ _tag: "Processing" })
    expect(statusOf("Pending")).toEqual({ _tag: "Pending" })
    expect(statusOf("RedirectShopper")).toEqual({ _tag: "Pending" })
    expect(statusOf("Refused", "12", "Not enough balance")).toMatchObject({ _tag: "Failed", failureCode: "insufficient_funds" })
    expect(statusOf("Error", undefined, "Acquirer Error")).toMatchObject({ _tag: "Failed", failureCode: "provider_error" })
    expect(statusOf("Cancelled")).toMatchObject({ _tag: "Failed", failureCode: "payment_expired" })
  })

  it("D1 Adyen's refusal reasons become Tender failure codes, never Adyen's own (at create and in AUTHORISATION notifications)", async () => {
    const cases = [
      [{ refusalReason: "Not enough balance", refusalReasonCode: "12" }, "insufficient_funds"],
      [{ refusalReason: "FRAUD", refusalReasonCode: "20" }, "payment_declined"],
      [{ refusalReason: "Issuer Unavailable", refusalReasonCode: "9" }, "provider_error"],
      [{ refusalReason: "Some Future Reason", refusalReasonCode: "99" }, "payment_declined"]
    ] as const
    for (const [refusal, expected] of cases) {
      h.standIn.refuseNextPayment(refusal)
      const result = await run(h.provider.createPayment(paymentRequest()))
      expect(result).toMatchObject({ _tag: "Failed", providerPaymentId: expect.any(String), failureCode: expected })
      expect(JSON.stringify(result)).not.toContain(refusal.refusalReason)
    }
    const { providerPaymentId } = action(await run(h.provider.createPayment(paymentRequest())))
    await h.standIn.failPayment(providerPaymentId, "Not enough balance")
    const [notice] = (await parseLast()).notices
    expect(notice).toMatchObject({ _tag: "PaymentFailed", providerPaymentId, failureCode: "insufficient_funds" })
    expect(JSON.stringify(notice)).not.toContain("Not enough balance")
  })

  it("cancel asks Adyen to cancel by the payment's pspReference (keyed by our id); Adyen's CANCELLATION is a PaymentFailed", async () => {
    const request = paymentRequest()
    const { providerPaymentId } = action(await run(h.provider.createPayment(request)))
    const payment = refOf(request, providerPaymentId)
    expect(await run(h.provider.cancelPayment!(payment))).toEqual({ _tag: "Canceled" })
    // The task may run twice: the second cancel replays the first.
    expect(await run(h.provider.cancelPayment!(payment))).toEqual({ _tag: "Canceled" })
    const cancels = sent("post-payments-paymentPspReference-cancels")
    expect(cancels.map((r) => [r.operation.pathParams["paymentPspReference"], r.headers["idempotency-key"]])).toEqual([
      [providerPaymentId, `${request.paymentIntentId}/cancel`],
      [providerPaymentId, `${request.paymentIntentId}/cancel`]
    ])
    expect(h.standIn.payments.get(providerPaymentId)!.resultCode).toBe("Cancelled")
    await h.standIn.flush()
    expect((await parseLast()).notices).toEqual([{
      _tag: "PaymentFailed",
      eventId: `${providerPaymentId}:CANCELLATION`,
      providerPaymentId,
      paymentIntentId: request.paymentIntentId,
      environment: "test",
      failureCode: "payment_expired",
      failureMessage: failureMessages.payment_expired
    }])
  })

  it("refund: partial then the rest, keyed by our refund id and referenced by it, pending until Adyen's REFUND; never over the paid amount", async () => {
    const request = paymentRequest()
    const { providerPaymentId } = action(await run(h.provider.createPayment(request)))
    await h.standIn.pay(providerPaymentId)
    const payment = refOf(request, providerPaymentId)
    const partial = { refundId: "rfnd_adyenPartial1", payment, amount: "50000", destination: null, createdAt: Date.now() }
    expect(await run(h.provider.refund!(partial))).toEqual({ _tag: "Pending" })
    expect(await run(h.provider.refund!(partial))).toEqual({ _tag: "Pending" })
    expect(h.standIn.refunds.size).toBe(1)
    const first = [...h.standIn.refunds.values()][0]!
    expect(first).toMatchObject({ paymentPspReference: providerPaymentId, reference: "rfnd_adyenPartial1", amount: { value: 50000, currency: "THB" } })
    expect(sent("post-payments-paymentPspReference-refunds")[0]!.headers["idempotency-key"]).toBe("rfnd_adyenPartial1")
    await h.standIn.settleRefund(first.pspReference)
    expect((await parseLast()).notices).toEqual([{
      _tag: "RefundSucceeded",
      eventId: `${first.pspReference}:REFUND`,
      refundId: "rfnd_adyenPartial1",
      providerRefundId: first.pspReference,
      providerPaymentId,
      environment: "test"
    }])

    const over = { refundId: "rfnd_adyenOver1", payment, amount: "100001", destination: null, createdAt: Date.now() }
    expect(await run(h.provider.refund!(over))).toMatchObject({ _tag: "Failed", failureCode: "refund_failed" })
    const rest = { refundId: "rfnd_adyenRest1", payment, amount: "100000", destination: null, createdAt: Date.now() }
    expect(await run(h.provider.refund!(rest))).toEqual({ _tag: "Pending" })
    const second = [...h.standIn.refunds.values()][1]!
    await h.standIn.settleRefund(second.pspReference, "refund_failed")
    expect((await parseLast()).notices[0]).toMatchObject({ _tag: "RefundFailed", refundId: "rfnd_adyenRest1", failureCode: "refund_failed" })
  })

  it("D11 one notification request with several items: each item is its own notice, its event id Adyen's pspReference and event code", async () => {
    const a = action(await run(h.provider.createPayment(paymentRequest())))
    const b = action(await run(h.provider.createPayment(paymentRequest())))
    await h.standIn.notify([
      h.standIn.paymentItem(a.providerPaymentId, "AUTHORISATION", true),
      h.standIn.paymentItem(b.providerPaymentId, "AUTHORISATION", false, "Refused"),
      h.standIn.paymentItem(a.providerPaymentId, "CAPTURE", true)
    ], { live: false })
    const { notices } = await parseLast()
    expect(notices.map((n) => [n._tag, n.eventId])).toEqual([
      ["PaymentSucceeded", `${a.providerPaymentId}:AUTHORISATION`],
      ["PaymentFailed", `${b.providerPaymentId}:AUTHORISATION`],
      ["Ignored", `${a.providerPaymentId}:CAPTURE`]
    ])
    // Adyen's live flag names the environment.
    await h.standIn.notify([h.standIn.paymentItem(a.providerPaymentId, "AUTHORISATION", true)], { live: true })
    expect((await parseLast()).notices[0]).toMatchObject({ environment: "live" })
  })

  it("D11 a notification whose HMAC does not verify (other key, changed amount, no signature, one bad item of two, not JSON) is NotificationUnverified", async () => {
    const a = action(await run(h.provider.createPayment(paymentRequest())))
    await h.standIn.pay(a.providerPaymentId)
    const good = h.received[0]!
    const text = Buffer.from(good.body).toString()
    const json = JSON.parse(text)
    const body = (value: unknown) => ({ headers: good.headers, body: new Uint8Array(Buffer.from(typeof value === "string" ? value : JSON.stringify(value))) })
    const other = adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: "00112233445566778899AABBCCDDEEFF", apiBase: h.standIn.apiBase })
    const unsigned = structuredClone(json)
    delete unsigned.notificationItems[0].NotificationRequestItem.additionalData
    const mixed = structuredClone(json)
    mixed.notificationItems.push(structuredClone(json.notificationItems[0]))
    mixed.notificationItems[1].NotificationRequestItem.pspReference = "FORGED0000000000"
    for (
      const [provider, request] of [
        [other, good],
        [h.provider, body(text.replace("150000", "150001"))],
        [h.provider, body(unsigned)],
        [h.provider, body(mixed)],
        [h.provider, body("[accepted]")],
        [h.provider, body({ live: "false", notificationItems: [] })]
      ] as const
    ) {
      const result = await run(Effect.either(provider.parseNotification!(request)))
      expect(Either.isLeft(result) && result.left).toBeInstanceOf(NotificationUnverified)
    }
    // During a key rotation either key verifies.
    const both = adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: ["00112233445566778899AABBCCDDEEFF", HMAC_KEY], apiBase: h.standIn.apiBase })
    expect((await run(both.parseNotification!(good))).notices[0]!._tag).toBe("PaymentSucceeded")
  })

  it("an Adyen 5xx, a dropped connection, no answer within the timeout and a refused account are ProviderUnavailable (routing counts them)", async () => {
    h.standIn.injectFault({ _tag: "Status", status: 500, body: { status: 500, errorCode: "000", message: "Internal error", errorType: "internal" } })
    const a = await run(Effect.either(h.provider.createPayment(paymentRequest())))
    expect(Either.isLeft(a) && a.left._tag).toBe("ProviderUnavailable")
    h.standIn.injectFault({ _tag: "Disconnect" })
    const b = await run(Effect.either(h.provider.createPayment(paymentRequest())))
    expect(Either.isLeft(b) && b.left._tag).toBe("ProviderUnavailable")
    // A request Adyen never answers ends at the adapter's timeout (a short one here).
    h.standIn.injectFault({ _tag: "Hang" })
    const quick = adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: HMAC_KEY, apiBase: h.standIn.apiBase, ca: h.standIn.ca, timeoutMillis: 200 })
    const hung = await run(Effect.either(quick.createPayment(paymentRequest())))
    expect(Either.isLeft(hung) && hung.left._tag).toBe("ProviderUnavailable")
    const wrongAccount = adyen({ apiKey: "k", merchantAccount: "SomeoneElse", hmacKey: HMAC_KEY, apiBase: h.standIn.apiBase, ca: h.standIn.ca })
    const c = await run(Effect.either(wrongAccount.createPayment(paymentRequest())))
    expect(Either.isLeft(c) && c.left._tag).toBe("ProviderUnavailable")
  })

  it("HTTPS only: without the stand-in's CA trusted, the adapter cannot reach it (ProviderUnavailable), and sends nothing in clear", async () => {
    const untrusting = adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: HMAC_KEY, apiBase: h.standIn.apiBase })
    const result = await run(Effect.either(untrusting.createPayment(paymentRequest())))
    expect(Either.isLeft(result) && result.left._tag).toBe("ProviderUnavailable")
    expect(h.standIn.requests).toEqual([])
  })

  it("an account serves the environment it is configured for only", async () => {
    expect(h.provider.methods.map((m) => [m.method, m.environments])).toEqual([["th_promptpay", ["test"]], ["th_online_banking", ["test"]]])
    const refused = await run(Effect.either(h.provider.createPayment(paymentRequest({ environment: "live" }))))
    expect(Either.isLeft(refused) && refused.left._tag).toBe("ProviderUnavailable")
    expect(h.standIn.requests).toEqual([])
    const live = adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: HMAC_KEY, environment: "live", apiBase: h.standIn.apiBase, ca: h.standIn.ca })
    expect(live.methods.every((m) => m.environments.join() === "live")).toBe(true)
    action(await run(live.createPayment(paymentRequest({ environment: "live" }))))
    // Live without the account's URL prefix or an apiBase has no address: a configuration error.
    expect(() => adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: HMAC_KEY, environment: "live" })).toThrow(/prefix/)
    expect(() => adyen({ apiKey: "k", merchantAccount: MERCHANT_ACCOUNT, hmacKey: "not-hex" })).toThrow(/HMAC key/)
  })

  it("AdyenProvider.layerConfig reads ADYEN_API_KEY, ADYEN_MERCHANT_ACCOUNT, ADYEN_HMAC_KEY (a list) and ADYEN_API_BASE with its version path", async () => {
    const config = ConfigProvider.fromMap(
      new Map([
        ["ADYEN_API_KEY", "AQE_config_key"],
        ["ADYEN_MERCHANT_ACCOUNT", MERCHANT_ACCOUNT],
        ["ADYEN_HMAC_KEY", `00112233445566778899AABBCCDDEEFF,${HMAC_KEY}`],
        ["ADYEN_API_BASE", h.standIn.apiBase]
      ])
    )
    const provider = await run(Effect.provide(AdyenProvider, layerConfig.pipe(Layer.provide(Layer.setConfigProvider(config)))))
    expect(provider.code).toBe("adyen")
    // The test CA is not trusted by this process: the address is the stand-in's all the same.
    const result = await run(Effect.either(provider.createPayment(paymentRequest())))
    expect(Either.isLeft(result) && result.left._tag).toBe("ProviderUnavailable")
    const a = action(await run(h.provider.createPayment(paymentRequest())))
    await h.standIn.pay(a.providerPaymentId)
    expect((await run(provider.parseNotification!(h.received[0]!))).notices[0]!._tag).toBe("PaymentSucceeded")
  })
})
