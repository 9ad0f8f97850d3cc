/**
 * Routing between two real providers, end to end: the demo server with Stripe and Adyen (both
 * stand-ins of @tender/testing, Adyen over HTTPS with its test CA trusted) and one merchant whose
 * `th_promptpay` has a Stripe route first and an Adyen route second. Stripe answering 5xx or
 * hanging past its timeout sends creates to Adyen (per-request failover, then the breaker), they
 * come back to Stripe after it recovers and the breaker's cool-down (TENDER_ROUTE_COOLDOWN_MS)
 * ends, the discovery pin keeps one provider, and a refund goes to the provider that took the
 * payment (docs/discovery-and-routing.md, "Route health"). Tender reaches Stripe through a
 * fault proxy that can forward a request and drop its answer: a create whose answer is lost is
 * remembered, canceled at Stripe, and a payment of it refunded there as a late payment
 * (docs/reliability.md, "Lost provider answers").
 */
import * as AdyenStandIn from "@tender/adyen/testing"
import { createIntent, eventually, promptpay } from "@tender/repo-test-support"
import * as FaultProxy from "@tender/repo-test-support/fault-proxy"
import { standInDemo } from "@tender/repo-test-support/stand-in-demo"
import * as StripeStandIn from "@tender/stripe/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import * as TestTls from "@tender/testing/TestTls"
import { afterAll, afterEach, describe, expect, it } from "vitest"

const WEBHOOK_SECRET = "whsec_demo_routing_e2e"
const HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
const MERCHANT_ACCOUNT = "TenderRoutingTH"
// The breaker's settings for this server: three failures in a row open it (the default), and it
// stays open this long (30 s by default). The server is a process of its own on the real clock, so
// what a case checks while the breaker is open (the rest of the create that opened it, one more
// create, two discoveries: a few requests on loopback) must end before the cool-down does, however
// loaded the machine, with a wide margin (the create took at most 0.3 s with the machine's load
// six times its cores). A case that opened it waits it out (`recover`).
const COOLDOWN_MS = 10_000
const FAILURES_TO_OPEN = 3
let stripe: StripeStandIn.StripeStandIn
let adyen: AdyenStandIn.AdyenStandIn
let proxy: FaultProxy.FaultProxy | undefined
const { api } = standInDemo({
  slug: "routing_e2e",
  name: "Two Providers Shop",
  key: { public: "pk_test_routingE2e1234", secret: "sk_test_routingE2eSecret5678" },
  routes: [
    { id: "rt_stripe_pp", method: "th_promptpay", provider: "stripe", environments: ["test"], priority: 1 },
    { id: "rt_adyen_pp", method: "th_promptpay", provider: "adyen", environments: ["test"], priority: 2 },
    { id: "rt_adyen_ob", method: "th_online_banking", provider: "adyen", environments: ["test"], priority: 3 }
  ],
  start: async () => {
    stripe = await StripeStandIn.start()
    proxy = await FaultProxy.start(stripe.url)
    // A failed second start must not leave the first listening in this worker for later files.
    adyen = await AdyenStandIn.start({ merchantAccount: MERCHANT_ACCOUNT }).catch(async (e: unknown) => {
      await stripe.close()
      throw e
    })
    return { stripe, adyen }
  },
  each: (s) => [s.stripe, s.adyen],
  env: (s) => ({
    TENDER_ROUTE_COOLDOWN_MS: String(COOLDOWN_MS),
    TENDER_ROUTE_FAILURE_THRESHOLD: String(FAILURES_TO_OPEN),
    STRIPE_SECRET_KEY: "sk_test_demoRoutingE2e",
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: proxy!.url,
    // A hanging Stripe counts as down after this (per try; the adapter tries twice), not after
    // the default 15 s; the stand-in on loopback, when it answers, answers well within it, even on
    // a machine loaded many times over (an answer later than this is a lost answer: remembered,
    // and canceled at Stripe, see `holder`).
    STRIPE_TIMEOUT_MS: "5000",
    ADYEN_API_KEY: "AQE_demo_routing_e2e",
    ADYEN_MERCHANT_ACCOUNT: MERCHANT_ACCOUNT,
    ADYEN_HMAC_KEY: HMAC_KEY,
    ADYEN_API_BASE: s.adyen.apiBase,
    NODE_EXTRA_CA_CERTS: TestTls.caPath
  }),
  connect: (s, url) => {
    s.stripe.addEndpoint({ url: `${url}/provider_notifications/stripe`, secret: WEBHOOK_SECRET })
    s.adyen.addEndpoint({ url: `${url}/provider_notifications/adyen`, hmacKey: HMAC_KEY })
  },
  format: formatRefusals,
  webhooks: false
})
// Whatever a case left, Stripe is up for the next one (before the refusals are checked: Vitest
// runs a file's afterEach hooks last registered first).
afterEach(() => {
  stripe.outage(null)
  proxy?.dropAnswers(null)
})
afterAll(() => proxy?.close())

