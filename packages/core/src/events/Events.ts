/**
 * The Events API (after Stripe's `/v1/events`): the events of the caller's
 * merchant and environment, newest first, as the D7 envelopes webhooks deliver, so a merchant
 * whose receiver was down can read what it missed. Events are kept at least 30 days
 * (docs/events.md).
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema } from "effect"
import { ResourceNotFound, ValidationFailed } from "../resources/Errors.js"
import { isWellFormed, prefixes } from "../resources/Ids.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import type { Scope } from "../storage/Storage.js"
import { scopeOf, Storage } from "../storage/Storage.js"
import * as Event from "./Event.js"
import { EventType } from "./WebhookEvents.js"

/** How long events are kept at least; a purge may keep them longer, never shorter. @since 0.1.0 */
export const retentionMillis = 30 * 24 * 60 * 60 * 1000

/** GET /events query: `type` (one, comma-separated or repeated), the creation window and the page (D6). @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({
  type: Schema.optional(
    Pagination.ValueList.annotations({ description: "One or more event types (GET /webhook_event_types): single, comma-separated or repeated" })
  ),
  ...Pagination.createdFields
})
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

/** An event of the caller's scope, or the D1 400 (malformed id) or 404 (none, or another merchant's or environment's). @since 0.1.0 */
export const load = (scope: Scope, id: string, param = "id") =>
  Effect.gen(function*() {
    if (!isWellFormed(prefixes.event, id)) {
      return yield* ValidationFailed.at(param, `${param} must be an event id: evt_ followed by 24 letters and digits`)
    }
    const found = yield* (yield* Storage).get(Event.table, scope, id)
    if (Option.isNone(found)) return yield* new ResourceNotFound({ param, message: `No event ${JSON.stringify(id)}.` })
    return found.value
  })

const reads = Resources.reads((principal, id) => load(scopeOf(principal), id), (view) => (principal, params: ListParams) =>
  Effect.gen(function*() {
    const types = yield* Pagination.parseValues("type", params.type, EventType.literals)
    const { limit, query } = yield* Pagination.window(params, prefixes.event)
    const rows = yield* (yield* Storage).list(Event.table, { ...scopeOf(principal), ...query, where: { type: types } })
    return Pagination.page(rows, limit, view)
  }), Event.toEnvelope)

/** GET /events/{id}: one event as its D7 envelope. @since 0.1.0 */
export const retrieve = reads.retrieve
/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = reads.retrieveJson
/** GET /events: the D6 list envelope of D7 envelopes, newest first. @since 0.1.0 */
export const list = reads.list
/** `list`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const listJson = reads.listJson
