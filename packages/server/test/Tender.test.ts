/**
 * `createTender` and its Promise API on the in-memory store: the HTTP routes and the Promise
 * API answer from one set of services, and every rule the HTTP API applies holds for the
 * Promise calls (validation, idempotency, state checks, D8 approval, key pairs).
 */
import { basic, customer, demoKey, promptpay, until } from "@tender/repo-test-support"
import { paymentRequest, refOf } from "@tender/repo-test-support/provider-requests"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createTender, defineProvider, type PromiseProvider, type TenderInstance, type TenderOptions } from "../src/index.js"
import { seedPath } from "./fixtures.js"
import { rejection } from "./rejection.js"

const base = "http://tender.test/payments"
const demo = { merchant: "mch_demo", environment: "test" } as const
const logs: Array<{ level: string; message: string; fields: Record<string, unknown> }> = []
const logger = {
  info: (fields: Record<string, unknown>, message: string) => void logs.push({ level: "info", message, fields }),
  warn: (fields: Record<string, unknown>, message: string) => void logs.push({ level: "warn", message, fields }),
  error: (fields: Record<string, unknown>, message: string) => void logs.push({ level: "error", message, fields })
}

let tender: TenderInstance
beforeAll(async () => {
  tender = await createTender({ publicUrl: base, checkoutSecret: "test-secret-123", merchants: seedPath, logger, workers: { pollMillis: 20 } })
})
afterAll(() => tender.close())

/** 100.00 THB to a KBANK account (a bank the simulator pays out to), under `reference`. */
const payout = (reference: string) => ({
  amount: "10000",
  currency: "THB",
  merchant_reference: reference,
  destination: { type: "bank_account", bank: "KBANK", account_number: "1234567890", account_name: customer.name }
} as const)

const http = (path: string, init: RequestInit & { key?: { public: string; secret: string } } = {}) =>
  tender.fetch(
    new Request(`${base}${path}`, {
      ...init,
      headers: { authorization: basic(init.key ?? demoKey), "content-type": "application/json", ...(init.headers as Record<string, string> | undefined) }
    })
  )

describe("createTender: one call, one set of services", () => {
  it("server: a payment created through the Promise API is the one the HTTP API serves", async () => {
    const created = await tender.paymentIntents.create(promptpay, demo)
    assert.strictEqual(created.status, "requires_action")
    const res = await http(`/payment_intents/${created.id}`)
    assert.strictEqual(res.status, 200)
    assert.strictEqual((await res.json()).id, created.id)
    assert.strictEqual((await tender.paymentIntents.retrieve(created.id, demo)).id, created.id)
    assert.isTrue(tender.owns("/payments/payment_intents"))
    assert.isFalse(tender.owns("/elsewhere"))
  })

  it("server: one info line at start says Tender runs on the memory store", () => {
    assert.deepInclude(logs, { level: "info", message: "tender: storage memory (everything is lost when the process ends)", fields: {} })
  })

  it("server: tender.handler serves Tender's paths on node:http, an unknown path gets the D1 404", async () => {
    const server = createServer(tender.handler)
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const listed = await fetch(`${origin}/payments/payment_intents?limit=1`, { headers: { authorization: basic(demoKey) } })
      assert.strictEqual(listed.status, 200)
      const missing = await fetch(`${origin}/elsewhere`)
      assert.strictEqual(missing.status, 404)
      assert.strictEqual((await missing.json()).error.code, "resource_not_found")
    } finally {
      await new Promise((ok) => server.close(ok))
    }
  })

  it("server: an invalid seed is refused at start with the seed's problem", async () => {
    const error = await rejection(createTender({ publicUrl: base, checkoutSecret: "test-secret-123", merchants: { merchants: [{ id: "" }] } as never }))
    assert.strictEqual(error.code, "validation_failed")
    assert.match(error.message, /^createTender: option "merchants" holds a seed that is invalid: /)
  })
})

