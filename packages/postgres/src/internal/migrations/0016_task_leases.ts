/**
 * Migration 0016 (docs/scale.md): the pending tasks that are leased, by lease end, so the
 * workers' `nextDue` reads the next moment a task can be claimed from two indexes instead of
 * walking every pending task. A worker asks after every wake-up (each commit that writes a task
 * notifies it), and pending tasks number as many as the open payment intents (each has its
 * expiry task): the old statement read nearly every pending task's buffers on every create of a
 * merchant with a webhook endpoint (internal/tasks.ts `nextDueText`;
 * docs/payment-lifecycle.md, "Workers: running the tasks"). Only tasks being worked on (or
 * left by a worker that died) are leased, so the index stays small.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Task } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const taskLeases = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const table = tables(prefix).of(Task.table)
    yield* sql`CREATE INDEX ${sql(`${table}_leased_idx`)} ON ${sql(table)} (lease_until) WHERE status = 'pending' AND lease_until IS NOT NULL`
  })
