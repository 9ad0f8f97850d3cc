/**
 * What feeds Tender's metrics from its stores (docs/observability.md): payment intents
 * counted when the commit that creates or finishes them applies, and the gauges that need a
 * store query (task backlog, undelivered webhooks) or the breakers' state, sampled on an
 * interval (never per request). `Tender.layer` wires both; the sampler only when the host
 * turns telemetry on (`TenderOptions.telemetry`).
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import * as Event from "../events/Event.js"
import * as PaymentIntent from "../paymentIntents/PaymentIntent.js"
import { RouteHealth } from "../routing/RouteHealth.js"
import * as Background from "../runtime/Background.js"
import { Storage } from "../storage/Storage.js"
import type { Write } from "../storage/Storage.js"
import * as Task from "../storage/Task.js"
import * as Telemetry from "./Telemetry.js"

/** @since 0.1.0 @category models */
export interface TelemetryOptions {
  /** How often the gauges are sampled (one backlog query per interval). Default 15 s. */
  readonly gaugeIntervalMillis?: number | undefined
}

/** The status events that say an intent reached a final status (3.1). */
const finishing = new Set<string>(["payment_intent.succeeded", "payment_intent.failed", "payment_intent.expired", "payment_intent.canceled"])

/**
 * Count the payment intents a commit creates and finishes: an intent inserted is created; an
 * intent whose final status event is written in the commit finished (a final status is entered
 * once, 3.1, so each intent is counted once whatever else later updates it).
 *
 * @since 0.1.0
 */
export const countPayments = (writes: ReadonlyArray<Write>) =>
  Effect.suspend(() => {
    const counted: Array<Effect.Effect<void>> = []
    for (const write of writes) {
      if (write._tag === "Insert" && write.table === PaymentIntent.table) {
        counted.push(Telemetry.paymentCreated(paymentOf(write.record as PaymentIntent.PaymentIntentRecord)))
      }
      if (write._tag === "Insert" && write.table === Event.table) {
        const event = write.record as Event.EventRecord
        if (!finishing.has(event.type)) continue
        const intent = writes.find((w) => (w._tag === "Insert" || w._tag === "Update") && w.table === PaymentIntent.table && w.record.id === event.resourceId)
        if (intent !== undefined && (intent._tag === "Insert" || intent._tag === "Update")) {
          counted.push(Telemetry.paymentFinished(paymentOf(intent.record as PaymentIntent.PaymentIntentRecord)))
        }
      }
    }
    return counted.length === 0 ? Effect.void : Effect.all(counted, { discard: true })
  })

const paymentOf = (intent: PaymentIntent.PaymentIntentRecord): Telemetry.PaymentLike => ({
  paymentMethod: intent.paymentMethod ?? "none",
  provider: intent.providerCode,
  status: intent.status
})

/**
 * `Storage` whose commits count payment intents (`countPayments`) once they apply, over the
 * store it is given.
 *
 * @since 0.1.0 @category layers
 */
export const layerCountingStorage: Layer.Layer<Storage, never, Storage> = Layer.effect(
  Storage,
  Effect.map(Storage, (storage) => Storage.of({ ...storage, commit: (writes) => Effect.tap(storage.commit(writes), () => countPayments(writes)) }))
)

const routeStates = { closed: 0, open: 1, down: 2 } as const

/**
 * Sample the gauges once: the task backlog (one store query) and every known route's state.
 * A store that fails is logged; the gauges keep their last values.
 *
 * @since 0.1.0
 */
export const sampleGauges: Effect.Effect<void, never, Task.Tasks | RouteHealth> = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  const backlog = yield* Effect.either((yield* Task.Tasks).backlog(now))
  if (backlog._tag === "Right") {
    const b = backlog.right
    yield* Telemetry.record(Telemetry.metrics.tasksDue, b.due, {})
    yield* Telemetry.record(Telemetry.metrics.tasksOldestDueAge, b.oldestDueAt === undefined ? 0 : Math.max(0, now - b.oldestDueAt), {})
    yield* Telemetry.record(Telemetry.metrics.webhooksUndelivered, b.undeliveredWebhooks, {})
    yield* Telemetry.record(
      Telemetry.metrics.webhooksOldestUndeliveredAge,
      b.oldestUndeliveredAt === undefined ? 0 : Math.max(0, now - b.oldestUndeliveredAt),
      {}
    )
  } else {
    yield* Effect.logWarning("tender: sampling the task backlog failed", backlog.left)
  }
  for (const route of yield* (yield* RouteHealth).snapshot) {
    yield* Telemetry.record(Telemetry.metrics.routeState, routeStates[route.state], { route: route.id, provider: route.provider })
  }
})

/**
 * The gauge sampler: samples at once, then every `gaugeIntervalMillis`, for as long as the
 * layer lives.
 *
 * @since 0.1.0 @category layers
 */
export const layerGauges = (options: TelemetryOptions = {}): Layer.Layer<never, never, Task.Tasks | RouteHealth> =>
  // Its timers never hold the host's process open (Background).
  Layer.scopedDiscard(Background.unrefTimers(
    Effect.forkScoped(
      Effect.repeat(sampleGauges, Schedule.spaced(Duration.millis(options.gaugeIntervalMillis ?? 15_000)))
    )
  ))
