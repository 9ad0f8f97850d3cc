/**
 * Traces and metrics (docs/observability.md). Tender writes its spans with Effect's tracer
 * (`Effect.withSpan`) and its metrics with Effect's `Metric`, both in `effect` itself: a host
 * that wants them exported provides a tracer and a metric reader (`@effect/opentelemetry`'s
 * `NodeSdk.layer`, or `@tender/http/OpenTelemetry`); a host that does not pays for no
 * exporter and no OpenTelemetry package. Attributes name resources by id, route and status
 * only: never a key, a secret, a signature, or a payer's personal data.
 *
 * @since 0.1.0
 */
import type { Tracer } from "effect"
import { Cause, Clock, Effect, Exit, Metric, MetricBoundaries, MetricLabel, Option } from "effect"

/** The span and metric names, one place for docs and tests. @since 0.1.0 */
export const names = {
  providerCall: "tender.provider.call",
  taskRun: "tender.task.run",
  webhookAttempt: "tender.webhook.attempt",
  httpRequests: "tender.http.server.requests",
  httpDuration: "tender.http.server.duration",
  paymentsCreated: "tender.payments.created",
  paymentsFinished: "tender.payments.finished",
  providerDuration: "tender.provider.call.duration",
  routeState: "tender.route.state",
  tasksDue: "tender.tasks.due",
  tasksOldestDueAge: "tender.tasks.oldest_due_age",
  webhookAttempts: "tender.webhook.attempts",
  webhooksUndelivered: "tender.webhooks.undelivered",
  webhooksOldestUndeliveredAge: "tender.webhooks.oldest_undelivered_age",
  providerNotices: "tender.provider.notices",
  providerMismatches: "tender.provider.mismatches"
} as const

/** Milliseconds, 1 ms to ~65 s: request, provider and task latencies. */
const latency = MetricBoundaries.exponential({ start: 1, factor: 2, count: 17 })

/**
 * The labels a metric of `metrics` always carries (its unit), by the metric `ms` returned: `record`
 * tags the untagged metric with these and the request's own at once (see `record`).
 */
const constantLabels = new WeakMap<
  Metric.Metric<any, any, any>,
  { readonly base: Metric.Metric<any, any, any>; readonly labels: ReadonlyArray<MetricLabel.MetricLabel> }
>()

const ms = <T extends Metric.Metric<any, any, any>>(metric: T): T => {
  const labels = [MetricLabel.make("unit", "ms")]
  const tagged = Metric.taggedWithLabels(metric, labels) as T
  constantLabels.set(tagged, { base: metric, labels })
  return tagged
}

/** The metrics, as Effect `Metric`s (exported by whatever reader the host installs). @since 0.1.0 @category metrics */
export const metrics = {
  /** Requests answered, tagged `http.route`, `http.request.method`, `http.response.status_code`. */
  httpRequests: Metric.counter(names.httpRequests, { description: "HTTP requests answered by Tender", incremental: true }),
  /** Time to answer a request, tagged as `httpRequests`. */
  httpDuration: ms(Metric.histogram(names.httpDuration, latency, "Time to answer an HTTP request (ms)")),
  /** Payment intents created, tagged `payment_method`, `provider`, `status`. */
  paymentsCreated: Metric.counter(names.paymentsCreated, { description: "Payment intents created", incremental: true }),
  /** Payment intents reaching a final status, tagged `payment_method`, `provider`, `status`. */
  paymentsFinished: Metric.counter(names.paymentsFinished, { description: "Payment intents that reached a final status", incremental: true }),
  /** Provider call latency, tagged `provider`, `operation`, `outcome` (`ok`, `unavailable`, `timeout`). */
  providerDuration: ms(Metric.histogram(names.providerDuration, latency, "Time a provider took to answer (ms)")),
  /** A route's breaker: 0 closed (in use), 1 open (tripped by failures), 2 down (the host's flag); tagged `route`, `provider`. */
  routeState: Metric.gauge(names.routeState, { description: "Route state: 0 closed, 1 open (breaker tripped), 2 down (host flag)" }),
  /** Pending tasks due now (queue depth). */
  tasksDue: Metric.gauge(names.tasksDue, { description: "Pending tasks due now" }),
  /** How long the oldest due task has waited past its due time. */
  tasksOldestDueAge: ms(Metric.gauge(names.tasksOldestDueAge, { description: "Age of the oldest due task (ms)" })),
  /** Webhook delivery attempts, tagged `outcome` (`delivered`, `failed`, `unreachable`). */
  webhookAttempts: Metric.counter(names.webhookAttempts, { description: "Webhook delivery attempts", incremental: true }),
  /** Deliveries not yet made (pending webhook tasks). */
  webhooksUndelivered: Metric.gauge(names.webhooksUndelivered, { description: "Webhook deliveries still pending" }),
  /** Age of the oldest event with a delivery still pending. */
  webhooksOldestUndeliveredAge: ms(Metric.gauge(names.webhooksOldestUndeliveredAge, { description: "Age of the oldest undelivered event (ms)" })),
  /**
   * Provider notices applied (D11), tagged `provider`, `notice` (`PaymentSucceeded`, …) and
   * `outcome` (`applied`, `unchanged`, `unmatched`, `mismatch`, `ignored`): a `mismatch` is a
   * payment the provider reports with another amount or currency than the intent's.
   */
  providerNotices: Metric.counter(names.providerNotices, { description: "Provider notices applied, by outcome", incremental: true }),
  /**
   * Provider updates refused by the D11 guard (a payment reported succeeded with another amount or
   * currency than its intent's), tagged `provider` and `source` (`confirm`, `poll`, `receipt`,
   * `cancel`, `notification`), whichever way the provider said it.
   */
  providerMismatches: Metric.counter(names.providerMismatches, { description: "Provider updates refused for another amount or currency", incremental: true })
} as const