const atStripe = (id: string) => [...stripe.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === id)
const atAdyen = (id: string) => [...adyen.payments.values()].find((p) => p.merchantReference === id)
/** The providers holding a payable (or paid) payment of Tender's intent `id`. */
const live = (id: string) => {
  const pi = atStripe(id)
  const payment = atAdyen(id)
  return [pi === undefined || pi["status"] === "canceled" ? [] : ["stripe"], payment === undefined || payment.resultCode === "Cancelled" ? [] : ["adyen"]]
    .flat()
}
/**
 * The provider that holds the payment of Tender's intent `id`: exactly one of them, by design and
 * not by timing. A Stripe create whose answer comes after the timeout (a loaded machine) or never
 * has made a Stripe payment all the same; Tender remembered that attempt before failing over to
 * Adyen and its cancel task cancels it at Stripe (docs/reliability.md, "Lost provider answers"),
 * so it is not payable for long, and the intent's own payment is at Adyen alone.
 */
const holder = async (id: string) => {
  const held = await eventually(() => live(id).length === 1 ? live(id) : undefined)
  expect(held, `the providers holding ${id}`).toHaveLength(1)
  return held[0]
}
/**
 * The create requests of Tender's intent `id` the Stripe stand-in received, answered or failed with
 * its outage. Of that intent only: a create Stripe answered 5xx may have made a payment, so Tender
 * remembers it and its cancel task sends that intent's create to Stripe again, in the background
 * on the task back-off (1 s, 2 s, 4 s...; docs/reliability.md, "Lost provider answers"); a count of
 * every create would count those whenever their back-off ends.
 */
const stripeCreatesOf = (id: string) =>
  [...stripe.requests, ...stripe.faulted].filter((r) =>
    r.operation.operationId === "PostPaymentIntents" && (r.body["metadata"] as Record<string, string> | undefined)?.["tender_payment_intent"] === id
  ).length

/** A merchant-mode PromptPay create; answers the intent and the provider that took it. */
const create = async () => {
  const intent = await createIntent(api)
  expect(intent).toMatchObject({ status: "requires_action", next_action: { type: "display_qr_code" } })
  return { intent, provider: await holder(intent.id) }
}

const discovered = async (provider?: string) => {
  const pin = provider === undefined ? "" : `&provider=${provider}`
  const answer = await api("GET", `/payment_methods/options?amount=150000&country=TH&currency=THB&checkout_mode=merchant${pin}`)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return (answer.body.methods as Array<{ code: string }>).map((m) => m.code)
}

/**
 * Stripe recovers; once the breaker's cool-down has run out a create goes to Stripe again. With
 * `opened` false the case failed Stripe fewer times than open the breaker: nothing to wait out. The
 * cool-down is waited whole, not polled for: under load this process (the stand-ins live in it)
 * was seen to stall 4 to 8 s right after Stripe recovered, long enough for the demo to close the
 * kept-alive connection that a poll sent right after the stall reuses ("other side closed").
 */
const recover = async (opened = true) => {
  stripe.outage(null)
  if (opened) await new Promise((r) => setTimeout(r, COOLDOWN_MS))
  expect((await create()).provider, "a create after Stripe recovered and the cool-down ended").toBe("stripe")
}

