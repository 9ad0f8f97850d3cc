/**
 * The world of the D11 suite (providerNotifications.ts): its merchant, services, intents and signed
 * simulator events, and the reads its cases check.
 */
import type { Merchants, Provider, Storage as StoragePort, Task as TaskPort } from "@tender/core"
import {
  Authentication,
  Event,
  PaymentIntent,
  PaymentIntents,
  ProviderNotification,
  ProviderNotifications,
  Simulator,
  Storage,
  Task,
  Telemetry,
  Tender,
  Workers
} from "@tender/core"
import type { Layer } from "effect"
import { Clock, Effect, Layer as L, Logger, Metric, MetricLabel, Option, Schema } from "effect"
import { promptpayFor } from "./requests.js"

const key = { public: "pk_test_d11AAAA1111", secret: "sk_test_d11SECRET1111aaaa" }
export const scope = { merchantId: "mch_d11", environment: "test" } as const
const pushKey = { public: "pk_test_d11PUSH2222", secret: "sk_test_d11PUSHSECRET2222bbbb" }
export const pushScope = { merchantId: "mch_d11_push", environment: "test" } as const

/**
 * A provider that tells a payment's outcome by notification only, as Adyen does: the simulator
 * under a code of its own, its methods never polled nor confirmed (their declared capabilities
 * win over the functions it has, docs/provider-adapters.md, "Capabilities"). Its notices are the
 * simulator's, signed alike; it refunds as the simulator does.
 */
export const pushCode = "simulator_push"
const pushOnly = (baseUrl: string): Provider.PaymentProvider => {
  const simulator = Simulator.make({ baseUrl })
  return {
    code: pushCode,
    methods: simulator.methods.map((m) => ({ ...m, capabilities: { ...m.capabilities, poll: false, confirm: false } })),
    createPayment: simulator.createPayment,
    getPaymentStatus: simulator.getPaymentStatus,
    cancelPayment: simulator.cancelPayment,
    refund: simulator.refund,
    parseNotification: simulator.parseNotification
  }
}

/** One merchant with the simulator's methods in test; another whose PromptPay goes to the push-only provider. */
export const seed = {
  merchants: [{
    id: scope.merchantId,
    name: "D11",
    allowed_checkout_modes: ["hosted", "merchant"] as const,
    api_keys: [{ id: "key_d11_test", public_key: key.public, secret_key: key.secret }],
    routes: [
      { id: "rt_d11_pp", method: "th_promptpay", provider: "simulator", environments: ["test" as const] },
      { id: "rt_d11_bt", method: "th_bank_transfer", provider: "simulator", environments: ["test" as const] }
    ]
  }, {
    id: pushScope.merchantId,
    name: "D11 push",
    allowed_checkout_modes: ["hosted", "merchant"] as const,
    api_keys: [{ id: "key_d11_push_test", public_key: pushKey.public, secret_key: pushKey.secret }],
    routes: [{ id: "rt_d11_push_pp", method: "th_promptpay", provider: pushCode, environments: ["test" as const] }]
  }]
}

const baseUrl = "https://pay.example.test"

/** Every service on `storage`, the simulator and the push-only provider installed. */
export const services = <E>(storage: Layer.Layer<StoragePort.Storage | TaskPort.Tasks | Merchants.Merchants, E>) =>
  L.orDie(
    Tender.layer({
      seed,
      hostedCheckout: { baseUrl, secret: "d11-checkout-secret" },
      providers: [Simulator.make({ baseUrl: `${baseUrl}/simulator` }), pushOnly(`${baseUrl}/simulator`)]
    }, storage)
  ).pipe(
    // Mismatches are logged by design (D11): the test output stays clean.
    L.provideMerge(Logger.replace(Logger.defaultLogger, Logger.none))
  )

const principal = (merchant: "d11" | "push") =>
  Authentication.authenticate(merchant === "d11" ? { publicKey: key.public, secretKey: key.secret } : { publicKey: pushKey.public, secretKey: pushKey.secret })
export const context = (requestId: string, merchant: "d11" | "push" = "d11") => Effect.map(principal(merchant), (p) => ({ principal: p, requestId }))

/** A PromptPay intent awaiting its payer, with the payment id its provider gave it (`push`: at the push-only provider). */
export const createIntent = (amount = "150000", merchant: "d11" | "push" = "d11") =>
  Effect.gen(function*() {
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpayFor(amount)))
    const created = yield* PaymentIntents.create(yield* context("req_d11", merchant), params)
    const id = (JSON.parse(created.body) as { id: string }).id
    const stored = yield* intent(id)
    return { id, providerPaymentId: stored.providerPaymentId!, amount }
  })

/** The intent as stored. */
export const intent = (id: string) => Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, id)).pipe(Effect.map(Option.getOrThrow))

/** A simulator event, signed now (by the clock) with the simulator's test secret, as the route receives it. */
export const signed = (event: Simulator.SimulatorEvent, secret?: string) =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const body = JSON.stringify(event)
    return {
      headers: { [Simulator.signatureHeader]: Simulator.signNotification({ body, secret, timestamp: Math.floor(now / 1000) }) },
      body: new TextEncoder().encode(body)
    }
  })

/** Receive a simulator event as the route of provider `code` does. */
export const notify = (event: Simulator.SimulatorEvent, code: string = Simulator.code) =>
  Effect.flatMap(signed(event), (request) => ProviderNotifications.receive(code, request))

let events = 0
/** A fresh provider event id. */
export const eventId = () => `evt_sim_${Date.now().toString(36)}_${++events}_${Math.random().toString(36).slice(2, 8)}`

export const paymentEvent = (
  type: string,
  p: { readonly id: string; readonly providerPaymentId: string; readonly amount: string },
  extra: Partial<NonNullable<Simulator.SimulatorEvent["data"]>> = {}
) => ({
  id: eventId(),
  type,
  data: { payment_intent: p.id, provider_payment_id: p.providerPaymentId, amount: p.amount, currency: "THB", ...extra }
})

/** The stored notice of a simulator event (received at provider `code`). */
export const stored = (id: string, code: string = Simulator.code) =>
  Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, ProviderNotification.recordId(code, id)))

/** The apply tasks written for a stored notice. */
export const applyTasks = (id: string, environment: "test" | "live" = "test") =>
  Effect.flatMap(
    Storage.Storage,
    (s) =>
      s.list(Task.table, {
        merchantId: ProviderNotification.noMerchant,
        environment,
        where: { resourceId: ProviderNotification.recordId(Simulator.code, id) },
        limit: 100
      })
  )

export const work = Workers.drain({ owner: "d11" })
export const eventTypes = (id: string, of: typeof scope | typeof pushScope = scope) => Effect.map(Event.forResource(of, id), (es) => es.map((e) => e.type))

/** How many notices of `notice` ended as `outcome` (the counter of D11), so far in this process. */
export const counted = (notice: string, outcome: string) =>
  Metric.value(Metric.taggedWithLabels(Telemetry.metrics.providerNotices, [
    MetricLabel.make("provider", Simulator.code),
    MetricLabel.make("notice", notice),
    MetricLabel.make("outcome", outcome)
  ])).pipe(Effect.map((state) => state.count as number))
