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
import { Idempotency, type Storage, type StorageError, Table } from "@tender/core"
import { Effect } from "effect"
import type { Run } from "./direct.js"
import { fold } from "./errors.js"
import { timestamp } from "./records.js"
import type { Tables } from "./tables.js"

/** One kind a purge deletes: its table, which rows are due, and the time column they go oldest first by. */
export interface PurgeKind {
  /** `idempotencyKeys`, `referenceClaims`, or the name of a table of `PurgeOptions.cutoffs`. */
  readonly kind: string
  readonly table: string
  readonly due: Fragment
  readonly order: string
}

/**
 * The rows of `cut.table` due under its `Table.retention`. The kept value is written into the
 * text, not bound: a partial index (`status <> 'pending'`, migration 0012) serves only a
 * condition the planner can see implies its own. It is a constant of core's table, quoted here.
 */
const retentionKind = (sql: SqlClient, t: Tables, cut: Storage.Cutoff): PurgeKind => {
  const retention = Table.retentionOf(cut.table)
  const from = Table.columnName(retention.from)
  const keep = retention.keep
  const due = keep === undefined
    ? sql`${sql(from)} < ${timestamp(cut.before)}`
    : sql`${sql(Table.columnName(keep.field))} <> ${sql.literal(`'${keep.value.replaceAll("'", "''")}'`)} AND ${sql(from)} < ${timestamp(cut.before)}`
  return { kind: cut.table.name, table: t.of(cut.table), due, order: from }
}

/** The kinds one purge call deletes: keys and references always, the tables of `options.cutoffs` by their retention. */
export const purgeKinds = (sql: SqlClient, t: Tables, now: number, options: Storage.PurgeOptions): ReadonlyArray<PurgeKind> => [
  { kind: "idempotencyKeys", table: t.idempotencyKeys, due: sql`expires_at <= ${timestamp(now)}`, order: "expires_at" },
  {
    kind: "referenceClaims",
    table: t.references,
    due: sql`NOT completed AND locked_until <= ${timestamp(now - Idempotency.claimGraceMillis)}`,
    order: "locked_until"
  },
  ...(options.cutoffs ?? []).map((cut) => retentionKind(sql, t, cut))
]

/**
 * The statement deleting at most `limit` due rows of one kind (all of them without a limit),
 * oldest first, and counting them. The order keeps the walk on the index: a sequential scan
 * would read again every row the previous batches left dead before vacuum removes them.
 */
export const purgeStatement = (sql: SqlClient, k: PurgeKind, limit: number | undefined) =>
  sql<{ readonly n: number }>`WITH gone AS (
      DELETE FROM ${sql(k.table)} WHERE ${k.due} AND ctid IN (
        SELECT ctid FROM ${sql(k.table)} WHERE ${k.due} ORDER BY ${sql(k.order)} LIMIT ${limit ?? null} FOR UPDATE SKIP LOCKED)
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`

/** `run` bounds each statement by the statement timeout (internal/direct.ts), as every other call is. */
export const make =
  (sql: SqlClient, t: Tables, run: Run) => (now: number, options: Storage.PurgeOptions = {}): Effect.Effect<Storage.PurgeResult, StorageError.StorageError> =>
    Effect.reduce(
      purgeKinds(sql, t, now, options),
      { idempotencyKeys: 0, referenceClaims: 0, records: {} } as Storage.PurgeResult,
      (result, k) =>
        run(`purge ${k.kind}`, purgeStatement(sql, k, options.limit)).pipe(
          Effect.map(([row]) => {
            const n = row?.n ?? 0
            return k.kind === "idempotencyKeys" || k.kind === "referenceClaims"
              ? { ...result, [k.kind]: n }
              : { ...result, records: { ...result.records, [k.kind]: n } }
          }),
          Effect.catchTag("SqlError", (e) => Effect.fail(fold(`purge ${k.kind}`)(e)))
        )
    )
