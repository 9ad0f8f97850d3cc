/**
 * The purge (`Storage.purgeExpired`): expired idempotency keys, long-lapsed merchant_reference
 * claims, and the records past their retention (docs/retention.md). With a limit, each kind is
 * one statement deleting at most that many rows, `DELETE ... WHERE ctid IN (SELECT ctid ...
 * LIMIT n FOR UPDATE SKIP LOCKED)`: a short transaction of its own, bounded in size, that never
 * waits on a row a request holds (it is left for the next batch). The condition is repeated
 * outside the subquery so a row changed since the subquery read it is deleted only if still due.
 * Each subquery walks an index on its condition (`_expires_idx`, and migration 0012's).
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { Event, Idempotency, type Storage, type StorageError, Task, WebhookDelivery } from "@tender/core"
import { Effect } from "effect"
import { fold } from "./errors.js"
import { timestamp } from "./records.js"
import type { Tables } from "./tables.js"

/** `within` bounds each statement by the statement timeout (internal/timeout.ts), as every other call is. */
export const make = (
  sql: SqlClient,
  t: Tables,
  within: <A>(operation: string, self: Effect.Effect<A, StorageError.StorageError>) => Effect.Effect<A, StorageError.StorageError>
) => {
  /**
   * Delete at most `limit` rows of `table` where `condition` holds (all of them without a limit),
   * oldest `order` first; how many went. The order keeps the walk on the index: a sequential
   * scan would read every row the previous batches left dead before vacuum removes them.
   */
  const deleteDue = (what: string, table: string, condition: Fragment, order: string, limit: number | undefined) =>
    within(`purge ${what}`, sql<{ readonly n: number }>`WITH gone AS (
        DELETE FROM ${sql(table)} WHERE ${condition} AND ctid IN (
          SELECT ctid FROM ${sql(table)} WHERE ${condition} ORDER BY ${sql(order)} LIMIT ${limit ?? null} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(
      Effect.map(([row]) => row?.n ?? 0),
      Effect.mapError(fold(`purge ${what}`))
    ))

  /** Only when a cutoff is given: no cutoff keeps every record of the kind. */
  const ifCut = (cutoff: number | undefined, purge: (at: string) => Effect.Effect<number, StorageError.StorageError>) =>
    cutoff === undefined ? Effect.succeed(0) : purge(timestamp(cutoff))

  return (now: number, options: Storage.PurgeOptions = {}) =>
    Effect.all({
      idempotencyKeys: deleteDue("idempotency keys", t.idempotencyKeys, sql`expires_at <= ${timestamp(now)}`, "expires_at", options.limit),
      referenceClaims: deleteDue(
        "merchant_reference claims",
        t.references,
        sql`NOT completed AND locked_until <= ${timestamp(now - Idempotency.claimGraceMillis)}`,
        "locked_until",
        options.limit
      ),
      events: ifCut(options.eventsBefore, (at) => deleteDue("events", t.of(Event.table), sql`created_at < ${at}`, "created_at", options.limit)),
      tasks: ifCut(
        options.tasksFinishedBefore,
        (at) => deleteDue("tasks", t.of(Task.table), sql`status <> 'pending' AND updated_at < ${at}`, "updated_at", options.limit)
      ),
      webhookAttempts: ifCut(
        options.webhookAttemptsBefore,
        (at) => deleteDue("webhook attempts", t.of(WebhookDelivery.attemptTable), sql`created_at < ${at}`, "created_at", options.limit)
      )
    })
}