describe("Promise API: paymentIntents", () => {
  it("4.9.5 same key, changed body -> 409 idempotency_conflict; same key, same body -> the first answer", async () => {
    const key = crypto.randomUUID()
    const first = await tender.paymentIntents.create(promptpay, { ...demo, idempotencyKey: key })
    const again = await tender.paymentIntents.create(promptpay, { ...demo, idempotencyKey: key })
    assert.strictEqual(again.id, first.id)
    const conflict = await rejection(tender.paymentIntents.create({ ...promptpay, amount: "150001" }, { ...demo, idempotencyKey: key }))
    assert.deepStrictEqual([conflict.status, conflict.code], [409, "idempotency_conflict"])
  })

  it("D1 bad input rejects with validation_failed naming the param, nothing created", async () => {
    const before = (await tender.paymentIntents.list({ limit: 100 }, demo)).data.length
    const error = await rejection(tender.paymentIntents.create({ ...promptpay, amount: "-5" }, demo))
    assert.deepStrictEqual([error.status, error.code, error.param], [400, "validation_failed", "amount"])
    const unknown = await rejection(tender.paymentIntents.create({ ...promptpay, colour: "red" } as never, demo))
    assert.strictEqual(unknown.param, "colour")
    assert.strictEqual((await tender.paymentIntents.list({ limit: 100 }, demo)).data.length, before)
  })

  it("server: an unknown merchant or environment is refused before anything runs", async () => {
    const missing = await rejection(tender.paymentIntents.retrieve("dord_000000000000000000000000", { merchant: "mch_nope", environment: "test" }))
    assert.deepStrictEqual([missing.status, missing.code, missing.param], [404, "resource_not_found", "merchant"])
    const env = await rejection(tender.paymentIntents.list(undefined, { merchant: "mch_demo", environment: "prod" as never }))
    assert.deepStrictEqual([env.code, env.param], ["validation_failed", "environment"])
  })

  it("D10 cancel, confirm to success, refund part, list filters by status", async () => {
    const toCancel = await tender.paymentIntents.create(promptpay, demo)
    const canceled = await tender.paymentIntents.cancel(toCancel.id, { cancellation_reason: "requested_by_customer" }, demo)
    assert.deepStrictEqual([canceled.status, canceled.cancellation_reason], ["canceled", "requested_by_customer"])
    const again = await rejection(tender.paymentIntents.confirm(toCancel.id, demo))
    assert.strictEqual(again.code, "payment_intent_unexpected_state")

    const paid = await tender.paymentIntents.create(promptpay, demo)
    await tender.paymentIntents.confirm(paid.id, demo)
    assert.strictEqual((await until(() => tender.paymentIntents.retrieve(paid.id, demo), (p) => p.status === "succeeded")).status, "succeeded")
    const refund = await tender.refunds.create({ payment_intent: paid.id, amount: "50000" }, demo)
    assert.strictEqual(refund.status, "pending")
    assert.strictEqual((await until(() => tender.refunds.retrieve(refund.id, demo), (r) => r.status !== "pending")).status, "succeeded")
    const over = await rejection(tender.refunds.create({ payment_intent: paid.id, amount: "100001" }, demo))
    assert.strictEqual(over.code, "amount_exceeds_refundable")
    const page = await tender.paymentIntents.list({ status: ["succeeded"], limit: 50 }, demo)
    assert.isTrue(page.data.every((p) => p.status === "succeeded"))
    assert.include(page.data.map((p) => p.id), paid.id)
    assert.include((await tender.refunds.list({ payment_intent: paid.id }, demo)).data.map((r) => r.id), refund.id)
  })
})

/** D12: a test balance is funded with a `test_funding` top-up, which the workers pay. */
const fund = async (amount: string) => {
  const created = await tender.topupIntents.create(
    { destination_amount: amount, destination_currency: "THB", source: { type: "test_funding" } },
    { ...demo, idempotencyKey: crypto.randomUUID() }
  )
  assert.strictEqual((await until(() => tender.topupIntents.retrieve(created.id, demo), (t) => t.status !== "requires_payment")).status, "succeeded")
}

