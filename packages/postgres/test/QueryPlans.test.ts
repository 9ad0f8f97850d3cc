import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, runSql, skipReason } from "./database.js"
import { explain, explainRefunds, explainTopups, populate, populateRefunds, populateTopups, refundShapes, shapes, topupShapes } from "./plans.js"

const rows = 100_000

if (skipReason !== undefined) {
  describe("query plans", () => it.skip(`skipped: ${skipReason}`, () => {}))
} else {
  const prefix = freshPrefix()
  afterAll(() => runSql(dropTables(prefix)))

  describe("query plans", () => {
    it.layer(client, { timeout: 120_000 })((it) => {
      it.effect("4.3 every list shape and filter is answered from an index, never a sequential scan", () =>
        Effect.gen(function*() {
          yield* populate(prefix, rows)
          for (const [name, query] of shapes(rows)) {
            const plan = yield* explain(prefix, query)
            assert.notInclude(plan, "Seq Scan", `${name}:\n${plan}`)
            assert.match(plan, /Index (Only )?Scan|Bitmap Index Scan/, `${name}:\n${plan}`)
          }
        }))

      it.effect("4.8 every top-up list shape and filter (source_type single and several included) is answered from an index, never a sequential scan", () =>
        Effect.gen(function*() {
          yield* populateTopups(prefix, rows)
          for (const [name, query] of topupShapes(rows)) {
            const plan = yield* explainTopups(prefix, query)
            assert.notInclude(plan, "Seq Scan", `${name}:\n${plan}`)
            assert.match(plan, /Index (Only )?Scan|Bitmap Index Scan/, `${name}:\n${plan}`)
          }
        }))

      it.effect("D10 every refund list shape and filter (payment_intent, status, merchant_reference, created) is answered from an index, never a sequential scan", () =>
        Effect.gen(function*() {
          yield* populateRefunds(prefix, rows)
          for (const [name, query] of refundShapes(rows)) {
            const plan = yield* explainRefunds(prefix, query)
            assert.notInclude(plan, "Seq Scan", `${name}:\n${plan}`)
            assert.match(plan, /Index (Only )?Scan|Bitmap Index Scan/, `${name}:\n${plan}`)
          }
        }))

      it.effect("D6 a page deep down the list reads no more rows than the first page", () =>
        Effect.gen(function*() {
          const [first, deep] = [shapes(rows)[0]![1], shapes(rows)[1]![1]]
          const readBy = (plan: string) =>
            [...plan.matchAll(/Index Scan[^\n]*\(actual rows=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
          const firstPlan = yield* explain(prefix, { ...first, limit: 11 }, true)
          const deepPlan = yield* explain(prefix, deep, true)
          assert.strictEqual(readBy(firstPlan), 11, firstPlan)
          assert.strictEqual(readBy(deepPlan), 11, deepPlan)
        }))
    })
  })
}
