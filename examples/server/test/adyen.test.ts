/**
 * The demo server with the ADYEN_* variables pointed at the Adyen stand-in of @tender/testing
 * (HTTPS, its test CA trusted through NODE_EXTRA_CA_CERTS): PromptPay and Thai online banking
 * through Tender end to end, Adyen's signed notifications (several items in one request, sent
 * twice) at the D11 door, refunds at Adyen, a bad HMAC and an amount mismatch refused as D11 says
 * (docs/providers/adyen.md).
 */
import * as AdyenStandIn from "@tender/adyen/testing"
import { createIntent, eventually, promptpay as promptpayBody, shownQr } from "@tender/repo-test-support"
import { hostedPromptPayPaid, standInDemo } from "@tender/repo-test-support/stand-in-demo"
import { formatRefusals } from "@tender/testing/StandIn"
import * as TestTls from "@tender/testing/TestTls"
import * as QRCode from "qrcode"
import { describe, expect, it } from "vitest"

const HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
const MERCHANT_ACCOUNT = "TenderDemoTH"
let standIn: AdyenStandIn.AdyenStandIn
const demo = standInDemo({
  slug: "adyen_e2e",
  name: "Adyen Shop",
  key: { public: "pk_test_adyenE2e1234", secret: "sk_test_adyenE2eSecret5678" },
  routes: [
    { id: "rt_adyen_pp", method: "th_promptpay", provider: "adyen", environments: ["test"] },
    { id: "rt_adyen_ob", method: "th_online_banking", provider: "adyen", environments: ["test"] }
  ],
  start: async () => (standIn = await AdyenStandIn.start({ merchantAccount: MERCHANT_ACCOUNT })),
  each: (s) => [s],
  env: (s) => ({
    ADYEN_API_KEY: "AQE_demo_adyen_e2e",
    ADYEN_MERCHANT_ACCOUNT: MERCHANT_ACCOUNT,
    ADYEN_HMAC_KEY: HMAC_KEY,
    ADYEN_API_BASE: s.apiBase,
    // Adyen's SDK speaks HTTPS only: the process trusts the stand-in's test CA.
    NODE_EXTRA_CA_CERTS: TestTls.caPath
  }),
  connect: (s, url) => s.addEndpoint({ url: `${url}/provider_notifications/adyen`, hmacKey: HMAC_KEY }),
  format: formatRefusals
})
const { api } = demo

const status = async (id: string) => (await api("GET", `/payment_intents/${id}`)).body.status as string
const adyenPaymentOf = (id: string) => [...standIn.payments.values()].find((p) => p.merchantReference === id)!

const promptpay = async (amount = "150000") => {
  const intent = await createIntent(api, { ...promptpayBody, amount })
  return { intent, payment: adyenPaymentOf(intent.id) }
}

