/**
 * `npm run bench:plans`: fills a scratch table prefix with 100,000 payment intents, asks
 * PostgreSQL for the plan of every list shape of 4.3 (the adapter's own SQL), with the rows
 * each node actually read, and writes them to docs/query-plans.md. Drops the tables after.
 */
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { dropTables, freshPrefix, runSql, url } from "../../packages/postgres/test/database.js"
import { explain, populate, shapes } from "../../packages/postgres/test/plans.js"

const rows = 100_000
const prefix = freshPrefix()

const main = Effect.gen(function*() {
  yield* populate(prefix, rows)
  const out: Array<string> = [
    "# Query plans of the PostgreSQL adapter",
    "",
    `Written by \`npm run bench:plans\` (bench/postgres/plans.ts) on ${new Date().toISOString().slice(0, 10)}: ${rows.toLocaleString("en-US")} payment`,
    "intents over 50 merchants in both environments, every status, then `ANALYZE`. Each plan is",
    "PostgreSQL's for the adapter's own statement (`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)`), so",
    "`actual rows` says how many rows each step read. The table prefix is a scratch one (`t…_`).",
    "The test `packages/postgres/test/QueryPlans.test.ts` checks the same shapes on every run:",
    "no sequential scan, and a deep page reads no more rows than the first.",
    ""
  ]
  for (const [name, query] of shapes(rows)) {
    const plan = yield* explain(prefix, query, true)
    out.push(`## ${name}`, "", "```", plan.replaceAll(prefix, "tender_"), "```", "")
  }
  return out.join("\n")
}).pipe(Effect.ensuring(Effect.orDie(dropTables(prefix))))

runSql(main).then((text) => {
  const path = resolve(import.meta.dirname, "..", "..", "docs", "query-plans.md")
  writeFileSync(path, text)
  process.stdout.write(`wrote ${path} (database ${url.replace(/:[^:@/]*@/, ":***@")})\n`)
}, (e) => {
  process.stderr.write(String(e) + "\n")
  process.exit(1)
})
