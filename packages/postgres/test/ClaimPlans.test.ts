/**
 * The fair claim's plans (src/internal/taskClaims.ts; docs/query-plans.md, "Task claims"): with
 * 100,000 due deliveries of one merchant over 10 endpoints (4 of them at their in-flight bound) and
 * 100,000 due timers of the same merchant, another merchant's one delivery and one money task are
 * claimed, the first merchant's deliveries no more than its bound, each pool's statement an index walk reading a few hundred rows, no sequential scan.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, it } from "@effect/vitest"
import { Task } from "@tender/core"
import { Effect } from "effect"
import { PgMigrations } from "../src/index.js"
import { selectList } from "../src/internal/records.js"
import { tables, validatePrefix } from "../src/internal/tables.js"
import { claimStatement } from "../src/internal/taskClaims.js"
import { client, dropTables, freshPrefix } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const now = Date.parse("2030-01-02T00:00:00Z")

/** The backlog: merchant A's deliveries and timers, all due, 8 of its deliveries in flight; B's one of each. */
export const fillBacklog = (table: string, rows: number) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    yield* sql.unsafe(`INSERT INTO ${table} (id, merchant_id, environment, kind, resource_id, target_id, status, due_at, attempts,
        lease_owner, lease_until, created_at, updated_at, version)
      SELECT 'task_d' || lpad(g::text, 7, '0'), 'mch_a', 'test', 'webhook.deliver', 'evt_' || g, 'we_a' || (g % 10),
        'pending', timestamptz '2030-01-01' + g * interval '1 millisecond', CASE WHEN g <= 8 THEN 1 ELSE 0 END,
        CASE WHEN g <= 8 THEN 'w' END, CASE WHEN g <= 8 THEN timestamptz '2030-01-03' END, now(), now(), 1
      FROM generate_series(1, ${rows}) AS g`)
    yield* sql.unsafe(`INSERT INTO ${table} (id, merchant_id, environment, kind, resource_id, status, due_at, attempts, created_at, updated_at, version)
      SELECT 'task_t' || lpad(g::text, 7, '0'), 'mch_a', 'test', 'payment_intent.expire', 'dord_' || g,
        'pending', timestamptz '2030-01-01' + g * interval '1 millisecond', 0, now(), now(), 1
      FROM generate_series(1, ${rows}) AS g`)
    yield* sql.unsafe(
      `INSERT INTO ${table} (id, merchant_id, environment, kind, resource_id, target_id, status, due_at, attempts, created_at, updated_at, version)
      VALUES ('task_b_hook', 'mch_b', 'test', 'webhook.deliver', 'evt_b', 'we_b', 'pending', timestamptz '2030-01-01 23:00', 0, now(), now(), 1),
        ('task_b_money', 'mch_b', 'test', 'payment_intent.confirm', 'dord_b', NULL, 'pending', timestamptz '2030-01-01 23:00', 0, now(), now(), 1)`
    )
    yield* sql.unsafe(`ANALYZE ${table}`)
  })

/** A pool's claim of 16, explained while it runs (it claims). */
export const explainClaim = (table: string, pool: Task.Pool) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const request = { now, owner: "plan", leaseMillis: 60_000, limit: 16, perEndpoint: 2, perMerchant: 12, ring: { merchant: "mch_a", endpoint: "we_a5" } }
    const statement = claimStatement(sql, table, request, pool, selectList(Task.table, "t."))
    const rows = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${statement}`
    return rows.map((r) => r["QUERY PLAN"]).join("\n")
  })

/** The rows a plan's scans read, in all. */
export const rowsRead = (plan: string) =>
  [...plan.matchAll(/Scan[^\n]*\(actual rows=(\d+) loops=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]) * Number(m[2]), 0)

describeOnPostgres("postgres: the fair claim's plans", () => {
  it.layer(client, { timeout: 120_000 })((it) => {
    it.effect("tasks: with 100,000 due deliveries and 100,000 due timers of one merchant, each pool's claim is an index walk that reads a few hundred rows and takes the other merchant's task", () =>
      Effect.gen(function*() {
        const own = freshPrefix()
        yield* Effect.addFinalizer(() => Effect.orDie(dropTables(own)))
        yield* PgMigrations.run({ tablePrefix: own })
        const table = tables(yield* validatePrefix(own)).of(Task.table)
        yield* fillBacklog(table, 100_000)
        const sql = (yield* SqlClient).withoutTransforms()
        for (const pool of ["webhooks", "money"] as const) {
          const plan = yield* explainClaim(table, pool)
          assert.notInclude(plan, "Seq Scan", plan)
          assert.isAtMost(rowsRead(plan), 2_000, plan)
          const [b] = yield* sql.unsafe<{ lease_owner: string | null }>(`SELECT lease_owner FROM ${table} WHERE id = $1`, [
            pool === "money" ? "task_b_money" : "task_b_hook"
          ])
          assert.strictEqual(b?.lease_owner, "plan", `B's ${pool} task was not claimed:\n${plan}`)
        }
        // The endpoint bound held: no endpoint has more than 2 deliveries leased.
        const leased = yield* sql.unsafe<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE lease_until IS NOT NULL AND kind = 'webhook.deliver' GROUP BY target_id ORDER BY 1 DESC LIMIT 1`
        )
        assert.isAtMost(leased[0]!.n, 2)
        // And the merchant's: A had 8 in flight, so it took 4 more, at most 12 leased.
        const ofA = yield* sql.unsafe<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE lease_until IS NOT NULL AND kind = 'webhook.deliver' AND merchant_id = 'mch_a'`
        )
        assert.strictEqual(ofA[0]!.n, 12)
      }).pipe(Effect.scoped))
  })
})
