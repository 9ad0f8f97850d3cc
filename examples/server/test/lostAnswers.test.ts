/**
 * Lost provider answers at Adyen, end to end (issue 47): the demo server with Adyen first and
 * Stripe second for `th_promptpay` (both stand-ins of @tender/testing), Tender reaching Adyen
 * through a fault proxy that speaks HTTPS as Adyen's SDK requires (the test CA trusted), forwards
 * each request and, for the requests a case names, drops Adyen's answer after Adyen acted on it.
 * A create whose answer is lost is remembered and fails over to Stripe; paid anyway at Adyen (its
 * signed AUTHORISATION), it is the intent's late payment, refunded at Adyen, never unmatched. A
 * refund whose answer is lost is asked again with the same idempotency key: Adyen holds one
 * refund, and the refund succeeds once (docs/reliability.md, "Lost provider answers").
 */
import * as AdyenStandIn from "@tender/adyen/testing"
import { createIntent, eventually, promptpay } from "@tender/repo-test-support"
import * as FaultProxy from "@tender/repo-test-support/fault-proxy"
import { standInDemo } from "@tender/repo-test-support/stand-in-demo"
import * as StripeStandIn from "@tender/stripe/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import * as TestTls from "@tender/testing/TestTls"
import { afterAll, afterEach, describe, expect, it } from "vitest"

const WEBHOOK_SECRET = "whsec_demo_lost_answers_e2e"
const HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
const MERCHANT_ACCOUNT = "TenderLostAnswersTH"
let stripe: StripeStandIn.StripeStandIn
let adyen: AdyenStandIn.AdyenStandIn
let proxy: FaultProxy.FaultProxy | undefined
const { api } = standInDemo({
  slug: "lost_answers_e2e",
  name: "Lost Answers Shop",
  key: { public: "pk_test_lostAnswersE2e1234", secret: "sk_test_lostAnswersE2eSecret5678" },
  routes: [
    { id: "rt_adyen_pp", method: "th_promptpay", provider: "adyen", environments: ["test"], priority: 1 },
    { id: "rt_stripe_pp", method: "th_promptpay", provider: "stripe", environments: ["test"], priority: 2 }
  ],
  start: async () => {
    adyen = await AdyenStandIn.start({ merchantAccount: MERCHANT_ACCOUNT })
    // A failed later start must not leave the first listening in this worker for later files.
    try {
      proxy = await FaultProxy.start(adyen.url, { key: TestTls.key, cert: TestTls.cert, ca: TestTls.ca })
      stripe = await StripeStandIn.start()
    } catch (e) {
      await proxy?.close()
      await adyen.close()
      throw e
    }
    return { stripe, adyen }
  },
  each: (s) => [s.adyen, s.stripe],
  env: (s) => ({
    STRIPE_SECRET_KEY: "sk_test_demoLostAnswersE2e",
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: s.stripe.url,
    ADYEN_API_KEY: "AQE_demo_lost_answers_e2e",
    ADYEN_MERCHANT_ACCOUNT: MERCHANT_ACCOUNT,
    ADYEN_HMAC_KEY: HMAC_KEY,
    ADYEN_API_BASE: `${proxy!.url}/${s.adyen.apiVersion}`,
    NODE_EXTRA_CA_CERTS: TestTls.caPath
  }),
  connect: (s, url) => {
    s.stripe.addEndpoint({ url: `${url}/provider_notifications/stripe`, secret: WEBHOOK_SECRET })
    s.adyen.addEndpoint({ url: `${url}/provider_notifications/adyen`, hmacKey: HMAC_KEY })
  },
  format: formatRefusals,
  webhooks: false
})
// Whatever a case left, Adyen's answers reach Tender for the next one (before the refusals are
// checked: Vitest runs a file's afterEach hooks last registered first).
afterEach(() => proxy?.dropAnswers(null))
afterAll(() => proxy?.close())

const atAdyen = (id: string) => [...adyen.payments.values()].find((p) => p.merchantReference === id)
const atStripe = (id: string) => [...stripe.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === id)
const refundsOf = async (id: string) => (await api("GET", `/refunds?payment_intent=${id}`)).body.data as Array<Record<string, unknown>>
/** The events of `type` about object `id`, from the merchant's event list (D12 writes them in the commit that moves the object). */
const eventsOf = async (type: string, id: string) =>
  ((await api("GET", `/events?type=${type}&limit=100`)).body.data as Array<{ data: { object: { id: string } } }>).filter((e) => e.data.object.id === id)

