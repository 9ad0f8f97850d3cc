/**
 * Migration 0017: what keeps one merchant's resends from crowding out everyone's deliveries
 * (docs/webhooks.md, "Fairness" and "Sending events again"). An endpoint counts the deliveries
 * resends queued to it in the current hour (its resend bound), and one (event, endpoint) has at
 * most one pending delivery: a partial unique index, so two racing resends queue it once
 * (`Task.table`'s `pending_delivery`). Duplicates queued before it are settled first, keeping
 * the one in flight or due first, or the index could not be built.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Task, WebhookEndpoint } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const webhookFairness = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    const tasks = t.of(Task.table)
    yield* sql`ALTER TABLE ${sql(t.of(WebhookEndpoint.table))} ADD COLUMN resend_window_started_at timestamptz(3), ADD COLUMN resends_in_window integer`
    yield* sql`UPDATE ${sql(tasks)} AS t SET status = 'done', lease_owner = NULL, lease_until = NULL,
        last_error = 'a duplicate of a delivery queued already', version = t.version + 1
      FROM (
        SELECT id, row_number() OVER (
          PARTITION BY merchant_id, environment, resource_id, target_id
          ORDER BY lease_until DESC NULLS LAST, due_at, id) AS n
        FROM ${sql(tasks)} WHERE kind = 'webhook.deliver' AND status = 'pending'
      ) AS d
      WHERE t.id = d.id AND d.n > 1`
    yield* sql`CREATE UNIQUE INDEX ${sql(`${tasks}_pending_delivery_key`)} ON ${sql(tasks)}
      (merchant_id, environment, resource_id, target_id) WHERE kind = 'webhook.deliver' AND status = 'pending'`
  })
