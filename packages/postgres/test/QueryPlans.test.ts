import { SqlClient } from "@effect/sql/SqlClient"
import { assert, it } from "@effect/vitest"
import { Event, Task, WebhookDelivery } from "@tender/core"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { PgMigrations } from "../src/index.js"
import { purgeKinds, purgeStatement } from "../src/internal/purge.js"
import { tables, validatePrefix } from "../src/internal/tables.js"
import { nextDueText } from "../src/internal/tasks.js"
import { client, dropTables, freshPrefix, runSql } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"
import { explain, explainRefunds, explainTopups, populate, populateRefunds, populateTopups, refundShapes, shapes, topupShapes } from "./plans.js"

const rows = 100_000

/** Each of `shapes`, explained, is answered from an index, never a sequential scan. */
const fromAnIndex = <Q, E, R>(shapes: ReadonlyArray<readonly [string, Q]>, explain: (query: Q) => Effect.Effect<string, E, R>) =>
  Effect.forEach(shapes, ([name, query]) =>
    Effect.map(explain(query), (plan) => {
      assert.notInclude(plan, "Seq Scan", `${name}:\n${plan}`)
      assert.match(plan, /Index (Only )?Scan|Bitmap Index Scan/, `${name}:\n${plan}`)
    }), { discard: true })

/** A table filled by `populate`, then each of its list `shapes` answered from an index. */
const listsFromAnIndex = <Q, E1, R1, E2, R2>(
  populate: Effect.Effect<unknown, E1, R1>,
  shapes: ReadonlyArray<readonly [string, Q]>,
  explain: (query: Q) => Effect.Effect<string, E2, R2>
) => Effect.zipRight(populate, fromAnIndex(shapes, explain))

