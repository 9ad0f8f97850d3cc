/**
 * Migration 0025 (docs/webhooks.md, "Fairness"; docs/query-plans.md, "Task claims"): the leased
 * deliveries by merchant, which a merchant's bound on deliveries in flight counts
 * (`Task.ClaimRequest.perMerchant`, internal/taskClaims.ts), as `_inflight_idx` (migration 0020)
 * serves an endpoint's. Only leased pending deliveries are in it: a handful per merchant.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Task } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"
import { poolPredicate } from "../taskClaims.js"

/** @since 0.1.0 @category migrations */
export const merchantInflight = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const tasks = tables(prefix).of(Task.table)
    const webhooks = sql.literal(poolPredicate.webhooks)
    yield* sql`CREATE INDEX ${sql(`${tasks}_merchant_inflight_idx`)} ON ${sql(tasks)} (merchant_id, lease_until) WHERE ${webhooks} AND lease_until IS NOT NULL`
  })
