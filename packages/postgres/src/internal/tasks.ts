/**
 * The task queue (`Tasks`) on PostgreSQL. Claims take due rows `FOR UPDATE SKIP LOCKED`, so
 * several processes on one database share the work without waiting on each other, and set
 * a lease in the same statement; they go round the lanes (`Task.laneOf`), so one endpoint's
 * backlog of deliveries never holds back another's. Wake-ups use LISTEN/NOTIFY
 * (internal/wakeups.ts): a commit with work for idle workers notifies `<prefix>tasks` (delivered
 * when it commits), so they need not poll often. LISTEN needs the `PgClient`'s settings; on a
 * plain `SqlClient` workers only poll.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { PgClient } from "@effect/sql-pg"
import { Task } from "@tender/core"
import { Effect, Option, Stream } from "effect"
import { clientConfig } from "./directory.js"
import { fold } from "./errors.js"
import { selectList, timestamp, toRecord } from "./records.js"
import type { Tables } from "./tables.js"
import * as Wakeups from "./wakeups.js"

/** The channel a commit with work for idle workers notifies (`Task.wakesWorkers`). */
export const channel = (t: Tables) => t.of(Task.table)

/** What it sends: anything but empty (a listener of `@effect/sql-pg` drops an empty payload). */
export const wakePayload = "wake"

const millisOrUndefined = (value: string | null | undefined) => (value === null || value === undefined ? undefined : Number(value))

/**
 * When the earliest pending task may be claimed (`Tasks.nextDue`): the due time of the first
 * task nobody holds, or the end of a lease, whichever comes first. In two parts, each read from
 * an index: the first unleased task in the claim order (`_due_idx`, stepping over the few leased
 * ones), and the leased ones (`_leased_idx`, migration 0016), which are only the tasks being
 * worked on. `least` ignores a part that found nothing. `table` is a validated, prefixed name.
 */
export const nextDueText = (table: string) =>
  `SELECT (extract(epoch FROM least(
      (SELECT due_at FROM "${table}" WHERE status = 'pending' AND lease_until IS NULL ORDER BY due_at, id LIMIT 1),
      (SELECT min(greatest(due_at, lease_until)) FROM "${table}" WHERE status = 'pending' AND lease_until IS NOT NULL)
    )) * 1000)::bigint::text AS next`

export const make = (sql: SqlClient, t: Tables, pg: Option.Option<PgClient.PgClient>) => {
  const TASKS = sql(t.of(Task.table))
  return Task.Tasks.of({
    // Round the lanes (Task.laneOf), each lane read from an index, never the whole due backlog:
    // the endpoints with pending deliveries one by one (`_lane_idx`, migration 0017), each one's
    // first `limit` due deliveries ranked; every other task (`_solo_idx`) is a lane of its own,
    // rank 1. Among a few times `limit` candidates, rows another claimer holds are stepped over
    // (SKIP LOCKED), so concurrent claimers each take their own.
    claim: (req) =>
      sql<Record<string, string | null>>`WITH RECURSIVE lanes AS (
          (SELECT target_id FROM ${TASKS} WHERE status = 'pending' AND kind = 'webhook.deliver' ORDER BY target_id LIMIT 1)
          UNION ALL
          SELECT (SELECT n.target_id FROM ${TASKS} AS n
              WHERE n.status = 'pending' AND n.kind = 'webhook.deliver' AND n.target_id > l.target_id ORDER BY n.target_id LIMIT 1)
          FROM lanes AS l WHERE l.target_id IS NOT NULL),
        deliveries AS (
          SELECT d.id, d.due_at, d.lane_rank FROM lanes AS l CROSS JOIN LATERAL (
            SELECT id, due_at, row_number() OVER (ORDER BY due_at, id) AS lane_rank FROM (
              SELECT f.id, f.due_at FROM ${TASKS} AS f
              WHERE f.status = 'pending' AND f.kind = 'webhook.deliver' AND f.target_id = l.target_id
                AND f.due_at <= ${timestamp(req.now)}::timestamptz
                AND (f.lease_until IS NULL OR f.lease_until <= ${timestamp(req.now)}::timestamptz)
              ORDER BY f.due_at, f.id LIMIT ${req.limit}) AS firsts) AS d
          WHERE l.target_id IS NOT NULL),
        solo AS (
          SELECT id, due_at, 1::bigint AS lane_rank FROM ${TASKS}
          WHERE status = 'pending' AND (kind <> 'webhook.deliver' OR target_id IS NULL)
            AND due_at <= ${timestamp(req.now)}::timestamptz
            AND (lease_until IS NULL OR lease_until <= ${timestamp(req.now)}::timestamptz)
          ORDER BY due_at, id LIMIT ${req.limit}),
        candidates AS (SELECT * FROM deliveries UNION ALL SELECT * FROM solo ORDER BY lane_rank, due_at, id LIMIT ${req.limit * 4}),
        due AS (
          SELECT t.id FROM ${TASKS} AS t JOIN candidates AS c ON c.id = t.id
          WHERE t.status = 'pending' AND (t.lease_until IS NULL OR t.lease_until <= ${timestamp(req.now)}::timestamptz)
          ORDER BY c.lane_rank, c.due_at, c.id LIMIT ${req.limit}
          FOR UPDATE OF t SKIP LOCKED)
        UPDATE ${TASKS} AS t SET lease_owner = ${req.owner}, lease_until = ${timestamp(req.now + req.leaseMillis)}::timestamptz,
          attempts = t.attempts + 1, updated_at = ${timestamp(req.now)}::timestamptz, version = t.version + 1
        FROM due WHERE t.id = due.id
        RETURNING ${sql.literal(selectList(Task.table, "t."))}`.pipe(
        Effect.map((rows) =>
          rows.map((row) => toRecord(Task.table, row)).sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1))
        ),
        Effect.mapError(fold("claim tasks"))
      ),
    nextDue: sql.unsafe<{ readonly next: string | null }>(nextDueText(t.of(Task.table))).pipe(
      Effect.map(([row]) => millisOrUndefined(row?.next)),
      Effect.mapError(fold("next due task"))
    ),
    backlog: (now) =>
      sql<Record<string, string | null>>`SELECT
          count(*) FILTER (WHERE due_at <= ${timestamp(now)}::timestamptz)::text AS due,
          (extract(epoch FROM min(due_at) FILTER (WHERE due_at <= ${timestamp(now)}::timestamptz)) * 1000)::bigint::text AS oldest_due_at,
          count(*) FILTER (WHERE kind = 'webhook.deliver')::text AS undelivered,
          (extract(epoch FROM min(created_at) FILTER (WHERE kind = 'webhook.deliver')) * 1000)::bigint::text AS oldest_undelivered_at
        FROM ${TASKS} WHERE status = 'pending'`.pipe(
        Effect.map(([row]) => ({
          due: Number(row?.["due"] ?? 0),
          oldestDueAt: millisOrUndefined(row?.["oldest_due_at"]),
          undeliveredWebhooks: Number(row?.["undelivered"] ?? 0),
          oldestUndeliveredAt: millisOrUndefined(row?.["oldest_undelivered_at"])
        })),
        Effect.mapError(fold("task backlog"))
      ),
    wakeups: Option.match(pg, {
      onNone: () => Stream.never,
      onSome: (client) => Wakeups.listen(clientConfig(client.config, "wake-ups"), channel(t))
    })
  })
}