describe("examples/server routing th_promptpay between Stripe (first) and Adyen (second), both stand-ins", () => {
  it("4.1 create routes to the first eligible route: both providers up -> creates go to Stripe, its 2.3 display_qr_code shown", async () => {
    for (let i = 0; i < 2; i++) expect((await create()).provider).toBe("stripe")
  }, 60_000)

  it(
    "4.1 7 route health: Stripe answering 5xx -> each create fails over to Adyen in the same request; after 3 failures in a row Stripe is skipped, and it is used again once it recovers and the cool-down ends",
    async () => {
      stripe.outage({ _tag: "Status", status: 503, body: { error: { type: "api_error", message: "Stripe is unavailable" } } })
      for (let i = 0; i < FAILURES_TO_OPEN; i++) {
        const { intent, provider } = await create()
        expect(provider, `create ${i + 1} while Stripe answers 503`).toBe("adyen")
        expect(intent.next_action.qr_data).toBe(atAdyen(intent.id)!.action!["qrCodeData"])
        expect(stripeCreatesOf(intent.id), "Stripe was asked first").toBeGreaterThan(0)
      }
      // The breaker is open: Stripe is not asked at all (it holds no attempt of the intent, so no
      // cancel task asks it later either), and a discovery pinned to it finds nothing.
      const { intent, provider } = await create()
      expect(provider).toBe("adyen")
      expect(stripeCreatesOf(intent.id), "create requests Stripe received while its breaker is open").toBe(0)
      expect(await discovered("stripe")).toEqual([])
      expect(await discovered()).toEqual(["th_promptpay", "th_online_banking"])
      await recover()
      expect(await discovered("stripe")).toEqual(["th_promptpay"])
    },
    90_000
  )

  it("4.1 7 route health: Stripe hanging past its timeout -> creates go to Adyen, and back to Stripe once it recovers and the cool-down ends", async () => {
    stripe.outage({ _tag: "Hang" })
    for (let i = 0; i < FAILURES_TO_OPEN + 1; i++) expect((await create()).provider, `create ${i + 1} while Stripe hangs`).toBe("adyen")
    await recover()
  }, 240_000)

  it(
    "4.6 provider pin (D3 provider): pinned to adyen, discovery lists Adyen's routes while Stripe is up and first; pinned to stripe, only Stripe's",
    async () => {
      expect((await create()).provider, "Stripe is up and first").toBe("stripe")
      expect(await discovered("adyen")).toEqual(["th_promptpay", "th_online_banking"])
      expect(await discovered("stripe")).toEqual(["th_promptpay"])
      expect(await discovered("unknown_provider")).toEqual([])
    },
    60_000
  )

  it("D10 a refund goes to the provider that took the payment: paid at Adyen while Stripe was down, refunded at Adyen after Stripe recovered", async () => {
    stripe.outage({ _tag: "Status", status: 503, body: { error: { type: "api_error", message: "Stripe is unavailable" } } })
    const { intent, provider } = await create()
    expect(provider).toBe("adyen")
    const payment = atAdyen(intent.id)!
    await adyen.pay(payment.pspReference)
    await eventually(async () => (await api("GET", `/payment_intents/${intent.id}`)).body.status === "succeeded" || undefined)
    // One failure: Stripe's breaker is closed, and its next create goes to it at once.
    await recover(false)

    const stripeRefunds = stripe.refunds.size
    const refund = await api("POST", "/refunds", { payment_intent: intent.id, amount: "50000" })
    expect(refund.status, JSON.stringify(refund.body)).toBe(201)
    const atAdyenRefund = await eventually(() => [...adyen.refunds.values()].find((r) => r.reference === refund.body.id))
    expect(atAdyenRefund).toMatchObject({ paymentPspReference: payment.pspReference, amount: { value: 50000, currency: "THB" } })
    await adyen.settleRefund(atAdyenRefund.pspReference)
    await eventually(async () => (await api("GET", `/refunds/${refund.body.id}`)).body.status === "succeeded" || undefined)
    expect(stripe.refunds.size, "refunds Stripe received").toBe(stripeRefunds)
    expect((await api("GET", `/payment_intents/${intent.id}`)).body.amount_refunded).toBe("50000")
  }, 90_000)

  it(
    "D10 a Stripe create forwarded to Stripe whose answer is lost fails over to Adyen; paid anyway at Stripe, it is the intent's late payment, refunded at Stripe, never unmatched",
    async () => {
      proxy!.dropAnswers((method, path) => method === "POST" && path === "/v1/payment_intents")
      const created = await api("POST", "/payment_intents", promptpay)
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const id: string = created.body.id
      expect(proxy!.dropped, "Stripe acted on the create and its answer was lost").toContain("POST /v1/payment_intents")
      expect(atAdyen(id), "the intent's own payment").toBeDefined()
      const orphan = atStripe(id)!
      expect(orphan["status"]).toBe("requires_action")
      // The payer pays the Stripe payment anyway (its cancel cannot reach Stripe yet: the proxy still drops).
      const told = await stripe.pay(orphan["id"] as string)
      expect(told.map((d) => d.status)).toEqual([200])
      const refunds = async () => (await api("GET", `/refunds?payment_intent=${id}`)).body.data as Array<Record<string, unknown>>
      const late = await eventually(async () => (await refunds())[0])
      expect(late).toMatchObject({ reason: "late_payment", amount: "150000", status: "pending" })
      const atStripeRefund = await eventually(() => [...stripe.refunds.values()].find((r) => r["payment_intent"] === orphan["id"]))
      expect(atStripeRefund).toMatchObject({ amount: 150000, metadata: { tender_refund: late["id"] } })
      await stripe.settleRefund(atStripeRefund["id"] as string)
      await eventually(async () => (await api("GET", `/refunds/${late["id"]}`)).body.status === "succeeded" || undefined)
      // The intent's own payment is untouched: awaiting its payer at Adyen.
      expect((await api("GET", `/payment_intents/${id}`)).body).toMatchObject({ status: "requires_action", amount_refunded: "0" })
      // Told again (Stripe retries a delivery): refunded once.
      const stored = await stripe.deliver(
        stripe.events.find((e) => e["type"] === "payment_intent.succeeded" && (e["data"] as { object: { id: string } }).object.id === orphan["id"])!
      )
      expect(stored.map((d) => d.status)).toEqual([200])
      expect(await refunds()).toHaveLength(1)
    },
    180_000
  )

  it("D10 a refund whose answer is lost is asked again: Stripe holds one refund, which succeeds once with one refund.succeeded", async () => {
    const { intent, provider } = await create()
    expect(provider).toBe("stripe")
    const pi = atStripe(intent.id)!
    await stripe.pay(pi["id"] as string)
    await eventually(async () => (await api("GET", `/payment_intents/${intent.id}`)).body.status === "succeeded" || undefined)
    proxy!.dropAnswers((method, path) => method === "POST" && path === "/v1/refunds")
    const refund = await api("POST", "/refunds", { payment_intent: intent.id, amount: "50000" })
    expect(refund.status, JSON.stringify(refund.body)).toBe(201)
    await eventually(() => proxy!.dropped.includes("POST /v1/refunds") || undefined)
    proxy!.dropAnswers(null)
    // The send task asks again on its back-off: the adapter reads the payment's refunds first (each
    // send does), finds the one it made by its tender_refund metadata, and creates none.
    await eventually(() =>
      stripe.requests.filter((r) => r.operation.operationId === "GetRefunds" && r.query["payment_intent"] === pi["id"]).length >= 2 || undefined
    )
    const atStripeRefund = await eventually(() => [...stripe.refunds.values()].find((r) => r["payment_intent"] === pi["id"]))
    await stripe.settleRefund(atStripeRefund["id"] as string)
    await eventually(async () => (await api("GET", `/refunds/${refund.body.id}`)).body.status === "succeeded" || undefined)
    expect([...stripe.refunds.values()].filter((r) => r["payment_intent"] === pi["id"]), "refunds Stripe holds of the payment").toHaveLength(1)
    expect((await api("GET", `/payment_intents/${intent.id}`)).body.amount_refunded).toBe("50000")
    const succeeded = (await api("GET", "/events?type=refund.succeeded&limit=100")).body.data as Array<{ data: { object: { id: string } } }>
    expect(succeeded.filter((e) => e.data.object.id === refund.body.id), "refund.succeeded events of the refund").toHaveLength(1)
  }, 90_000)
})
