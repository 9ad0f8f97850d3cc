/**
 * Why `createTender` could not start on PostgreSQL, in one line naming the cause and what to do
 * (docs/postgres.md, "When it cannot start"), against the real server: a database or role that
 * does not exist, a port nothing listens on, a schema never migrated with `migrate: false`.
 */
import { testDatabaseUrl } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { inspect } from "node:util"
import pg from "pg"
import { assert, describe, it } from "vitest"
import { createTender, isTenderError, type TenderError } from "../src/index.js"

const { pool: ownPool, fresh } = prefixedPool(2)
const quiet = { info() {}, warn() {}, error() {} }
const options = { publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret-123", logger: quiet }

/** `testDatabaseUrl` with one part changed. */
const urlWith = (change: (u: URL) => void) => {
  const u = new URL(testDatabaseUrl)
  change(u)
  return u.toString()
}

/** The rejection of `createTender` on a pool of `url` (or the test pool), the pool ended after. */
const startFailure = async (url: string | undefined, extra: Record<string, unknown> = {}): Promise<TenderError> => {
  const pool = url === undefined ? ownPool : new pg.Pool({ connectionString: url, max: 1 })
  try {
    // `migrate` is an option of createTender's, not of the storage (where it would be refused as unknown).
    const { migrate, ...storage } = extra
    const error = await createTender({ ...options, storage: { postgres: pool, ...storage }, ...(migrate === undefined ? {} : { migrate: migrate as boolean }) })
      .then((t) => t.close().then(() => undefined), (e: unknown) => e)
    assert.isTrue(isTenderError(error), inspect(error))
    return error as TenderError
  } finally {
    if (url !== undefined) await pool.end()
  }
}

describe("createTender: a database it cannot use is named in one line", () => {
  it("start failure: a database that does not exist", async () => {
    const error = await startFailure(urlWith((u) => void (u.pathname = "/tender_no_such_database")))
    assert.strictEqual(
      error.message,
      `tender: could not start: database "tender_no_such_database" does not exist: create it, or name an existing database in the connection string`
    )
    assert.deepStrictEqual([error.code, error.status], ["service_unavailable", 503])
  })

  it("start failure: a role that does not exist", async () => {
    const error = await startFailure(urlWith((u) => void (u.username = "tender_no_such_role")))
    assert.strictEqual(
      error.message,
      `tender: could not start: role "tender_no_such_role" does not exist: create the role, or name an existing one in the connection string`
    )
  })

  it("start failure: a port nothing listens on", async () => {
    const error = await startFailure(urlWith((u) => {
      u.hostname = "127.0.0.1"
      u.port = "1"
    }))
    assert.strictEqual(
      error.message,
      "tender: could not start: connection refused at 127.0.0.1:1: is PostgreSQL running there? check the host and port of the connection string"
    )
  })

  it("start failure: migrate: false on a prefix never migrated says to run tender migrate", async () => {
    const tablePrefix = fresh()
    const error = await startFailure(undefined, { tablePrefix, migrate: false })
    assert.match(
      error.message,
      new RegExp(
        `^tender: could not start: relation "${tablePrefix}\\w+" does not exist: the database is not migrated for this version of Tender; run npx tender migrate \\(or start with migrate: true\\)$`
      )
    )
  })

  it("start failure: the whole cause goes to the host logger's debug and stays on the error", async () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = []
    const pool = new pg.Pool({ connectionString: urlWith((u) => void (u.pathname = "/tender_no_such_database")), max: 1 })
    const error = await createTender({
      ...options,
      logger: { ...quiet, debug: (fields, message) => void lines.push({ fields, message }) },
      storage: { postgres: pool }
    })
      .catch((e: Error) => e)
    await pool.end()
    assert.strictEqual(lines.length, 1)
    assert.strictEqual(lines[0]!.message, (error as Error).message)
    // The driver's own error, at the end of the logged chain of causes.
    assert.include(lines[0]!.fields["cause"], `error: database "tender_no_such_database" does not exist`)
    assert.strictEqual(lines[0]!.fields["err"], (error as Error).cause)
  })
})