describe("Promise API: payoutIntents (D8)", () => {
  beforeAll(() => fund("100000"))

  it("D8 approve moves a payout to processing and the worker sends it; approving again or cancelling then is refused", async () => {
    const created = await tender.payoutIntents.create(payout(`po-${crypto.randomUUID()}`), demo)
    assert.strictEqual(created.status, "requires_approval")
    const approved = await tender.payoutIntents.approve(created.id, demo)
    assert.strictEqual(approved.status, "processing")
    const twice = await rejection(tender.payoutIntents.approve(created.id, demo))
    assert.deepStrictEqual([twice.status, twice.code], [409, "payout_not_approvable"])
    const cancel = await rejection(tender.payoutIntents.cancel(created.id, demo))
    assert.strictEqual(cancel.code, "payout_not_cancelable")
    assert.strictEqual((await until(() => tender.payoutIntents.retrieve(created.id, demo), (p) => p.status !== "processing")).status, "succeeded")
    const missing = await rejection(tender.payoutIntents.approve("pout_000000000000000000000000", demo))
    assert.strictEqual(missing.code, "resource_not_found")
  })

  it("D8 a payout awaiting approval can be canceled, then not approved", async () => {
    const created = await tender.payoutIntents.create(payout(`po-${crypto.randomUUID()}`), demo)
    assert.strictEqual((await tender.payoutIntents.cancel(created.id, demo)).status, "canceled")
    assert.strictEqual((await rejection(tender.payoutIntents.approve(created.id, demo))).code, "payout_not_approvable")
    assert.include((await tender.payoutIntents.list({ status: "canceled" }, demo)).data.map((p) => p.id), created.id)
  })
})

describe("Promise API: balances (D12)", () => {
  it("D12 merchants.create and update carry the fee schedule and settlement delay, checked like every option; a payment's fee follows it", async () => {
    const id = `mch_${crypto.randomUUID().slice(0, 8)}`
    const params = {
      id,
      name: "Fee Shop",
      allowed_checkout_modes: ["merchant" as const],
      routes: [{ id: `rt_${id}`, method: "th_promptpay", provider: "simulator", environments: ["test" as const] }],
      fees: { th_promptpay: { rate_bps: 165 } },
      settlement_delay_days: 2
    }
    const merchant = await tender.merchants.create(params)
    assert.deepStrictEqual([merchant.fees, merchant.settlement_delay_days], [{ th_promptpay: { rate_bps: 165, fixed_amount: "0" } }, 2])
    for (
      const [bad, param] of [
        [{ fees: { th_promptpay: { rate_bps: 10_001 } } }, "fees"],
        [{ fees: { th_promptpay: { rate_bps: 1.5 } } }, "fees"],
        [{ fees: { th_promptpay: { rate_bps: 10, fixed_amount: "-1" } } }, "fees"],
        [{ settlement_delay_days: 31 }, "settlement_delay_days"]
      ] as const
    ) {
      const refused = await rejection(tender.merchants.update(id, { ...params, ...bad } as never))
      assert.strictEqual(refused.code, "validation_failed")
      assert.include(refused.param ?? "", param)
    }
    const scope = { merchant: id, environment: "test" as const }
    const key = await tender.keys.issue(id, "test")
    assert.match(key.public_key, /^pk_test_/)
    const paid = await tender.paymentIntents.create({ ...promptpay, amount: "100000" }, scope)
    await tender.paymentIntents.confirm(paid.id, scope)
    await until(() => tender.paymentIntents.retrieve(paid.id, scope), (p) => p.status === "succeeded")
    const [payment] = (await tender.balanceTransactions.list({ type: "payment" }, scope)).data
    // 100000 x 165 / 10000 = 1650; pending for two days.
    assert.deepStrictEqual([payment!.fee, payment!.net, payment!.status], ["1650", "98350", "pending"])
    assert.deepStrictEqual((await tender.balance.retrieve(scope)).pending, [{ amount: "98350", currency: "THB" }])
    const revenue = await tender.balances.feeRevenue("test")
    assert.isAtLeast(Number(revenue.find((r) => r.currency === "THB")?.amount), 1650)
  })

  it("D12 balances.adjust writes an adjustment once per idempotency key; bad input is a 400 naming it", async () => {
    const id = `adj-${crypto.randomUUID()}`
    const made = await tender.balances.adjust({ amount: "-250", currency: "THB", description: "correction", idempotency_key: id }, demo)
    assert.deepStrictEqual([made.type, made.amount, made.net, made.status], ["adjustment", "-250", "-250", "available"])
    assert.strictEqual((await tender.balances.adjust({ amount: "-250", currency: "THB", description: "correction", idempotency_key: id }, demo)).id, made.id)
    assert.strictEqual((await tender.balanceTransactions.retrieve(made.id, demo)).id, made.id)
    const bad = await rejection(tender.balances.adjust({ amount: "0", currency: "THB", description: "x", idempotency_key: "k" }, demo))
    assert.deepStrictEqual([bad.status, bad.param], [400, "amount"])
    assert.strictEqual(
      (await rejection(
        tender.balances.adjust({ amount: "1", currency: "THB", description: "x", idempotency_key: "k" }, { merchant: "mch_nope", environment: "test" })
      )).code,
      "resource_not_found"
    )
    assert.strictEqual((await rejection(tender.balances.feeRevenue("prod" as never))).param, "environment")
  })
})