/** How many tag sets of one metric `record` keeps ready; the tags it is given are bounded sets (routes, methods, statuses). */
const maxTagSets = 1024

const tagged = new WeakMap<Metric.Metric<any, any, any>, Map<string, Metric.Metric<any, any, any>>>()

/**
 * `metric` with `tags`, made once per tag set. Effect finds a tagged metric's storage by the
 * identity of its label array (a `WeakMap`); a new array, as a fresh `taggedWithLabels` per
 * request made, builds and hashes a new key and looks it up in the global registry every time
 * (a visible share of an in-memory request). So each tag set is one
 * array, on the untagged metric: its constant labels first (the unit, in the order
 * `Metric.tagged` gave them), then the tags.
 */
const taggedWith = <In>(metric: Metric.Metric<any, In, any>, tags: Record<string, string>): Metric.Metric<any, In, any> => {
  const entries = Object.entries(tags)
  const key = entries.map(([k, v]) => `${k}\u0000${v}`).join("\u0001")
  let sets = tagged.get(metric)
  const found = sets?.get(key)
  if (found !== undefined) return found
  const constant = constantLabels.get(metric)
  const labels = [...(constant?.labels ?? []), ...entries.map(([k, v]) => MetricLabel.make(k, v))]
  const made = Metric.taggedWithLabels(constant?.base ?? metric, labels)
  if (sets === undefined) tagged.set(metric, sets = new Map())
  if (sets.size < maxTagSets) sets.set(key, made)
  return made
}

/** Record one value of `metric` with `tags`. @since 0.1.0 @category metrics */
export const record = <In>(metric: Metric.Metric<any, In, any>, value: In, tags: Record<string, string>) => Metric.update(taggedWith(metric, tags), value)

// ---------------------------------------------------------------------------
// Trace context carried by tasks (W3C traceparent)
// ---------------------------------------------------------------------------

/** The tracer every fiber has when the host installed none (Effect's own, which exports nothing). */
const defaultTracer: Tracer.Tracer = Effect.runSync(Effect.tracer)

/**
 * Whether `tracer` sends spans anywhere: false for Effect's default tracer, which every fiber
 * has when the host installed none and which keeps its spans only in memory.
 *
 * @since 0.1.0 @category tracing
 */
export const exportsSpans = (tracer: Tracer.Tracer): boolean => tracer !== defaultTracer

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/**
 * The W3C `traceparent` of the current span, for work that runs later (a task) to join this
 * trace. `null` when tracing is off (Effect's default tracer) or no span is open, so a host
 * that does not trace stores nothing.
 *
 * @since 0.1.0 @category tracing
 */
export const traceparent: Effect.Effect<string | null> = Effect.gen(function*() {
  if (!exportsSpans(yield* Effect.tracer)) return null
  const span = yield* Effect.option(Effect.currentParentSpan)
  if (Option.isNone(span)) return null
  const value = `00-${span.value.traceId}-${span.value.spanId}-${span.value.sampled ? "01" : "00"}`
  return traceparentPattern.test(value) ? value : null
})

