/**
 * Webhook delivery (D7, Standard Webhooks): a delivery task per (event, endpoint) is written
 * in the same commit as the event; a worker runs it: sign the D7 envelope with every valid
 * secret of the endpoint, POST it, and record the attempt. Any 2xx within the timeout is
 * success; anything else is retried with growing back-off and jitter over about a day, then
 * marked failed. At least once: a delivery may repeat (after a crash, or a 2xx lost on the
 * way back); receivers deduplicate by `webhook-id` (the event id). Order is not promised.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import * as Event from "../events/Event.js"
import * as Telemetry from "../observability/Telemetry.js"
import { IdGenerator } from "../resources/Ids.js"
import type { Scope } from "../storage/Storage.js"
import { Storage, Write } from "../storage/Storage.js"
import * as Table from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import { WebhookConfig } from "./WebhookConfig.js"
import * as WebhookEndpoint from "./WebhookEndpoint.js"
import * as WebhookHealth from "./WebhookHealth.js"
import * as WebhookSignature from "./WebhookSignature.js"
import type { DeliveryRequest, DeliveryResponse } from "./WebhookTransport.js"
import { WebhookTransport } from "./WebhookTransport.js"

// ---------------------------------------------------------------------------
// Attempts
// ---------------------------------------------------------------------------

/** One delivery attempt, as recorded for the host's delivery log. @since 0.1.0 @category models */
export const AttemptRecord = Schema.Struct({
  ...Table.scopeFields,
  endpointId: Schema.String,
  eventId: Schema.String,
  /** What was sent: the event's type and the URL it went to (null in attempts recorded before migration 0011). */
  eventType: Table.OrNull(Schema.String),
  url: Table.OrNull(Schema.String),
  /** 1 for the first attempt. */
  attempt: Table.Integer,
  /** The HTTP status answered, or null when none came. */
  statusCode: Table.OrNull(Table.Integer),
  durationMillis: Table.Integer,
  /** Why there was no 2xx: the status, a timeout, a refused connection. Null on success. */
  error: Table.OrNull(Schema.String),
  createdAt: Table.Millis,
  version: Table.Integer
})
/** @since 0.1.0 @category models */
export type AttemptRecord = typeof AttemptRecord.Type

/** The id prefix of attempts. @since 0.1.0 */
export const attemptIdPrefix = "wha_"

/** How attempts are stored. @since 0.1.0 @category models */
export const attemptTable = Table.make({
  name: "webhook_attempts",
  idPrefix: attemptIdPrefix,
  record: AttemptRecord,
  retention: { from: "createdAt" }
})

/**
 * A merchant's delivery attempts, newest first, optionally of one endpoint or one event: the
 * host's delivery log.
 *
 * @since 0.1.0
 */
export const attempts = (scope: Scope, options: {
  readonly endpointId?: string | undefined
  readonly eventId?: string | undefined
  readonly limit?: number | undefined
} = {}) =>
  Effect.flatMap(Storage, (storage) =>
    storage.list(attemptTable, {
      ...scope,
      where: { endpointId: options.endpointId, eventId: options.eventId },
      limit: options.limit ?? 100
    }))

// ---------------------------------------------------------------------------
// The schedule
// ---------------------------------------------------------------------------

/**
 * The wait after each failed attempt: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h
 * and 8 h, about 24 h in all; each with up to ±10 % jitter. After the last, the delivery is
 * marked failed.
 *
 * @since 0.1.0
 */
export const retrySchedule: ReadonlyArray<number> = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800]
  .map((s) => s * 1000)

/** How many attempts a delivery gets. @since 0.1.0 */
export const maxAttempts = retrySchedule.length + 1

const jittered = (millis: number) => Math.round(millis * (0.9 + 0.2 * Math.random()))

// ---------------------------------------------------------------------------
// The sender: limits and per-endpoint back-off, in this process
// ---------------------------------------------------------------------------

/** @since 0.1.0 @category models */
export interface SenderOptions {
  /** Deliveries in flight at once in this process. Default 16. */
  readonly concurrency?: number | undefined
  /** Deliveries in flight at once to one endpoint, in this process. Default 4. */
  readonly perEndpoint?: number | undefined
  /** How long a failing endpoint is first left alone, doubling to 1 h. Default 5 s (short in tests). */
  readonly endpointBackoffMillis?: number | undefined
}

/**
 * Sends deliveries within bounds: at most `concurrency` at once in the process and
 * `perEndpoint` to one endpoint, and an endpoint that keeps failing is left alone for a
 * while (its deliveries wait: 5 s doubling to 1 h after each consecutive failure, reset by a
 * success; attempts already in flight when one failed count as that failure), so a receiver
 * that is down for hours is not hammered by its backlog.
 *
 * @since 0.1.0 @category tags
 */
export class WebhookSender extends Context.Tag("@tender/core/WebhookSender")<WebhookSender, {
  /** When the endpoint may next be tried, if it is backing off now. */
  readonly blockedUntil: (endpointId: string, now: number) => number | undefined
  readonly send: (endpointId: string, request: DeliveryRequest) => Effect.Effect<DeliveryResponse>
}>() {}