describe("Promise API: merchants and key pairs", () => {
  it("D2 onboard a merchant, issue its keys: they authenticate over HTTP; rotation and revocation end the old pair", async () => {
    const id = `mch_${crypto.randomUUID().slice(0, 8)}`
    const merchant = await tender.merchants.create({
      id,
      name: "New Shop",
      allowed_checkout_modes: ["merchant"],
      routes: [{ id: `rt_${id}`, method: "th_promptpay", provider: "simulator", environments: ["test"] }]
    })
    assert.deepStrictEqual(merchant.routes.map((r) => r.priority), [0])
    assert.strictEqual((await rejection(tender.merchants.create({ ...merchant, routes: [], provider_accounts: [] }))).param, "id")
    const pair = await tender.keys.issue(id, "test")
    assert.match(pair.public_key, /^pk_test_/)
    const key = { public: pair.public_key, secret: pair.secret_key }
    const created = await http("/payment_intents", { method: "POST", key, body: JSON.stringify(promptpay) })
    assert.strictEqual(created.status, 201)

    const rotated = await tender.keys.rotate(pair.public_key)
    assert.strictEqual((await http("/payment_intents", { key })).status, 401)
    const next = { public: rotated.public_key, secret: rotated.secret_key }
    assert.strictEqual((await http("/payment_intents", { key: next })).status, 200)
    await tender.keys.revoke(rotated.public_key)
    assert.strictEqual((await http("/payment_intents", { key: next })).status, 401)
    assert.strictEqual((await rejection(tender.keys.rotate(rotated.public_key))).param, "public_key")
    assert.strictEqual((await rejection(tender.keys.issue("mch_nope", "test"))).code, "resource_not_found")

    const updated = await tender.merchants.update(id, { name: "Renamed", allowed_checkout_modes: ["hosted"], routes: [] })
    assert.strictEqual((await tender.merchants.retrieve(id)).name, updated.name)
    const refused = await http("/payment_intents", {
      method: "POST",
      key: { public: (await tender.keys.issue(id, "test")).public_key, secret: "x" },
      body: "{}"
    })
    assert.strictEqual(refused.status, 401)
  })
})

describe("Promise API: routes and webhook endpoints", () => {
  it("server: a route taken out of service is skipped by routing until put back", async () => {
    await tender.routes.setAvailable("rt_demo_promptpay", false)
    try {
      const error = await rejection(tender.paymentIntents.create(promptpay, demo))
      assert.deepStrictEqual([error.status, error.code], [422, "routing_unavailable"])
    } finally {
      await tender.routes.setAvailable("rt_demo_promptpay", true)
    }
    assert.strictEqual((await tender.paymentIntents.create(promptpay, demo)).status, "requires_action")
  })

  it("server: webhook endpoints are created with their secret once, listed, rotated and deleted", async () => {
    const endpoint = await tender.webhookEndpoints.create({ url: "http://127.0.0.1:9/hook" }, demo)
    assert.match(endpoint.secret, /^whsec_/)
    assert.include((await tender.webhookEndpoints.list({ limit: 10 }, demo)).data.map((e) => e.id), endpoint.id)
    const { secret } = await tender.webhookEndpoints.rotateSecret(endpoint.id, undefined, demo)
    assert.notStrictEqual(secret, endpoint.secret)
    assert.isTrue((await tender.webhookEndpoints.delete(endpoint.id, demo)).deleted)
    assert.strictEqual((await rejection(tender.webhookEndpoints.retrieve(endpoint.id, demo))).code, "resource_not_found")
  })
})

