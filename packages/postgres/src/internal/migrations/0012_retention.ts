/**
 * Migration 0012: the indexes the retention purge walks (docs/retention.md). Each batch takes the
 * oldest due rows through one of them, so a purge reads what it deletes and no more, however
 * large the table, and a purge that finds nothing due costs one index probe.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Event, Task, WebhookDelivery } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** Migration 0012_retention, under the host's table prefix. */
export const retention = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const t = tables(prefix)
    const sql = (yield* SqlClient).withoutTransforms()
    const events = t.of(Event.table)
    yield* sql`CREATE INDEX ${sql(`${events}_created_idx`)} ON ${sql(events)} (created_at)`
    const tasks = t.of(Task.table)
    // Finished tasks only: the pending ones are the queue's (tasks_due_idx) and never purged.
    yield* sql`CREATE INDEX ${sql(`${tasks}_finished_idx`)} ON ${sql(tasks)} (updated_at) WHERE status <> 'pending'`
    const attempts = t.of(WebhookDelivery.attemptTable)
    yield* sql`CREATE INDEX ${sql(`${attempts}_created_idx`)} ON ${sql(attempts)} (created_at)`
  })
