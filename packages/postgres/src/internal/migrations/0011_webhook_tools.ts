/**
 * Migration 0011: what an endpoint's health and its delivery log need. An endpoint
 * keeps when its current run of failed attempts began (`failing_since`, for auto-disable;
 * its `status` may now be `disabled`), and an attempt keeps what was sent: the event's type
 * and the URL. Rows written before stay valid: the new columns are null there. The lists the
 * Events API and the attempts route read use the indexes of 0003 (events by type) and 0005
 * (attempts by endpoint and event).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { WebhookDelivery, WebhookEndpoint } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

export const webhookTools = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    yield* sql`ALTER TABLE ${sql(t.of(WebhookEndpoint.table))} ADD COLUMN failing_since timestamptz(3)`
    yield* sql`ALTER TABLE ${sql(t.of(WebhookDelivery.attemptTable))} ADD COLUMN event_type text, ADD COLUMN url text`
  })