/** What the Promise adapters below serve: PromptPay in merchant mode, test environment. */
const acmeMethods: PromiseProvider["methods"] = [{
  method: "th_promptpay",
  providerMethod: "PP",
  category: "qr",
  label: "PromptPay",
  nextActionType: "display_qr_code",
  countries: ["TH"],
  currencies: ["THB"],
  minAmount: "100",
  maxAmount: "100000000",
  environments: ["test"],
  checkoutModes: ["merchant"],
  banks: [],
  payer: {}
}]

/** One merchant whose PromptPay route goes to the test's own `acme` adapter. */
const acmeSeed = {
  merchants: [{
    id: "mch_acme",
    name: "Acme",
    allowed_checkout_modes: ["merchant"],
    api_keys: [],
    routes: [{ id: "rt_acme", method: "th_promptpay", provider: "acme" }]
  }]
} as const
const acmeScope = { merchant: "mch_acme", environment: "test" } as const

/** Runs `body` against a Tender whose only provider is `provider` (no simulator), closing it afterwards. */
const withAcme = async (
  provider: ReturnType<typeof defineProvider>,
  options: Partial<TenderOptions>,
  body: (own: TenderInstance) => Promise<void>
) => {
  const own = await createTender({
    publicUrl: base,
    checkoutSecret: "test-secret-123",
    merchants: acmeSeed,
    providers: [provider],
    simulator: false,
    logger,
    ...options
  })
  try {
    await body(own)
  } finally {
    await own.close()
  }
}

/** A host logger that keeps each line's level and message, for tests that read what was logged. */
const recorded = () => {
  const lines: Array<{ level: string; message: string }> = []
  const at = (level: string) => (_: Record<string, unknown>, message: string) => void lines.push({ level, message })
  return { lines, logger: { info: at("info"), warn: at("warn"), error: at("error") } }
}

describe("defineProvider: a Promise adapter in the Provider port", () => {
  it("server: a Promise adapter's answer becomes the payment's; a throw counts as the provider unavailable", async () => {
    let fail = false
    const acme = defineProvider({
      code: "acme",
      methods: acmeMethods,
      async createPayment(request) {
        if (fail) throw new Error("acme is down")
        return { _tag: "Processing", providerPaymentId: `acme_${request.paymentIntentId}` }
      },
      async confirmPayment() {
        return { _tag: "Succeeded" }
      },
      async getPaymentStatus() {
        return { _tag: "Succeeded" }
      }
    })
    await withAcme(acme, {}, async (own) => {
      const created = await own.paymentIntents.create(promptpay, acmeScope)
      assert.strictEqual(created.status, "processing")
      fail = true
      const down = await rejection(own.paymentIntents.create(promptpay, acmeScope))
      assert.strictEqual(down.code, "routing_unavailable")
    })
  })
})

describe("defineProvider: 0.1.0's answers", () => {
  it("server: a create's { _tag: \"Declined\" } is read as the port's Failed, and a cancel's { _tag: \"AlreadyPaid\" } as Succeeded", async () => {
    const legacy = defineProvider({
      code: "legacy",
      methods: acmeMethods,
      async createPayment() {
        return { _tag: "Declined", providerPaymentId: "legacy_1", failureCode: "payment_declined", failureMessage: "The provider declined the payment." }
      },
      async confirmPayment() {
        return { _tag: "Pending" }
      },
      async getPaymentStatus() {
        return { _tag: "Pending" }
      },
      async cancelPayment() {
        return { _tag: "AlreadyPaid" }
      }
    })
    const request = paymentRequest("legacy", { providerMethod: "ACME_PP" })
    assert.deepStrictEqual(await Effect.runPromise(legacy.createPayment(request)), {
      _tag: "Failed",
      providerPaymentId: "legacy_1",
      failureCode: "payment_declined",
      failureMessage: "The provider declined the payment."
    })
    assert.deepStrictEqual(await Effect.runPromise(legacy.cancelPayment!(refOf(request, "legacy_1"))), { _tag: "Succeeded" })
  })
})