describe("examples/server with ADYEN_API_KEY, ADYEN_MERCHANT_ACCOUNT, ADYEN_HMAC_KEY, ADYEN_API_BASE (the Adyen stand-in over HTTPS)", () => {
  it(
    "takes a PromptPay payment end to end: Adyen's QR, AUTHORISATION answered [accepted], succeeded, merchant webhook, partial refund at Adyen, REFUND, refund.succeeded",
    async () => {
      const { intent, payment } = await promptpay()
      expect(payment).toMatchObject({ merchantAccount: MERCHANT_ACCOUNT, amount: { value: 150000, currency: "THB" }, paymentMethod: { type: "promptpay" } })
      expect(intent).toMatchObject({
        status: "requires_action",
        next_action: { type: "display_qr_code", qr_data: payment.action!["qrCodeData"], qr_image_url: payment.action!["url"] }
      })

      const [delivery] = await standIn.pay(payment.pspReference)
      expect({ status: delivery!.status, body: delivery!.body }).toEqual({ status: 200, body: "[accepted]" })
      await demo.hooks().webhook("payment_intent.succeeded", intent.id)

      const refund = await api("POST", "/refunds", { payment_intent: intent.id, amount: "50000" })
      expect(refund.body).toMatchObject({ status: "pending", amount: "50000" })
      const adyenRefund = await eventually(() => [...standIn.refunds.values()].find((r) => r.reference === refund.body.id))
      expect(adyenRefund).toMatchObject({ paymentPspReference: payment.pspReference, amount: { value: 50000, currency: "THB" } })
      await standIn.settleRefund(adyenRefund.pspReference)
      await demo.hooks().webhook("refund.succeeded", refund.body.id)
      expect((await api("GET", `/payment_intents/${intent.id}`)).body.amount_refunded).toBe("50000")
    },
    60_000
  )

  it("takes a Thai online banking payment: Adyen's redirect to the chosen bank, the payer returned to the host, AUTHORISATION settles it", async () => {
    const created = await api("POST", "/payment_intents", {
      amount: "250000",
      currency: "THB",
      country: "TH",
      checkout_mode: "merchant",
      payment_method: "th_online_banking",
      customer: { name: "Somchai Jaidee", phone: "+66812345678" },
      payment_method_options: { bank: "KBANK" }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const payment = adyenPaymentOf(created.body.id)
    expect(payment.paymentMethod).toEqual({ type: "molpay_ebanking_TH", issuer: "molpay_kbank" })
    // Merchant mode takes no return_url: Adyen sends the payer back to the host's public URL.
    expect(payment.returnUrl).toBe(`${demo.server().url}/`)
    expect(created.body.next_action).toMatchObject({ type: "redirect_to_url", url: `${standIn.url}/hpp/bank/${payment.pspReference}` })
    await standIn.pay(payment.pspReference)
    await demo.hooks().webhook("payment_intent.succeeded", created.body.id)
  }, 60_000)

  it("hosted mode: the hosted page draws Adyen's PromptPay QR code from its payload, and Adyen's AUTHORISATION makes the intent succeeded", async () => {
    const { intent: created, shown } = await hostedPromptPayPaid(api)
    const payment = adyenPaymentOf(created.id)
    // The QR image Tender draws is the one of Adyen's payload (the same drawing as the hosted page's).
    const adyenQr = await QRCode.toDataURL(String(payment.action!["qrCodeData"]), { errorCorrectionLevel: "M", margin: 2, width: 260 })
    expect(shownQr(await shown())).toBe(adyenQr)
    await standIn.pay(payment.pspReference)
    await demo.hooks().webhook("payment_intent.succeeded", created.id)
  }, 60_000)

  it(
    "D11 one request with several items (one repeated), sent twice: each answered [accepted], each payment succeeds once, a payment Tender does not know is accepted",
    async () => {
      const a = await promptpay()
      const b = await promptpay("120000")
      const items = [
        standIn.paymentItem(a.payment.pspReference, "AUTHORISATION", true),
        standIn.paymentItem(b.payment.pspReference, "AUTHORISATION", true),
        standIn.paymentItem(a.payment.pspReference, "AUTHORISATION", true),
        { ...standIn.paymentItem(a.payment.pspReference, "AUTHORISATION", true), pspReference: "UNKNOWN000000001", merchantReference: "order-elsewhere" }
      ]
      for (let i = 0; i < 2; i++) {
        const [delivery] = await standIn.notify(items)
        expect({ status: delivery!.status, body: delivery!.body }).toEqual({ status: 200, body: "[accepted]" })
      }
      await demo.hooks().webhook("payment_intent.succeeded", a.intent.id)
      await demo.hooks().webhook("payment_intent.succeeded", b.intent.id)
      // Events are written in the commit that moves the intent: one succeeded event each.
      const events = (await api("GET", "/events?type=payment_intent.succeeded&limit=100")).body.data as Array<{ data: { object: { id: string } } }>
      expect(events.filter((e) => e.data.object.id === a.intent.id)).toHaveLength(1)
      expect(events.filter((e) => e.data.object.id === b.intent.id)).toHaveLength(1)
    },
    60_000
  )

  it("D11 a notification whose HMAC does not verify -> 400 signature_invalid, nothing stored: the intent is still waiting", async () => {
    const { intent, payment } = await promptpay()
    const item = standIn.paymentItem(payment.pspReference, "AUTHORISATION", true)
    const forged = {
      live: "false",
      notificationItems: [{
        NotificationRequestItem: { ...item, eventDate: new Date().toISOString(), additionalData: { hmacSignature: "bm90IHRoZSBzaWduYXR1cmU=" } }
      }]
    }
    const res = await fetch(`${demo.server().url}/provider_notifications/adyen`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(forged)
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: "signature_invalid" } })
    // The genuine notification of the same event afterwards is stored and applied: the forged one was not.
    await standIn.pay(payment.pspReference)
    await demo.hooks().webhook("payment_intent.succeeded", intent.id)
  }, 60_000)

  it(
    "D11 an AUTHORISATION whose amount differs from the intent's never succeeds it: answered [accepted], the intent stays as it is, the mismatch logged",
    async () => {
      const { intent, payment } = await promptpay()
      const [delivery] = await standIn.notify([{ ...standIn.paymentItem(payment.pspReference, "AUTHORISATION", true), amount: { value: 1, currency: "THB" } }])
      expect({ status: delivery!.status, body: delivery!.body }).toEqual({ status: 200, body: "[accepted]" })
      await eventually(() => demo.server().output().includes("differs from its intent") || undefined)
      expect(await status(intent.id)).toBe("requires_action")
      expect(demo.hooks().events("payment_intent.succeeded", intent.id)).toEqual([])
    },
    60_000
  )
})
