/**
 * Events (D7): every change of a resource is recorded as an event, written in the same
 * atomic commit as the change, so no change is ever without its event and no event without
 * its change. Events are stored resources of their own, read through `Events`; delivering
 * them to webhook endpoints builds on this.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { IdGenerator, prefixes } from "../resources/Ids.js"
import * as WireShape from "../resources/internal/wireShape.js"
import { Environment } from "../resources/Schemas.js"
import type { Scope } from "../storage/Storage.js"
import { Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Table from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import * as WebhookEndpoint from "../webhooks/WebhookEndpoint.js"
import { EventType } from "./WebhookEvents.js"

/** The stored event. @since 0.1.0 @category models */
export const EventRecord = Schema.Struct({
  ...Table.scopeFields,
  type: EventType,
  /** The resource's `object`: `payment_intent`. */
  resourceType: Schema.String,
  resourceId: Schema.String,
  /** The resource's version after the change: events of one resource are ordered by it. */
  resourceVersion: Table.Integer,
  /** Events written by one change, in the order written (a create may emit `created` and its status). */
  ordinal: Table.Integer,
  /** The resource as it is after the change, in its wire shape. */
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Table.Millis,
  version: Table.Integer
})
/** @since 0.1.0 @category models */
export type EventRecord = typeof EventRecord.Type

/**
 * How events are stored. One event per (resource, version, ordinal): a change applied twice
 * would write its event twice, which the store refuses, so it is never applied twice.
 *
 * @since 0.1.0 @category models
 */
export const table = Table.make({
  name: "events",
  idPrefix: prefixes.event,
  record: EventRecord,
  unique: [{ name: "resource_version", fields: ["resourceId", "resourceVersion", "ordinal"] }],
  // Kept `Maintenance.RetentionOptions.events` after they are created (30 days by default).
  retention: { from: "createdAt" }
})

const fields = WireShape.of<EventRecord>()
const wire = fields.make({
  object: WireShape.constant("event"),
  id: Schema.String,
  type: EventType,
  environment: Environment,
  created_at: WireShape.timeAs(Schema.String),
  data: fields.computed(Schema.Struct({ object: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }), (e) => ({ object: e.data }))
})

/** The event envelope of D7, as a webhook delivers it. @since 0.1.0 @category wire */
export const Envelope = wire.schema.annotations({ identifier: "Event" })
/** @since 0.1.0 @category wire */
export type Envelope = typeof Envelope.Type

/** The D7 envelope of a stored event. @since 0.1.0 @category wire */
export const toEnvelope: (e: EventRecord) => Envelope = wire.render

/** What changed: the resource after the change, in its wire shape, and its scope and version. @since 0.1.0 @category models */
export interface Changed {
  readonly merchantId: string
  readonly environment: Environment
  readonly id: string
  readonly version: number
  readonly updatedAt: number
}

/**
 * The writes that record `types` for a resource after a change, in order, with a delivery
 * task for each (event, webhook endpoint that wants its type), due now: written in the same
 * commit as the change, so no change is without its events and no event without its
 * deliveries (D7).
 *
 * @since 0.1.0 @category constructors
 */
export const writes = (
  resource: Changed,
  resourceType: string,
  view: object,
  types: ReadonlyArray<EventType>
): Effect.Effect<ReadonlyArray<Write>, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    if (types.length === 0) return []
    const ids = yield* IdGenerator
    const subscribers = yield* WebhookEndpoint.subscribed({ merchantId: resource.merchantId, environment: resource.environment })
    const out: Array<Write> = []
    for (const [ordinal, type] of types.entries()) {
      const event: EventRecord = {
        id: yield* ids.make(prefixes.event),
        merchantId: resource.merchantId,
        environment: resource.environment,
        type,
        resourceType,
        resourceId: resource.id,
        resourceVersion: resource.version,
        ordinal,
        data: view as Record<string, unknown>,
        createdAt: resource.updatedAt,
        version: 1
      }
      out.push(Write.insert(table, event))
      for (const endpoint of subscribers(type)) {
        out.push(Write.insert(
          Task.table,
          yield* Task.make({
            merchantId: event.merchantId,
            environment: event.environment,
            kind: "webhook.deliver",
            resourceId: event.id,
            targetId: endpoint.id,
            dueAt: event.createdAt,
            now: event.createdAt
          })
        ))
      }
    }
    return out
  })

/**
 * The events of one resource, in the order they happened.
 *
 * @since 0.1.0
 */
export const forResource = (scope: Scope, resourceId: string) =>
  Effect.flatMap(Storage, (storage) =>
    storage.list(table, { ...scope, where: { resourceId }, limit: 10_000 }).pipe(
      Effect.map((rows) => [...rows].sort((a, b) => a.resourceVersion - b.resourceVersion || a.ordinal - b.ordinal))
    ))

/**
 * A page of a merchant's events, newest first (D6 order), optionally of some types.
 *
 * @since 0.1.0
 */
export const list = (scope: Scope, options: {
  readonly types?: ReadonlyArray<EventType> | undefined
  readonly after?: { readonly createdAt: number; readonly id: string } | undefined
  readonly limit: number
}) => Effect.flatMap(Storage, (storage) => storage.list(table, { ...scope, where: { type: options.types }, after: options.after, limit: options.limit }))
