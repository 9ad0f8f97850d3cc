/**
 * What a merchant does with an endpoint beyond registering it: read its delivery
 * attempts, have events sent again (one, or every event since a time: Svix's recover), rotate
 * its secret with a window where both secrets sign, and enable it again after it was
 * disabled (`WebhookHealth`). docs/webhooks.md explains each to a merchant.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Schema } from "effect"
import * as Event from "../events/Event.js"
import * as Events from "../events/Events.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import * as Operation from "../requests/Operation.js"
import { RateLimited, ValidationFailed, WebhookEndpointDisabled } from "../resources/Errors.js"
import { isWellFormed, prefixes } from "../resources/Ids.js"
import * as Pagination from "../resources/Pagination.js"
import { DateTimeWithOffset, formatTimestamp, Timestamp, withMessage } from "../resources/Schemas.js"
import { scopeOf, Storage, Write } from "../storage/Storage.js"
import * as Task from "../storage/Task.js"
import { WebhookConfig } from "./WebhookConfig.js"
import * as WebhookDelivery from "./WebhookDelivery.js"
import * as WebhookEndpoint from "./WebhookEndpoint.js"
import * as WebhookSignature from "./WebhookSignature.js"

// ---------------------------------------------------------------------------
// Attempts
// ---------------------------------------------------------------------------

/** One delivery attempt as the merchant reads it. @since 0.1.0 @category wire */
export const WebhookAttempt = Schema.Struct({
  object: Schema.Literal("webhook_attempt"),
  id: Schema.String.annotations({ description: "Begins with wha_" }),
  webhook_endpoint: Schema.String,
  event: Schema.String.annotations({ description: "The event sent (evt_…): its webhook-id" }),
  event_type: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String).annotations({ description: "Where it was sent" }),
  attempt: Schema.Int.annotations({ description: "1 for the first attempt of this delivery" }),
  status_code: Schema.NullOr(Schema.Int).annotations({ description: "The receiver's HTTP status; null when none came" }),
  duration_ms: Schema.Int,
  error: Schema.NullOr(Schema.String).annotations({ description: "Why it was not a success; null on a 2xx" }),
  created_at: Timestamp
}).annotations({ identifier: "WebhookAttempt" })

/** @since 0.1.0 @category wire */
export const toAttempt = (a: WebhookDelivery.AttemptRecord): typeof WebhookAttempt.Type => ({
  object: "webhook_attempt",
  id: a.id,
  webhook_endpoint: a.endpointId,
  event: a.eventId,
  event_type: a.eventType,
  url: a.url,
  attempt: a.attempt,
  status_code: a.statusCode,
  duration_ms: a.durationMillis,
  error: a.error,
  created_at: formatTimestamp(a.createdAt)
})

/** GET /webhook_endpoints/{id}/attempts query: optionally one event's, the creation window, the page (D6). @since 0.1.0 @category request */
export const AttemptsParams = Pagination.listParams({
  event: Schema.optional(Schema.String.annotations({ description: "Only the attempts of this event (evt_…)" })),
  ...Pagination.createdFields
})

/** GET /webhook_endpoints/{id}/attempts: the endpoint's attempts, newest first (D6). @since 0.1.0 */
export const attempts = (principal: Principal, id: string, params: typeof AttemptsParams.Type) =>
  Effect.gen(function*() {
    const endpoint = yield* WebhookEndpoint.load(principal, id)
    if (params.event !== undefined && !isWellFormed(prefixes.event, params.event)) {
      return yield* ValidationFailed.at("event", "event must be an event id: evt_ followed by 24 letters and digits")
    }
    const { limit, query } = yield* Pagination.window(params, WebhookDelivery.attemptIdPrefix)
    const rows = yield* (yield* Storage).list(WebhookDelivery.attemptTable, {
      ...scopeOf(principal),
      ...query,
      where: { endpointId: endpoint.id, eventId: params.event }
    })
    return Pagination.page(rows, limit, toAttempt)
  })

// ---------------------------------------------------------------------------
// Resend
// ---------------------------------------------------------------------------

/** The most events one resend queues: a wider window is sent in parts (`until`). @since 0.1.0 */
export const maxResend = 1000

