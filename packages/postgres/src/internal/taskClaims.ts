/**
 * The fair claim of the task queue on PostgreSQL (`Task.Tasks.claim`, docs/webhooks.md "Fairness"),
 * one statement per pool. Every read is an index walk bounded by the claim, never by a backlog:
 *
 * - the merchants with pending work in the pool, in the ring from the request's merchant: a loose
 *   index scan (one probe per merchant, `_money_idx` or `_delivery_idx`, migration 0020), at most
 *   `TaskFairness.ringSteps` on either side of the ring point;
 * - money: each merchant's first `limit` claimable tasks, earliest due first (`_money_idx`);
 * - deliveries: each merchant's endpoints the same way, in the ring from the request's endpoint
 *   (`_delivery_idx`), and each endpoint's first claimable deliveries up to its bound, less those
 *   in flight (counted on `_inflight_idx`, the leased deliveries only), and each merchant's
 *   candidates up to its own bound less its deliveries in flight (`_merchant_inflight_idx`);
 * - the earliest due tasks of the pool beyond the ring's steps (`_solo_idx`, `_deliveries_due_idx`),
 *   ranked after everything the ring found, so a claim never comes back short while work is due.
 *
 * Candidates are ranked round the merchants (each merchant's own round the lanes) and taken
 * `FOR UPDATE SKIP LOCKED`, so concurrent claimers in several processes each take their own.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { Task, TaskFairness } from "@tender/core"
import { timestamp } from "./records.js"

/** The partial index predicate of each pool's pending tasks (`Task.poolOf`). */
export const poolPredicate = {
  money: "status = 'pending' AND (kind <> 'webhook.deliver' OR target_id IS NULL)",
  webhooks: "status = 'pending' AND kind = 'webhook.deliver' AND target_id IS NOT NULL"
} as const satisfies Record<Task.Pool, string>

/** A rank past every round and ring position, for the earliest due tasks beyond the ring. */
const last = 2_147_483_647

/** The claim of one pool: the statement's rows are the claimed tasks with their `round` and `ord`. */
export const claimStatement = (sql: SqlClient, table: string, req: Task.ClaimRequest, pool: Task.Pool, columns: string): Fragment => {
  const T = sql(table)
  const P = sql.literal(poolPredicate[pool])
  const now = sql`${timestamp(req.now)}::timestamptz`
  const free = sql`(lease_until IS NULL OR lease_until <= ${now})`
  const steps = TaskFairness.ringSteps(req.limit)
  const ringMerchant = req.ring?.merchant ?? ""
  const ringEndpoint = req.ring?.endpoint ?? ""
  // A ring of ids from `from` (exclusive), wrapping once: `up` walks above it, `down` from the lowest up to it.
  const walk = (column: string, scope: Fragment, from: string) => {
    const C = sql.literal(column)
    const next = (after: Fragment) => sql`(SELECT ${C} FROM ${T} WHERE ${P} AND ${scope} AND ${C} > ${after} ORDER BY ${C} LIMIT 1)`
    return sql`WITH RECURSIVE up AS (
        SELECT ${next(sql`${from}::text`)} AS v, 1 AS n
        UNION ALL SELECT ${next(sql`up.v`)}, up.n + 1 FROM up WHERE up.v IS NOT NULL AND up.n < ${steps}::int),
      down AS (
        SELECT (SELECT ${C} FROM ${T} WHERE ${P} AND ${scope} ORDER BY ${C} LIMIT 1) AS v, 1 AS n
        UNION ALL SELECT ${next(sql`down.v`)}, down.n + 1 FROM down WHERE down.v IS NOT NULL AND down.v <= ${from}::text AND down.n < ${steps}::int)
      SELECT v, n AS ord FROM up WHERE v IS NOT NULL
      UNION ALL SELECT v, ${steps}::int + n FROM down WHERE v IS NOT NULL AND v <= ${from}::text`
  }
  const ring = walk("merchant_id", sql`true`, ringMerchant)
  const candidates = pool === "money"
    ? sql`picks AS (
        SELECT c.id, r.v AS merchant_id, c.due_at, r.ord, row_number() OVER (PARTITION BY r.ord ORDER BY c.due_at, c.id) AS round
        FROM ring AS r CROSS JOIN LATERAL (
          SELECT id, due_at FROM ${T} WHERE ${P} AND merchant_id = r.v AND due_at <= ${now} AND ${free}
          ORDER BY due_at, id LIMIT ${req.limit}) AS c),
      spare AS (
        SELECT id, merchant_id, due_at, ${last}::int AS ord, ${last}::bigint AS round FROM ${T} WHERE ${P} AND due_at <= ${now} AND ${free}
        ORDER BY due_at, id LIMIT ${req.limit})`
    : sql`lanes AS (
        SELECT r.v AS merchant_id, r.ord, l.v AS target_id, l.ord AS lord FROM ring AS r
        CROSS JOIN LATERAL (${walk("target_id", sql`merchant_id = r.v`, ringEndpoint)}) AS l),
      lane_picks AS (
        SELECT c.id, x.merchant_id, c.due_at, x.ord, x.lord, c.lane_round FROM lanes AS x CROSS JOIN LATERAL (
          SELECT id, due_at, row_number() OVER (ORDER BY due_at, id) AS lane_round FROM (
            SELECT id, due_at FROM ${T}
            WHERE ${P} AND merchant_id = x.merchant_id AND target_id = x.target_id AND due_at <= ${now} AND ${free}
            ORDER BY due_at, id LIMIT ${room(sql, T, P, now, req, sql`x.target_id`)}) AS f) AS c),
      picks AS (
        SELECT id, merchant_id, due_at, ord, row_number() OVER (PARTITION BY ord ORDER BY lane_round, lord) AS round FROM lane_picks),
      spare AS (
        SELECT id, merchant_id, due_at, ${last}::int AS ord, ${last}::bigint AS round FROM (
          SELECT s.id, s.merchant_id, s.due_at, s.target_id, row_number() OVER (PARTITION BY s.target_id ORDER BY s.due_at, s.id) AS k FROM (
            SELECT id, merchant_id, due_at, target_id FROM ${T} WHERE ${P} AND due_at <= ${now} AND ${free}
            ORDER BY due_at, id LIMIT ${req.limit}) AS s) AS s2
        WHERE s2.k <= ${room(sql, T, P, now, req, sql`s2.target_id`)})`
  return sql`WITH RECURSIVE ring AS (${ring}),
      ${candidates},
      unique_candidates AS (
        SELECT DISTINCT ON (id) id, merchant_id, due_at, ord, round FROM (SELECT * FROM picks UNION ALL SELECT * FROM spare) AS a
        ORDER BY id, round, ord),
      ${merchantRoom(sql, T, P, now, req, pool)},
      due AS (
        SELECT t.id, c.round, c.ord FROM ${T} AS t JOIN candidates AS c ON c.id = t.id
        WHERE t.status = 'pending' AND (t.lease_until IS NULL OR t.lease_until <= ${now})
        ORDER BY c.round, c.ord, c.due_at, c.id LIMIT ${req.limit}
        FOR UPDATE OF t SKIP LOCKED)
    UPDATE ${T} AS t SET lease_owner = ${req.owner}, lease_until = ${timestamp(req.now + req.leaseMillis)}::timestamptz,
      attempts = t.attempts + 1, updated_at = ${now}, version = t.version + 1
    FROM due WHERE t.id = due.id
    RETURNING ${sql.literal(columns)}, due.round::text AS claim_round, due.ord::text AS claim_ord`
}