describe("defineProvider: every result checked against the port", () => {
  const scope = acmeScope

  it("D11 server: a createPayment answer without providerPaymentId is refused, logged as one line naming the method and the field; no payment is kept", async () => {
    const { lines, logger: recorder } = recorded()
    const acme = defineProvider({
      code: "acme",
      methods: acmeMethods,
      async createPayment() {
        return { _tag: "Processing" } as never
      },
      async confirmPayment() {
        return { _tag: "Pending" }
      },
      async getPaymentStatus() {
        return { _tag: "Pending" }
      }
    })
    await withAcme(acme, { logger: recorder }, async (own) => {
      const refused = await rejection(own.paymentIntents.create(promptpay, scope))
      assert.strictEqual(refused.code, "routing_unavailable")
      assert.strictEqual(
        lines.find((l) => l.level === "error")?.message.split("\n")[0],
        "tender: acme's createPayment gave a result the port does not allow: providerPaymentId is missing"
      )
      assert.deepStrictEqual((await own.paymentIntents.list({ limit: 10 }, scope)).data, [])
    })
  })

  it("D11 server: a notice the port does not allow is logged as one line naming the field, stored nowhere, and the provider is answered 503 so it sends it again", async () => {
    const { lines, logger: recorder } = recorded()
    let fixed = false
    const acme = defineProvider({
      code: "acme",
      methods: acmeMethods,
      async createPayment(request) {
        return { _tag: "Processing", providerPaymentId: `acme_${request.paymentIntentId}` }
      },
      async confirmPayment() {
        return { _tag: "Pending" }
      },
      async getPaymentStatus() {
        return { _tag: "Pending" }
      },
      async parseNotification(request) {
        const event = JSON.parse(Buffer.from(request.body).toString("utf8"))
        const notice = {
          _tag: "PaymentSucceeded",
          eventId: event.id,
          providerPaymentId: event.payment,
          paymentIntentId: event.reference,
          amount: null,
          currency: null
        } as const
        return {
          notices: [fixed ? { ...notice, environment: "test" } : notice as never],
          answer: { status: 200, contentType: "text/plain", body: "[accepted]" }
        }
      }
    })
    await withAcme(acme, { logger: recorder, workers: { pollMillis: 20 } }, async (own) => {
      const created = await own.paymentIntents.create(promptpay, scope)
      const body = JSON.stringify({ id: "acme_evt_bad", payment: `acme_${created.id}`, reference: created.id })
      const post = () => own.fetch(new Request(`${base}/provider_notifications/acme`, { method: "POST", body }))
      const first = await post()
      assert.strictEqual(first.status, 503)
      const error = (await first.json()).error
      assert.deepStrictEqual([error.code, error.message], [
        "service_unavailable",
        "The notification was verified but could not be read; nothing was stored. Send it again later."
      ])
      assert.strictEqual(
        lines.find((l) => l.level === "error")?.message.split("\n")[0],
        "tender: acme's parseNotification gave a result the port does not allow: notices[0].environment is missing"
      )
      // Nothing was stored: once the adapter is fixed, the provider's next delivery of the same event moves the payment.
      fixed = true
      const again = await post()
      assert.deepStrictEqual([again.status, await again.text()], [200, "[accepted]"])
      assert.strictEqual((await until(() => own.paymentIntents.retrieve(created.id, scope), (p) => p.status === "succeeded")).status, "succeeded")
    })
  })
})

describe("createTender: the simulator's settings", () => {
  it("D9 simulator: { timings } installs the simulator with those delays: an expiring payment's action ends that long after create", async () => {
    const own = await createTender({
      publicUrl: base,
      checkoutSecret: "test-secret-123",
      merchants: seedPath,
      simulator: { timings: { shortExpiryMillis: 1_500 } },
      logger
    })
    try {
      // The simulator reads its clock once during the create: the action ends 1.5 s after that instant.
      const before = Date.now()
      const created = await own.paymentIntents.create({ ...promptpay, amount: "40801" }, demo)
      const after = Date.now()
      assert.strictEqual(created.status, "requires_action")
      const expiresAt = Date.parse((created.next_action as { expires_at: string }).expires_at)
      assert.isAtLeast(expiresAt, before + 1_500)
      assert.isAtMost(expiresAt, after + 1_500)
    } finally {
      await own.close()
    }
  })
})