describeOnPostgres("query plans", () => {
  const prefix = freshPrefix()
  afterAll(() => runSql(dropTables(prefix)))

  it.layer(client, { timeout: 120_000 })((it) => {
    it.effect("4.3 every list shape and filter is answered from an index, never a sequential scan", () =>
      listsFromAnIndex(populate(prefix, rows), shapes(rows), (query) => explain(prefix, query)))

    it.effect("4.8 every top-up list shape and filter (source_type single and several included) is answered from an index, never a sequential scan", () =>
      listsFromAnIndex(populateTopups(prefix, rows), topupShapes(rows), (query) => explainTopups(prefix, query)))

    it.effect("D10 every refund list shape and filter (payment_intent, status, merchant_reference, created) is answered from an index, never a sequential scan", () =>
      listsFromAnIndex(populateRefunds(prefix, rows), refundShapes(rows), (query) => explainRefunds(prefix, query)))

    it.effect("D6 a page deep down the list reads no more rows than the first page", () =>
      Effect.gen(function*() {
        const [first, deep] = [shapes(rows)[0]![1], shapes(rows)[1]![1]]
        const readBy = (plan: string) => [...plan.matchAll(/Index Scan[^\n]*\(actual rows=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
        const firstPlan = yield* explain(prefix, { ...first, limit: 11 }, true)
        const deepPlan = yield* explain(prefix, deep, true)
        assert.strictEqual(readBy(firstPlan), 11, firstPlan)
        assert.strictEqual(readBy(deepPlan), 11, deepPlan)
      }))

    it.effect("retention: every purge batch takes its rows through an index, never a sequential scan, even when most rows are due", () =>
      Effect.gen(function*() {
        yield* PgMigrations.run({ tablePrefix: prefix })
        const sql = (yield* SqlClient).withoutTransforms()
        const t = tables(yield* validatePrefix(prefix))
        const n = 50_000
        // Three quarters of each table due: where a sequential scan would look cheapest to the planner.
        const when = `now() - interval '40 days' + g * (interval '53 days' / ${n})`
        yield* sql.unsafe(`INSERT INTO ${t.of(Event.table)} (id, merchant_id, environment, type, resource_type, resource_id,
            resource_version, ordinal, data, created_at, version)
          SELECT 'evt_' || g, 'mch_' || (g % 50), 'test', 'payment_intent.created', 'payment_intent', 'dord_' || g, 1, 0, '{}', ${when}, 1
          FROM generate_series(1, ${n}) AS g`)
        yield* sql.unsafe(`INSERT INTO ${t.of(Task.table)} (id, merchant_id, environment, kind, resource_id, status, due_at, attempts,
            created_at, updated_at, version)
          SELECT 'task_' || g, 'mch_' || (g % 50), 'test', 'payment_intent.confirm', 'dord_' || g,
            CASE WHEN g % 20 = 0 THEN 'pending' ELSE 'done' END, ${when}, 1, ${when}, ${when}, 2
          FROM generate_series(1, ${n}) AS g`)
        yield* sql.unsafe(`INSERT INTO ${t.of(WebhookDelivery.attemptTable)} (id, merchant_id, environment, endpoint_id, event_id, attempt,
            duration_millis, created_at, version)
          SELECT 'wha_' || g, 'mch_' || (g % 50), 'test', 'we_1', 'evt_' || g, 1, 10, ${when}, 1
          FROM generate_series(1, ${n}) AS g`)
        yield* sql.unsafe(`INSERT INTO ${t.idempotencyKeys} (api_key_id, key, fingerprint, expires_at, locked_until)
          SELECT 'key_1', 'k-' || g, 'f', ${when}, ${when} FROM generate_series(1, ${n}) AS g`)
        for (const table of [t.of(Event.table), t.of(Task.table), t.of(WebhookDelivery.attemptTable), t.idempotencyKeys]) {
          yield* sql.unsafe(`ANALYZE ${table}`)
        }
        const now = Date.now()
        const cutoff = now - 30 * 24 * 60 * 60 * 1000
        const kinds = purgeKinds(sql, t, now, {
          cutoffs: [Event.table, Task.table, WebhookDelivery.attemptTable].map((table) => ({ table, before: cutoff }))
        })
        // Lapsed reference claims are rare and have no index of their own (docs/retention.md).
        for (const k of kinds.filter((k) => k.kind !== "referenceClaims")) {
          const [text, params] = purgeStatement(sql, k, 1000).compile()
          const plan = (yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${text}`, params)).map((r) => r["QUERY PLAN"]).join("\n")
          assert.notInclude(plan, "Seq Scan", `${k.kind}:\n${plan}`)
          assert.match(plan, /Index Scan/, `${k.kind}:\n${plan}`)
        }
      }))

    it.effect("workers: the next due task is read from indexes, a handful of rows however many tasks are pending (a worker asks after every commit that writes a task)", () =>
      Effect.gen(function*() {
        const own = freshPrefix()
        // Dropped even when an assertion fails: the run fails if anything is left behind (vitestGlobalSetup.ts).
        yield* Effect.addFinalizer(() => Effect.orDie(dropTables(own)))
        yield* PgMigrations.run({ tablePrefix: own })
        const sql = (yield* SqlClient).withoutTransforms()
        const table = tables(yield* validatePrefix(own)).of(Task.table)
        const n = 50_000
        // Pending tasks due over the next days (every open intent's expiry), the first three leased by
        // workers (one lease ending before anything else is due), and finished ones.
        yield* sql.unsafe(`INSERT INTO ${table} (id, merchant_id, environment, kind, resource_id, status, due_at, attempts,
            lease_owner, lease_until, created_at, updated_at, version)
          SELECT 'task_' || lpad(g::text, 6, '0'), 'mch_1', 'test', 'payment_intent.expire', 'dord_' || g,
            CASE WHEN g % 10 = 0 THEN 'done' ELSE 'pending' END,
            timestamptz '2030-01-01' + g * interval '10 seconds', 1,
            CASE WHEN g <= 3 THEN 'w' END,
            CASE WHEN g <= 3 THEN timestamptz '2030-01-01' + interval '5 seconds' + g * interval '1 minute' END,
            now(), now(), 1
          FROM generate_series(1, ${n}) AS g`)
        yield* sql.unsafe(`ANALYZE ${table}`)
        const [row] = yield* sql.unsafe<{ next: string }>(nextDueText(table))
        // Task 4 is the first unleased one (due 40 s in); task 1's lease ends at 65 s, so 40 s wins.
        assert.strictEqual(Number(row!.next), Date.parse("2030-01-01T00:00:40Z"))
        const plan = (yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${nextDueText(table)}`))
          .map((r) => r["QUERY PLAN"]).join("\n")
        assert.notInclude(plan, "Seq Scan", plan)
        const read = [...plan.matchAll(/Scan[^\n]*\(actual rows=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0)
        assert.isAtMost(read, 10, plan)
      }).pipe(Effect.scoped))
  })
})