describe("examples/server routing th_promptpay Adyen (first, through a fault proxy) then Stripe, both stand-ins", () => {
  it(
    "D10 an Adyen create forwarded to Adyen whose answer is lost fails over to Stripe; paid anyway at Adyen, it is the intent's late payment, refunded at Adyen, never unmatched",
    async () => {
      proxy!.dropAnswers((method, path) => method === "POST" && path === `/${adyen.apiVersion}/payments`)
      const created = await api("POST", "/payment_intents", promptpay)
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const id: string = created.body.id
      expect(proxy!.dropped, "Adyen acted on the create and its answer was lost").toContain(`POST /${adyen.apiVersion}/payments`)
      expect(atStripe(id), "the intent's own payment").toBeDefined()
      const orphan = atAdyen(id)!
      expect(orphan.resultCode).toBe("Pending")
      // The payer pays the Adyen payment anyway (its cancel task cannot reach Adyen yet: it sends
      // the create again first, and the proxy still drops that answer).
      const told = await adyen.pay(orphan.pspReference)
      expect(told.map((d) => [d.status, d.body])).toEqual([[200, "[accepted]"]])
      const late = await eventually(async () => (await refundsOf(id))[0])
      expect(late).toMatchObject({ reason: "late_payment", amount: "150000", status: "pending" })
      const atAdyenRefund = await eventually(() => [...adyen.refunds.values()].find((r) => r.paymentPspReference === orphan.pspReference))
      expect(atAdyenRefund).toMatchObject({ reference: late["id"], amount: { value: 150000, currency: "THB" } })
      await adyen.settleRefund(atAdyenRefund.pspReference)
      await eventually(async () => (await api("GET", `/refunds/${late["id"]}`)).body.status === "succeeded" || undefined)
      // The intent's own payment is untouched: awaiting its payer at Stripe.
      expect((await api("GET", `/payment_intents/${id}`)).body).toMatchObject({ status: "requires_action", amount_refunded: "0" })
      // Told again (Adyen retries a notification): accepted, refunded once.
      const again = await adyen.notify([adyen.paymentItem(orphan.pspReference, "AUTHORISATION", true)])
      expect(again.map((d) => [d.status, d.body])).toEqual([[200, "[accepted]"]])
      expect(await refundsOf(id)).toHaveLength(1)
      expect([...adyen.refunds.values()].filter((r) => r.paymentPspReference === orphan.pspReference), "refunds Adyen holds of the payment").toHaveLength(1)
      expect((await eventsOf("refund.created", late["id"] as string)).length).toBe(1)
      expect((await eventsOf("refund.succeeded", late["id"] as string)).length).toBe(1)
    },
    180_000
  )

  it("D10 an Adyen refund whose answer is lost is asked again with the same key: Adyen holds one refund, which succeeds once", async () => {
    const intent = await createIntent(api)
    const payment = atAdyen(intent.id)!
    await adyen.pay(payment.pspReference)
    await eventually(async () => (await api("GET", `/payment_intents/${intent.id}`)).body.status === "succeeded" || undefined)
    const refundPath = `/${adyen.apiVersion}/payments/${payment.pspReference}/refunds`
    proxy!.dropAnswers((method, path) => method === "POST" && path === refundPath)
    const refund = await api("POST", "/refunds", { payment_intent: intent.id, amount: "50000" })
    expect(refund.status, JSON.stringify(refund.body)).toBe(201)
    await eventually(() => proxy!.dropped.includes(`POST ${refundPath}`) || undefined)
    proxy!.dropAnswers(null)
    // The send task asks again (on its back-off) with the same idempotency key: Adyen answers with
    // the refund it made, and makes no second one.
    const asked = await eventually(() => {
      const sent = adyen.requests.filter((r) =>
        r.operation.operationId === "post-payments-paymentPspReference-refunds" && r.body["reference"] === refund.body.id
      )
      return sent.length >= 2 ? sent : undefined
    })
    expect(new Set(asked.map((r) => r.headers["idempotency-key"])), "the refund's idempotency keys").toEqual(new Set([refund.body.id]))
    const atAdyenRefund = await eventually(() => [...adyen.refunds.values()].find((r) => r.reference === refund.body.id))
    await adyen.settleRefund(atAdyenRefund.pspReference)
    await eventually(async () => (await api("GET", `/refunds/${refund.body.id}`)).body.status === "succeeded" || undefined)
    expect([...adyen.refunds.values()].filter((r) => r.paymentPspReference === payment.pspReference), "refunds Adyen holds of the payment").toHaveLength(1)
    expect((await api("GET", `/payment_intents/${intent.id}`)).body.amount_refunded).toBe("50000")
    expect((await eventsOf("refund.succeeded", refund.body.id)).length).toBe(1)
  }, 90_000)
})