/** The sender over the host's transport. @since 0.1.0 @category layers */
export const layerSender = (options: SenderOptions = {}): Layer.Layer<WebhookSender, never, WebhookTransport> =>
  Layer.effect(
    WebhookSender,
    Effect.gen(function*() {
      const transport = yield* WebhookTransport
      const global = yield* Effect.makeSemaphore(options.concurrency ?? 16)
      const perEndpoint = new Map<string, Effect.Semaphore>()
      // `at`: when the streak's last counted failure was seen. An attempt sent before it was in
      // flight beside that one: its failure is the same outage, not another (four concurrent
      // failures doubled the wait four times, so ten quick ones left a recovered receiver alone 43 min).
      const health = new Map<string, { failures: number; until: number; at: number }>()
      const semaphoreOf = (id: string) =>
        Effect.gen(function*() {
          const existing = perEndpoint.get(id)
          if (existing !== undefined) return existing
          const made = yield* Effect.makeSemaphore(options.perEndpoint ?? 4)
          perEndpoint.set(id, made)
          return made
        })
      return WebhookSender.of({
        blockedUntil: (id, now) => {
          const h = health.get(id)
          return h !== undefined && h.until > now ? h.until : undefined
        },
        send: (id, request) =>
          Effect.gen(function*() {
            const own = yield* semaphoreOf(id)
            const response = yield* global.withPermits(1)(own.withPermits(1)(Effect.zip(Clock.currentTimeMillis, transport.send(request))))
            const [sentAt, answer] = response
            const now = yield* Clock.currentTimeMillis
            if (answer._tag === "Answered" && answer.status >= 200 && answer.status < 300) {
              health.delete(id)
            } else {
              const before = health.get(id)
              // Sent after the failure counted last (a later try, once the wait was over): a new failure.
              if (before === undefined || sentAt > before.at) {
                const failures = (before?.failures ?? 0) + 1
                health.set(id, { failures, until: now + Math.min(3_600_000, (options.endpointBackoffMillis ?? 5_000) * 2 ** (failures - 1)), at: now })
              }
            }
            return answer
          })
      })
    })
  )

// ---------------------------------------------------------------------------
// Running a delivery
// ---------------------------------------------------------------------------

/**
 * Run one delivery task: sign and send the event, record the attempt, and settle the task.
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const sender = yield* WebhookSender
    const config = yield* WebhookConfig
    const scope = { merchantId: task.merchantId, environment: task.environment }
    if (task.targetId === null) return Task.done()
    const endpoint = yield* storage.get(WebhookEndpoint.table, scope, task.targetId)
    const event = yield* storage.get(Event.table, scope, task.resourceId)
    // An endpoint deleted or disabled since: no further deliveries to it (a resend after enabling recovers them).
    if (Option.isNone(endpoint) || endpoint.value.status !== "enabled" || Option.isNone(event)) return Task.done()
    const start = yield* Clock.currentTimeMillis
    const blocked = sender.blockedUntil(endpoint.value.id, start)
    // Held till then: the endpoint's room stays full, so claims pass its backlog by until the back-off ends.
    if (blocked !== undefined) return { _tag: "Defer", dueAt: blocked, hold: true } as const
    const body = JSON.stringify(Event.toEnvelope(event.value))
    const secrets = yield* WebhookEndpoint.signingSecrets(endpoint.value, start)
    const headers = {
      ...WebhookSignature.sign(secrets, { id: event.value.id, timestamp: Math.floor(start / 1000), body }),
      "content-type": "application/json",
      "user-agent": "Tender-Webhooks/0.1"
    }
    const response = yield* sender.send(endpoint.value.id, {
      url: endpoint.value.url,
      headers,
      body,
      timeoutMillis: config.timeoutMillis,
      // Test endpoints may be on a developer's machine (docs/webhooks.md, "URL rules").
      allowPrivateAddresses: task.environment === "test" || config.allowPrivateUrls
    }).pipe(Telemetry.webhookAttempt({ endpointId: endpoint.value.id, eventId: event.value.id, attempt: task.attempts }))
    const end = yield* Clock.currentTimeMillis
    const ok = response._tag === "Answered" && response.status >= 200 && response.status < 300
    const error = ok
      ? null
      : response._tag === "Answered"
      ? `answered ${response.status}`
      : response.reason
    // Auto-disable (WebhookHealth): best effort beside the attempt, which is recorded whatever happens here.
    yield* WebhookHealth.recordAttempt(endpoint.value, ok, start).pipe(
      Effect.catchAll((e) => Effect.logWarning("tender: recording a webhook endpoint's health failed", e))
    )
    const attempt = Write.insert(
      attemptTable,
      Table.construct(AttemptRecord, {
        id: yield* (yield* IdGenerator).make(attemptIdPrefix),
        ...scope,
        endpointId: endpoint.value.id,
        eventId: event.value.id,
        eventType: event.value.type,
        url: endpoint.value.url,
        attempt: task.attempts,
        statusCode: response._tag === "Answered" ? response.status : null,
        durationMillis: Math.max(0, end - start),
        error,
        createdAt: end,
        version: 1
      })
    )
    if (ok) return Task.done([attempt])
    const wait = retrySchedule[task.attempts - 1]
    return wait === undefined
      ? { _tag: "GiveUp", error: error ?? "failed", writes: [attempt] } as const
      : { _tag: "Retry", dueAt: end + jittered(wait), error, writes: [attempt] } as const
  })
