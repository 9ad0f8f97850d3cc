/**
 * `createTender({ storage: { postgres: pool } })` on the host's own `pg.Pool` and the real
 * PostgreSQL: migrated at start unless `migrate: false`, and the pool stays the host's.
 */
import { dropPrefixed, promptpay, testDatabaseUrl } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { inspect } from "node:util"
import pg from "pg"
import { assert, describe, it } from "vitest"
import { createTender, isTenderError } from "../src/index.js"
import { seedPath as merchants } from "./fixtures.js"

const { pool, fresh } = prefixedPool(5)
const options = { publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret-123", merchants, logger: { info() {}, warn() {}, error() {} } }

describe("createTender on the host's pg.Pool", () => {
  it("server: migrates at start, serves on the pool, and close leaves the pool open", async () => {
    const tablePrefix = fresh()
    const tender = await createTender({ ...options, storage: { postgres: pool, tablePrefix } })
    const created = await tender.paymentIntents.create(promptpay, { merchant: "mch_demo", environment: "test" })
    const { rows } = await pool.query(`SELECT id FROM "${tablePrefix}payment_intents" WHERE id = $1`, [created.id])
    assert.strictEqual(rows.length, 1)
    await tender.close()
    assert.strictEqual((await pool.query("SELECT 1 AS one")).rows[0].one, 1)
  })

  it("server: one info line at start names the store: postgres, its address and database, the table prefix, never the password", async () => {
    const tablePrefix = fresh()
    const lines: Array<string> = []
    const url = new URL(testDatabaseUrl)
    url.password = "hunter2-secret"
    // The test database trusts its clients: the password is given, and never asked for.
    const named = new pg.Pool({ connectionString: url.toString(), max: 2 })
    const tender = await createTender({
      ...options,
      storage: { postgres: named, tablePrefix },
      logger: { info: (_: unknown, m: string) => void lines.push(m), warn() {}, error() {} }
    })
    await tender.close()
    await named.end()
    const database = url.pathname.slice(1)
    assert.include(lines, `tender: storage postgres ${url.hostname}:${url.port || 5432}/${database}, table prefix ${tablePrefix}`)
    assert.notInclude(lines.join("\n"), "hunter2")
  })

  it("D1 a storage fault rejects with the generic 5xx message; its cause goes to the host's logger", async () => {
    const tablePrefix = fresh()
    const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = []
    const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, message, fields })
    const tender = await createTender({
      ...options,
      storage: { postgres: pool, tablePrefix },
      logger: { info: at("info"), warn: at("warn"), error: at("error") }
    })
    try {
      await pool.query(`ALTER TABLE "${tablePrefix}idempotency_keys" RENAME TO "${tablePrefix}idempotency_keys_away"`)
      const error = await tender.paymentIntents.create(promptpay, { merchant: "mch_demo", environment: "test", idempotencyKey: "fault-1" }).catch((
        e: unknown
      ) => e)
      assert.isTrue(isTenderError(error))
      assert.isAtLeast((error as { status: number }).status, 500)
      assert.notInclude((error as Error).message, "idempotency_keys")
      const line = lines.find((l) => l.level === "error")
      assert.isDefined(line, JSON.stringify(lines))
      assert.match(line!.message, /failed/)
      // The driver's own error, in the cause chain of the error given as `err`.
      assert.include(inspect(line!.fields["err"], { depth: 6 }), "idempotency_keys")
    } finally {
      await pool.query(`ALTER TABLE "${tablePrefix}idempotency_keys_away" RENAME TO "${tablePrefix}idempotency_keys"`)
      await tender.close()
    }
  })

  it("server: migrate: false leaves the schema to `tender migrate`: on an empty database the start fails, saying why", async () => {
    const tablePrefix = fresh()
    let message = ""
    await createTender({ ...options, storage: { postgres: pool, tablePrefix }, migrate: false }).catch((e: Error) => (message = e.message))
    assert.match(message, /^tender: could not start/)
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE starts_with(tablename, $1)", [tablePrefix])
    assert.strictEqual(rows[0].n, 0)
  })

  it("server: starting and closing Tender on the host's pool sends no cancel through it, and the host's statement right after close runs", async () => {
    // A cancel sent by process id through the pool after its statement had answered (or after it
    // waited for a connection) stops whatever that connection runs next: here, the host's query.
    const cancels: Array<string> = []
    const watched = new pg.Pool({ connectionString: testDatabaseUrl, max: 3 })
    const query = watched.query.bind(watched) as (...args: Array<unknown>) => unknown
    ;(watched as unknown as { query: typeof query }).query = (...args) => {
      if (typeof args[0] === "string" && args[0].includes("pg_cancel_backend")) cancels.push(args[0])
      return query(...args)
    }
    try {
      for (let round = 0; round < 8; round++) {
        const tablePrefix = fresh()
        const tender = await createTender({ ...options, storage: { postgres: watched, tablePrefix } })
        await tender.paymentIntents.create(promptpay, { merchant: "mch_demo", environment: "test" })
        await tender.close()
        assert.strictEqual((await watched.query(`SELECT count(*)::int AS n FROM "${tablePrefix}payment_intents"`)).rows[0].n, 1)
        await dropPrefixed(watched, tablePrefix)
      }
      assert.deepStrictEqual(cancels, [])
    } finally {
      await watched.end()
    }
  })

  it("Tender's statements are prepared on the host's pool by default, and never with preparedStatements: false", async () => {
    for (const preparedStatements of [undefined, false]) {
      const tablePrefix = fresh()
      // One connection: the one whose prepared statements are read.
      const one = new pg.Pool({ connectionString: testDatabaseUrl, max: 1 })
      try {
        const tender = await createTender({ ...options, storage: { postgres: one, tablePrefix, preparedStatements } })
        await tender.paymentIntents.create(promptpay, { merchant: "mch_demo", environment: "test" })
        const { rows } = await one.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'tender\\_%' AND strpos(statement, $1) > 0",
          [tablePrefix]
        )
        await tender.close()
        if (preparedStatements === false) assert.strictEqual(rows[0]!.n, 0)
        else assert.isAbove(rows[0]!.n, 0)
      } finally {
        await one.end()
      }
    }
  })
})