/** The span a `traceparent` names, as a parent for a span in another process or later. @since 0.1.0 @category tracing */
export const fromTraceparent = (value: string | null): Tracer.ExternalSpan | undefined => {
  const match = value === null ? null : traceparentPattern.exec(value)
  if (match === null) return undefined
  return { _tag: "ExternalSpan", traceId: match[1]!, spanId: match[2]!, sampled: match[3] === "01", context: emptyContext }
}

const emptyContext = Effect.runSync(Effect.context<never>())

// ---------------------------------------------------------------------------
// Spans
// ---------------------------------------------------------------------------

/**
 * A provider call: span `tender.provider.call` (kind client) and the latency histogram, by
 * provider, operation and outcome.
 *
 * @since 0.1.0 @category tracing
 */
export const providerCall =
  (provider: string, operation: string) => <A, E extends { readonly reason?: string }, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const exit = yield* Effect.exit(effect)
      const end = yield* Clock.currentTimeMillis
      const outcome = Exit.isSuccess(exit)
        ? "ok"
        : Option.match(Cause.failureOption(exit.cause), {
          onNone: () => "error",
          onSome: (e) => e.reason === "timed out" ? "timeout" : "unavailable"
        })
      yield* Effect.annotateCurrentSpan("tender.outcome", outcome)
      yield* record(metrics.providerDuration, end - start, { provider, operation, outcome })
      return yield* exit
    }).pipe(Effect.withSpan(names.providerCall, {
      kind: "client",
      captureStackTrace: false,
      attributes: { "tender.provider": provider, "tender.provider.operation": operation }
    }))

/** What a task run's span needs of the task. @since 0.1.0 @category models */
export interface TaskLike {
  readonly id: string
  readonly kind: string
  readonly merchantId: string
  readonly resourceId: string
  readonly attempts: number
  readonly traceparent: string | null
}

/**
 * A task run: span `tender.task.run` (kind consumer), child of the span that wrote the task
 * (its stored `traceparent`), so a confirm's worker run, its provider call and the webhook
 * deliveries it causes join the request's trace.
 *
 * @since 0.1.0 @category tracing
 */
export const taskRun = (task: TaskLike) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const parent = fromTraceparent(task.traceparent)
  return Effect.withSpan(effect, names.taskRun, {
    kind: "consumer",
    captureStackTrace: false,
    ...(parent === undefined ? { root: true } : { parent }),
    attributes: {
      "tender.task.id": task.id,
      "tender.task.kind": task.kind,
      "tender.task.attempt": task.attempts,
      "tender.merchant_id": task.merchantId,
      "tender.resource_id": task.resourceId
    }
  })
}

/** A delivery's answer, as the transport reports it. */
type Answer = { readonly _tag: "Answered"; readonly status: number } | { readonly _tag: string }

/**
 * A webhook attempt: span `tender.webhook.attempt` (kind client) and the attempts counter by
 * outcome. The URL, headers, body and signature are never attributes.
 *
 * @since 0.1.0 @category tracing
 */
export const webhookAttempt =
  (attributes: { readonly endpointId: string; readonly eventId: string; readonly attempt: number }) =>
  <A extends Answer, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.tap(effect, (answer) => {
      const status = answer._tag === "Answered" && "status" in answer ? answer.status : undefined
      const outcome = status === undefined ? "unreachable" : status >= 200 && status < 300 ? "delivered" : "failed"
      return Effect.zipRight(
        Effect.annotateCurrentSpan({ "tender.outcome": outcome, ...(status === undefined ? {} : { "http.response.status_code": status }) }),
        record(metrics.webhookAttempts, 1, { outcome })
      )
    }).pipe(Effect.withSpan(names.webhookAttempt, {
      kind: "client",
      captureStackTrace: false,
      attributes: {
        "tender.webhook_endpoint_id": attributes.endpointId,
        "tender.event_id": attributes.eventId,
        "tender.webhook.attempt": attributes.attempt
      }
    }))

/** Count a created payment intent. @since 0.1.0 @category metrics */
export const paymentCreated = (intent: PaymentLike) => record(metrics.paymentsCreated, 1, paymentTags(intent))

/** Count a payment intent that reached a final status. @since 0.1.0 @category metrics */
export const paymentFinished = (intent: PaymentLike) => record(metrics.paymentsFinished, 1, paymentTags(intent))

/** What the payment counters read of an intent. @since 0.1.0 @category models */
export interface PaymentLike {
  readonly paymentMethod: string
  readonly provider: string | null
  readonly status: string
}

const paymentTags = (intent: PaymentLike) => ({ payment_method: intent.paymentMethod, provider: intent.provider ?? "none", status: intent.status })
