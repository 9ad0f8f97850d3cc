/**
 * Migration 0014: a task carries the W3C `traceparent` of the span that wrote it
 * (`Task.TaskRecord.traceparent`), so a worker's run joins the trace of the request that
 * caused it (docs/observability.md). Null on tasks written with tracing off, and on every task
 * written before this migration.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Task } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const taskTraceparent = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    yield* sql`ALTER TABLE ${sql(tables(prefix).of(Task.table))} ADD COLUMN traceparent text`
  })