/**
 * The candidates within each merchant's room: its bound (`perMerchant`) less its deliveries whose
 * lease holds (not those held back by an endpoint's back-off, `TaskFairness.backoffOwner`), counted once per merchant among the candidates on `_merchant_inflight_idx`
 * (migration 0025), its candidates taken in claim order. Every candidate when there is no bound.
 */
const merchantRoom = (sql: SqlClient, T: ReturnType<SqlClient>, P: Fragment, now: Fragment, req: Task.ClaimRequest, pool: Task.Pool): Fragment =>
  pool === "money" || req.perMerchant === undefined
    ? sql`candidates AS (SELECT * FROM unique_candidates)`
    : sql`rooms AS (
        SELECT m.merchant_id, ${req.perMerchant}::int - (SELECT count(*) FROM ${T}
          WHERE ${P} AND lease_until IS NOT NULL AND merchant_id = m.merchant_id AND lease_until > ${now}
            AND lease_owner IS DISTINCT FROM ${TaskFairness.backoffOwner}) AS room
        FROM (SELECT DISTINCT merchant_id FROM unique_candidates) AS m),
      candidates AS (
        SELECT c.id, c.due_at, c.ord, c.round FROM (
          SELECT u.*, row_number() OVER (PARTITION BY u.merchant_id ORDER BY u.round, u.ord, u.due_at, u.id) AS k FROM unique_candidates AS u) AS c
        JOIN rooms AS r ON r.merchant_id = c.merchant_id WHERE c.k <= r.room)`

/** How many more deliveries the endpoint may have leased: its bound less those whose lease holds (none bound: the limit). */
const room = (sql: SqlClient, T: ReturnType<SqlClient>, P: Fragment, now: Fragment, req: Task.ClaimRequest, target: Fragment): Fragment =>
  req.perEndpoint === undefined
    ? sql`${req.limit}::int`
    : sql`greatest(0, least(${req.limit}::int, ${req.perEndpoint}::int - (SELECT count(*) FROM ${T}
        WHERE ${P} AND lease_until IS NOT NULL AND target_id = ${target} AND lease_until > ${now})))`
