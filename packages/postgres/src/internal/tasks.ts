/**
 * The task queue (`Tasks`) on PostgreSQL. Claims take due rows `FOR UPDATE SKIP LOCKED`, so
 * several processes on one database share the work without waiting on each other, and set
 * a lease in the same statement; they go round the merchants, then each merchant's lanes
 * (internal/taskClaims.ts), so neither a merchant's backlog nor one endpoint's holds back another's. Wake-ups use LISTEN/NOTIFY
 * (internal/wakeups.ts): a commit with work for idle workers notifies `<prefix>tasks` (delivered
 * when it commits), so they need not poll often. LISTEN needs the `PgClient`'s settings; on a
 * plain `SqlClient` workers only poll.
 */
import type { PgClient } from "@effect/sql-pg"
import type { SqlClient } from "@effect/sql/SqlClient"
import { Task } from "@tender/core"
import { Effect, Option, Stream } from "effect"
import type { Run } from "./direct.js"
import { clientConfig } from "./directory.js"
import { fold } from "./errors.js"
import { selectList, timestamp, toRecord } from "./records.js"
import type { Tables } from "./tables.js"
import { claimStatement } from "./taskClaims.js"
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

/** Each statement by `run` (internal/direct.ts): bounded by the statement timeout, cancelled only while it runs. */
export const make = (sql: SqlClient, t: Tables, pg: Option.Option<PgClient.PgClient>, run: Run) => {
  const TASKS = sql(t.of(Task.table))
  return Task.Tasks.of({
    // Fairly, one statement per pool (internal/taskClaims.ts); both pools when none is named, money first.
    claim: (req) => {
      const one = (pool: Task.Pool, limit: number) =>
        limit <= 0
          ? Effect.succeed([])
          : run(
            "claim tasks",
            sql<Record<string, string | null>>`${claimStatement(sql, t.of(Task.table), { ...req, limit }, pool, selectList(Task.table, "t."))}`
          ).pipe(
            Effect.map((rows) =>
              rows
                .map((row) => ({ task: toRecord(Task.table, row), round: Number(row["claim_round"]), ord: Number(row["claim_ord"]) }))
                .sort((a, b) => a.round - b.round || a.ord - b.ord || a.task.dueAt - b.task.dueAt || (a.task.id < b.task.id ? -1 : 1))
                .map((c) => c.task)
            ),
            Effect.catchTag("SqlError", (e) => Effect.fail(fold("claim tasks")(e)))
          )
      return req.pool !== undefined
        ? one(req.pool, req.limit)
        : Effect.flatMap(one("money", req.limit), (money) => Effect.map(one("webhooks", req.limit - money.length), (hooks) => [...money, ...hooks]))
    },
    nextDue: run("next due task", sql.unsafe<{ readonly next: string | null }>(nextDueText(t.of(Task.table)))).pipe(
      Effect.map(([row]) => millisOrUndefined(row?.next)),
      Effect.catchTag("SqlError", (e) => Effect.fail(fold("next due task")(e)))
    ),
    backlog: (now) =>
      run(
        "task backlog",
        sql<Record<string, string | null>>`SELECT
          count(*) FILTER (WHERE due_at <= ${timestamp(now)}::timestamptz)::text AS due,
          (extract(epoch FROM min(due_at) FILTER (WHERE due_at <= ${timestamp(now)}::timestamptz)) * 1000)::bigint::text AS oldest_due_at,
          count(*) FILTER (WHERE kind = 'webhook.deliver')::text AS undelivered,
          (extract(epoch FROM min(created_at) FILTER (WHERE kind = 'webhook.deliver')) * 1000)::bigint::text AS oldest_undelivered_at
        FROM ${TASKS} WHERE status = 'pending'`
      ).pipe(
        Effect.map(([row]) => ({
          due: Number(row?.["due"] ?? 0),
          oldestDueAt: millisOrUndefined(row?.["oldest_due_at"]),
          undeliveredWebhooks: Number(row?.["undelivered"] ?? 0),
          oldestUndeliveredAt: millisOrUndefined(row?.["oldest_undelivered_at"])
        })),
        Effect.catchTag("SqlError", (e) => Effect.fail(fold("task backlog")(e)))
      ),
    wakeups: Option.match(pg, {
      onNone: () => Stream.never,
      onSome: (client) => Wakeups.listen(clientConfig(client.config, "wake-ups"), channel(t))
    })
  })
}
