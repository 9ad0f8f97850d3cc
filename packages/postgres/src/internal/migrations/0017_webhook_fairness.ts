/**
 * Migration 0017: what keeps one merchant's resends from crowding out everyone's deliveries
 * (docs/webhooks.md, "Fairness" and "Sending events again"). An endpoint counts the deliveries
 * resends queued to it in the current hour (its resend bound), and one (event, endpoint) has at
 * most one pending delivery: a partial unique index, so two racing resends queue it once
 * (`Task.table`'s `pending_delivery`). Duplicates queued before it are settled first, keeping
 * the one in flight or due first, or the index could not be built. Two indexes let a claim go
 * round the lanes without reading the whole due backlog.
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
    // The claim's lanes (internal/tasks.ts): pending deliveries by endpoint and due time, and every
    // other pending task by due time, so a claim never walks one endpoint's backlog to find the rest.
    yield* sql`CREATE INDEX ${sql(`${tasks}_lane_idx`)} ON ${sql(tasks)} (target_id, due_at, id)
      WHERE status = 'pending' AND kind = 'webhook.deliver'`
    yield* sql`CREATE INDEX ${sql(`${tasks}_solo_idx`)} ON ${sql(tasks)} (due_at, id)
      WHERE status = 'pending' AND (kind <> 'webhook.deliver' OR target_id IS NULL)`
  })