describe("defineProvider: a Promise adapter's notifications (D11)", () => {
  it("D11 server: a Promise adapter's parseNotification verifies the provider's request; what it reports moves the payment, and a throw is 400 signature_invalid", async () => {
    const secret = "acme-notification-secret"
    const sign = (body: string) => createHmac("sha256", secret).update(body).digest("hex")
    const acme = defineProvider({
      code: "acme",
      methods: acmeMethods,
      async createPayment(request) {
        return {
          _tag: "Action",
          providerPaymentId: `acme_${request.paymentIntentId}`,
          nextAction: { type: "display_qr_code", qr_data: "000201", expires_at: new Date(Date.now() + 600_000).toISOString() }
        }
      },
      async confirmPayment() {
        return { _tag: "Pending" }
      },
      async getPaymentStatus() {
        return { _tag: "Pending" }
      },
      async parseNotification(request) {
        const body = Buffer.from(request.body).toString("utf8")
        if (request.headers["acme-signature"] !== sign(body)) throw new Error("acme: bad signature")
        const event = JSON.parse(body)
        return {
          notices: [{
            _tag: "PaymentSucceeded",
            eventId: event.id,
            providerPaymentId: event.payment,
            paymentIntentId: event.reference,
            amount: event.amount,
            currency: "THB",
            environment: "test"
          }],
          answer: { status: 200, contentType: "text/plain", body: "[accepted]" }
        }
      }
    })
    await withAcme(acme, { workers: { pollMillis: 20 } }, async (own) => {
      const scope = acmeScope
      const created = await own.paymentIntents.create(promptpay, scope)
      const body = JSON.stringify({ id: "acme_evt_1", payment: `acme_${created.id}`, reference: created.id, amount: created.amount })
      const post = (signature: string) =>
        own.fetch(new Request(`${base}/provider_notifications/acme`, { method: "POST", headers: { "acme-signature": signature }, body }))
      const refused = await post(sign(body + " "))
      assert.strictEqual(refused.status, 400)
      assert.strictEqual((await refused.json()).error.code, "signature_invalid")
      const accepted = await post(sign(body))
      assert.deepStrictEqual([accepted.status, accepted.headers.get("content-type"), await accepted.text()], [200, "text/plain", "[accepted]"])
      let status = ""
      for (let i = 0; i < 200 && status !== "succeeded"; i++) {
        status = (await own.paymentIntents.retrieve(created.id, scope)).status
        if (status !== "succeeded") await new Promise((r) => setTimeout(r, 10))
      }
      assert.strictEqual(status, "succeeded")
    })
  })
})

describe("close", () => {
  it("server: close stops the instance; calls after it reject", async () => {
    const own = await createTender({ publicUrl: base, checkoutSecret: "test-secret-123", merchants: seedPath, logger })
    await own.close()
    await own.close()
    let failed = false
    await own.paymentIntents.list(undefined, demo).catch(() => (failed = true))
    assert.isTrue(failed)
  })
})

describe("docs: what keys.issue answers", () => {
  it("D2 server: keys.issue answers the fields docs/server.md shows, in their documented forms", async () => {
    const { readFileSync } = await import("node:fs")
    const page = readFileSync(new URL("../../../docs/server.md", import.meta.url), "utf8")
    const sample = JSON.parse(/its answer \(and `rotate`'s\):\n\n```json\n([\s\S]*?)```/i.exec(page)![1]!) as Record<string, string>
    const issued = await tender.keys.issue("mch_demo", "live")
    assert.deepStrictEqual(Object.keys(issued).sort(), Object.keys(sample).sort())
    assert.match(issued.public_key, /^pk_live_[A-Za-z0-9]{24}$/)
    assert.match(issued.secret_key, /^sk_live_[A-Za-z0-9]{32}$/)
    assert.match(sample["public_key"]!, /^pk_live_[A-Za-z0-9]{24}$/)
    assert.match(sample["secret_key"]!, /^sk_live_[A-Za-z0-9]{32}$/)
    await tender.keys.revoke(issued.public_key)
  })
})
