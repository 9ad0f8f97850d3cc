/**
 * Migration 0020 (docs/webhooks.md, "Fairness"; docs/query-plans.md, "Task claims"): the indexes of
 * the fair claim (internal/taskClaims.ts), which goes round the merchants, then round each
 * merchant's endpoints, in two pools. Pending money tasks by merchant and due time, pending
 * deliveries by merchant, endpoint and due time, the leased deliveries by endpoint (those in
 * flight, which an endpoint's bound counts), and pending deliveries by due time (the earliest due
 * beyond the ring). Money tasks by due time keep `_solo_idx` (migration 0017); its `_lane_idx`, by
 * endpoint alone, is replaced by `_delivery_idx`.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Task } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"
import { poolPredicate } from "../taskClaims.js"

/** @since 0.1.0 @category migrations */
export const fairClaims = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const tasks = tables(prefix).of(Task.table)
    const money = sql.literal(poolPredicate.money)
    const webhooks = sql.literal(poolPredicate.webhooks)
    yield* sql`CREATE INDEX ${sql(`${tasks}_money_idx`)} ON ${sql(tasks)} (merchant_id, due_at, id) WHERE ${money}`
    yield* sql`CREATE INDEX ${sql(`${tasks}_delivery_idx`)} ON ${sql(tasks)} (merchant_id, target_id, due_at, id) WHERE ${webhooks}`
    yield* sql`CREATE INDEX ${sql(`${tasks}_inflight_idx`)} ON ${sql(tasks)} (target_id, lease_until) WHERE ${webhooks} AND lease_until IS NOT NULL`
    yield* sql`CREATE INDEX ${sql(`${tasks}_deliveries_due_idx`)} ON ${sql(tasks)} (due_at, id) WHERE ${webhooks}`
    yield* sql`DROP INDEX IF EXISTS ${sql(`${tasks}_lane_idx`)}`
  })
