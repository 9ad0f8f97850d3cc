/**
 * The pgbench script of `npm run bench`'s create ceiling: the four statements one
 * POST /payment_intents issues on PostgreSQL (bench/postgres/pg-statements.ts: credentials, claim, webhook
 * endpoints, commit), parameters inlined as literals, the ids and the idempotency key made unique
 * per transaction from pgbench's client id and a random number. Generated from the same
 * statements the ceiling servers run, so the three ceilings cannot drift apart.
 */
import { demoKey } from "@tender/repo-test-support"
import { createPlan, type Statement, statements } from "./pg-statements.js"

const literal = (v: unknown): string => v === null || v === undefined ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replaceAll("'", "''")}'`

/** A value unique per pgbench transaction, as an SQL expression. */
const unique = (tag: string) => `('${tag}' || :client_id || 'x' || :r)`

const inline = (s: Statement, overrides: Record<number, string>) =>
  s.text.replace(/\$(\d+)/g, (_, n: string) => overrides[Number(n)] ?? literal(s.values[Number(n) - 1])).replace(/\s+/g, " ").trim() + ";"

export const createScript = (prefix: string, body: Record<string, unknown>): string => {
  const sql = statements(prefix)
  const p = { apiKeyId: "key_demo_test", merchantId: "mch_demo", environment: "test" }
  const plan = createPlan(p, "pgbench", body)
  const key = unique("pgbench-")
  const intent = unique("dord_pgb")
  return [
    "\\set r random(1, 9000000000000000000)",
    inline(sql.credentials(demoKey.public), {}),
    inline(sql.claim(...plan.claim), { 2: key, 7: key }),
    inline(sql.webhookEndpoints(p.merchantId, p.environment), {}),
    inline(sql.commit(plan.commit), {
      1: intent,
      32: unique("evt_pga"),
      37: intent,
      43: unique("evt_pgb"),
      48: intent,
      54: unique("task_pg"),
      58: intent,
      71: unique("req_pg"),
      73: key
    }),
    ""
  ].join("\n")
}
