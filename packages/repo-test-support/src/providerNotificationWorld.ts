/**
 * The world of the D11 suite (providerNotifications.ts): its merchant, services, intents and signed
 * simulator events, and the reads its cases check.
 */
import type { Merchants, Storage as StoragePort, Task as TaskPort } from "@tender/core"
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

/** One merchant with the simulator's methods in test. */
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
  }]
}

/** Every service on `storage`, the simulator installed. */
export const services = <E>(storage: Layer.Layer<StoragePort.Storage | TaskPort.Tasks | Merchants.Merchants, E>) =>
  L.orDie(Tender.layer({ seed, hostedCheckout: { baseUrl: "https://pay.example.test", secret: "d11-checkout-secret" } }, storage)).pipe(
    // Mismatches are logged by design (D11): the test output stays clean.
    L.provideMerge(Logger.replace(Logger.defaultLogger, Logger.none))
  )

const principal = Authentication.authenticate({ publicKey: key.public, secretKey: key.secret })
export const context = (requestId: string) => Effect.map(principal, (p) => ({ principal: p, requestId }))

/** A PromptPay intent awaiting its payer, with the payment id the simulator gave it. */
export const createIntent = (amount = "150000") =>
  Effect.gen(function*() {
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpayFor(amount)))
    const created = yield* PaymentIntents.create(yield* context("req_d11"), params)
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

/** Receive a simulator event as the route does. */
export const notify = (event: Simulator.SimulatorEvent) => Effect.flatMap(signed(event), (request) => ProviderNotifications.receive(Simulator.code, request))

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

/** The stored notice of a simulator event. */
export const stored = (id: string) =>
  Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, ProviderNotification.recordId(Simulator.code, id)))

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
export const eventTypes = (id: string) => Effect.map(Event.forResource(scope, id), (es) => es.map((e) => e.type))

/** How many notices of `notice` ended as `outcome` (the counter of D11), so far in this process. */
export const counted = (notice: string, outcome: string) =>
  Metric.value(Metric.taggedWithLabels(Telemetry.metrics.providerNotices, [
    MetricLabel.make("provider", Simulator.code),
    MetricLabel.make("notice", notice),
    MetricLabel.make("outcome", outcome)
  ])).pipe(Effect.map((state) => state.count as number))