/** POST /webhook_endpoints/{id}/resend body: `event`, or `since` (and optionally `until`). @since 0.1.0 @category request */
export const ResendParams = Schema.Struct({
  event: Schema.optional(Schema.String.annotations({ description: "Send this event (evt_…) again" })),
  since: Schema.optional(
    DateTimeWithOffset.annotations({ description: "Send again every event created at or after this time that the endpoint is subscribed to" })
  ),
  until: Schema.optional(DateTimeWithOffset.annotations({ description: "With since: only events created before this time" }))
}).annotations({ identifier: "WebhookResendParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type ResendParams = typeof ResendParams.Type

/** The answer to a resend: how many deliveries were queued. @since 0.1.0 @category wire */
export const WebhookResend = Schema.Struct({
  object: Schema.Literal("webhook_resend"),
  webhook_endpoint: Schema.String,
  queued: Schema.Int.annotations({
    description:
      "Deliveries queued, one per event; an event already queued to the endpoint is not queued twice: one waiting for a retry is sent now instead and counts here"
  })
}).annotations({ identifier: "WebhookResend" })

/** The events a resend names, checked: in the caller's scope, of types the endpoint wants. */
const resendEvents = (endpoint: WebhookEndpoint.WebhookEndpointRecord, params: ResendParams) =>
  Effect.gen(function*() {
    const scope = { merchantId: endpoint.merchantId, environment: endpoint.environment }
    if (params.event === undefined && params.since === undefined) {
      return yield* ValidationFailed.at("event", "Give event (one event) or since (every event since a time).")
    }
    if (params.event !== undefined && params.since !== undefined) {
      return yield* ValidationFailed.at("event", "Give either event (one event) or since (every event since a time), not both.")
    }
    if (params.event !== undefined) {
      if (params.until !== undefined) return yield* ValidationFailed.at("until", "until goes with since, not with event.")
      const event = yield* Events.load(scope, params.event, "event")
      if (!WebhookEndpoint.wants({ ...endpoint, status: "enabled" }, event.type)) {
        return yield* ValidationFailed.at("event", `The endpoint is not subscribed to ${event.type} events.`)
      }
      return [event]
    }
    // An empty or backwards window is a mistake in the request, not "nothing to send" (D1).
    if (params.until !== undefined && Date.parse(params.until) <= Date.parse(params.since!)) {
      return yield* ValidationFailed.at("until", "until must be later than since.")
    }
    const storage = yield* Storage
    const types = endpoint.enabledEvents.includes("*") ? undefined : endpoint.enabledEvents
    const found: Array<Event.EventRecord> = []
    let after: Pagination.Position | undefined
    // Page through the window (newest first, as every list), reading one row past the cap to know it was passed.
    while (found.length <= maxResend) {
      const rows = yield* storage.list(Event.table, {
        ...scope,
        where: { type: types },
        createdAfter: Date.parse(params.since!),
        createdBefore: params.until === undefined ? undefined : Date.parse(params.until),
        after,
        limit: 100
      })
      found.push(...rows)
      if (rows.length < 100) break
      after = rows[rows.length - 1]
    }
    if (found.length > maxResend) {
      return yield* ValidationFailed.at(
        "since",
        `More than ${maxResend} events match; resend them in parts, with until to bound each part.`
      )
    }
    return found
  })

/** The window of the resend bound: an hour from the first resend in it. @since 0.1.0 */
export const resendWindowMillis = 60 * 60 * 1000

/** Of `events`, the deliveries to the endpoint queued already (pending: waiting, retrying or in flight), by event id. */
const alreadyQueued = (endpoint: WebhookEndpoint.WebhookEndpointRecord, events: ReadonlyArray<Event.EventRecord>) =>
  events.length === 0 ? Effect.succeed(new Map<string, Task.TaskRecord>()) : Effect.flatMap(Storage, (storage) =>
    storage.list(Task.table, {
      merchantId: endpoint.merchantId,
      environment: endpoint.environment,
      where: { kind: "webhook.deliver", status: "pending", targetId: endpoint.id, resourceId: events.map((e) => e.id) },
      limit: events.length
    })).pipe(Effect.map((tasks) => new Map(tasks.map((t) => [t.resourceId, t]))))

/** A queued delivery waiting for a later retry, and not in flight: made due now instead of queued twice. */
const broughtForward = (task: Task.TaskRecord, now: number): Task.TaskRecord | undefined =>
  task.dueAt > now && (task.leaseUntil === null || task.leaseUntil <= now)
    ? { ...task, dueAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now, version: task.version + 1 }
    : undefined

/**
 * The endpoint with `count` more deliveries counted against its resend bound, or the 429 when
 * they would pass it: at most `resendsPerHour` in the hour from the first resend of the window.
 */
const counted = (endpoint: WebhookEndpoint.WebhookEndpointRecord, count: number, now: number) =>
  Effect.gen(function*() {
    const { resendsPerHour } = yield* WebhookConfig
    const open = endpoint.resendWindowStartedAt !== null && now < endpoint.resendWindowStartedAt + resendWindowMillis
    const startedAt = open ? endpoint.resendWindowStartedAt! : now
    const used = open ? endpoint.resendsInWindow ?? 0 : 0
    if (count > resendsPerHour) {
      return yield* ValidationFailed.at(
        "since",
        `This resend would queue ${count} deliveries, more than the ${resendsPerHour} an endpoint may be sent again in an hour; send it in parts, with until.`
      )
    }
    if (used + count > resendsPerHour) {
      return yield* RateLimited.after((startedAt + resendWindowMillis - now) / 1000, {
        param: "id",
        message:
          `Resends to this endpoint queued ${used} of the ${resendsPerHour} deliveries allowed in an hour; this one would queue ${count}. Retry after the time in Retry-After, or resend fewer events.`
      })
    }
    return { ...endpoint, resendWindowStartedAt: startedAt, resendsInWindow: used + count, version: endpoint.version + 1 }
  })

/**
 * POST /webhook_endpoints/{id}/resend: queue a delivery of one event, or of every event since
 * a time the endpoint is subscribed to, whether or not it was delivered before (at least once:
 * receivers deduplicate on `webhook-id`). The deliveries run and retry as any other. An event
 * whose delivery to the endpoint is queued already is not queued again (one waiting for a retry
 * is made due now), and resends queue at most `resendsPerHour` new deliveries to one endpoint an
 * hour (429 `rate_limited` past it).
 *
 * @since 0.1.0
 */
export const resend = (context: Operation.RequestContext, id: string, params: ResendParams) =>
  Operation.run({
    context,
    route: "POST /webhook_endpoints/{id}/resend",
    canonical: { id, ...params },
    resource: "webhook endpoint",
    decide: Effect.gen(function*() {
      const endpoint = yield* WebhookEndpoint.load(context.principal, id)
      if (endpoint.status === "disabled") {
        return yield* new WebhookEndpointDisabled({
          param: "id",
          message: "The endpoint is disabled; enable it (POST /webhook_endpoints/{id}/enable), then resend."
        })
      }
      const named = yield* resendEvents(endpoint, params)
      const queued = yield* alreadyQueued(endpoint, named)
      const events = named.filter((e) => !queued.has(e.id))
      const now = yield* Clock.currentTimeMillis
      // Versioned: a worker claiming one meanwhile makes this decide again.
      const sooner = [...queued.values()].flatMap((t) => {
        const next = broughtForward(t, now)
        return next === undefined ? [] : [Write.update(Task.table, next, t.version)]
      })
      // The endpoint's count is a versioned write in the same commit: two racing resends are one
      // after the other, and the second decides again seeing the first's deliveries queued.
      const bounded = events.length === 0 ? undefined : yield* counted(endpoint, events.length, now)
      const tasks = yield* Effect.forEach(events, (event) =>
        Task.make({
          merchantId: endpoint.merchantId,
          environment: endpoint.environment,
          kind: "webhook.deliver",
          resourceId: event.id,
          targetId: endpoint.id,
          dueAt: now,
          now
        }))
      return {
        response: ApiResponse.json(200, { object: "webhook_resend", webhook_endpoint: endpoint.id, queued: tasks.length + sooner.length }, context.requestId),
        writes: [
          ...(bounded === undefined ? [] : [Write.update(WebhookEndpoint.table, bounded, endpoint.version)]),
          ...sooner,
          ...tasks.map((t) => Write.insert(Task.table, t))
        ]
      }
    })
  })

// ---------------------------------------------------------------------------
// Secret rotation
// ---------------------------------------------------------------------------

/** The longest window the old secret may keep signing: 7 days. @since 0.1.0 */
export const maxExpiresInSeconds = 7 * 24 * 60 * 60

/** The window when `expires_in` is absent: 24 hours. @since 0.1.0 */
export const defaultExpiresInSeconds = 24 * 60 * 60

/** POST /webhook_endpoints/{id}/rotate_secret body (optional). @since 0.1.0 @category request */
export const RotateParams = Schema.Struct({
  expires_in: Schema.optional(
    withMessage(
      Schema.Int.pipe(Schema.between(0, maxExpiresInSeconds)),
      `must be an integer number of seconds from 0 to ${maxExpiresInSeconds}`
    ).annotations({ description: "Seconds the old secret keeps signing beside the new one; default 86400 (24 h), 0 to stop it now" })
  )
}).annotations({ identifier: "WebhookRotateSecretParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type RotateParams = typeof RotateParams.Type

/** The answer to a rotation: the endpoint, its new secret (shown this once), and when the old one stops signing. @since 0.1.0 @category wire */
export const WebhookEndpointRotated = Schema.Struct({
  ...WebhookEndpoint.WebhookEndpointCreated.fields,
  previous_secret_expires_at: Schema.NullOr(Timestamp).annotations({ description: "When the secret before this one stops signing; null if none still signs" })
}).annotations({ identifier: "WebhookEndpointRotated" })

/**
 * POST /webhook_endpoints/{id}/rotate_secret: a new secret signs from now on; the secrets that
 * signed before keep signing beside it for `expires_in` seconds (default 24 h), so every
 * delivery in that window carries one `v1,` signature per secret (Standard Webhooks).
 *
 * @since 0.1.0
 */
export const rotate = (context: Operation.RequestContext, id: string, params: RotateParams) =>
  Operation.run({
    context,
    route: "POST /webhook_endpoints/{id}/rotate_secret",
    canonical: { id, expires_in: params.expires_in ?? defaultExpiresInSeconds },
    resource: "webhook endpoint",
    decide: Effect.gen(function*() {
      const endpoint = yield* WebhookEndpoint.load(context.principal, id)
      const config = yield* WebhookConfig
      const now = yield* Clock.currentTimeMillis
      const secret = WebhookSignature.newSecret()
      const next = WebhookEndpoint.rotated(endpoint, config.encrypt(secret), now, (params.expires_in ?? defaultExpiresInSeconds) * 1000)
      const previous = next.secrets.slice(1).map((s) => s.expiresAt ?? now)
      const body = {
        ...WebhookEndpoint.toResource(next),
        secret,
        previous_secret_expires_at: previous.length === 0 ? null : formatTimestamp(Math.max(...previous))
      }
      return { response: ApiResponse.json(200, body, context.requestId), writes: [Write.update(WebhookEndpoint.table, next, endpoint.version)] }
    })
  })

// ---------------------------------------------------------------------------
// Enable
// ---------------------------------------------------------------------------

/**
 * POST /webhook_endpoints/{id}/enable: an endpoint disabled after failing (`WebhookHealth`) is
 * sent events again, from the next one on; what it missed is sent with a resend. Enabling an
 * enabled endpoint changes nothing.
 *
 * @since 0.1.0
 */
export const enable = (context: Operation.RequestContext, id: string) =>
  Operation.run({
    context,
    route: "POST /webhook_endpoints/{id}/enable",
    canonical: { id },
    resource: "webhook endpoint",
    decide: Effect.gen(function*() {
      const endpoint = yield* WebhookEndpoint.load(context.principal, id)
      if (endpoint.status === "enabled") return { response: ApiResponse.json(200, WebhookEndpoint.toResource(endpoint), context.requestId), writes: [] }
      const now = yield* Clock.currentTimeMillis
      const next = { ...endpoint, status: "enabled" as const, failingSince: null, updatedAt: now, version: endpoint.version + 1 }
      return {
        response: ApiResponse.json(200, WebhookEndpoint.toResource(next), context.requestId),
        writes: [Write.update(WebhookEndpoint.table, next, endpoint.version)]
      }
    })
  })
