import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { PgDiagnosis } from "@tender/postgres"
import { fold } from "../src/internal/errors.js"
import { millisOf } from "../src/internal/timeout.js"

const driverError = (code: string) => Object.assign(new Error("driver"), { code })

describe("driver failures as storage errors", () => {
  it("storage: a unique violation (23505) is UniqueViolation, answered 409 by a create", () => {
    assert.strictEqual(fold("commit")(new SqlError({ cause: driverError("23505") }))._tag, "UniqueViolation")
  })

  it("D1 a database that cannot be reached is StorageUnavailable (503), not a 500", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "08006", "08001", "57P01", "57P03", "53300"]) {
      const e = fold("begin")(new SqlError({ cause: driverError(code) }))
      assert.strictEqual(e._tag, "StorageUnavailable", code)
      assert.strictEqual(e.status, 503, code)
    }
  })

  it("D1 a connection the server closed without a word (the driver's Error with no code) is StorageUnavailable (503); a TypeError is not", () => {
    // What `pg` fails a statement with when the socket ends mid-query without a reset.
    const lost = fold("commit")(new SqlError({ cause: new Error("Connection terminated unexpectedly") }))
    assert.strictEqual(lost._tag, "StorageUnavailable")
    assert.strictEqual(lost.status, 503)
    assert.strictEqual(fold("commit")(new SqlError({ cause: new TypeError("Do not know how to serialize a BigInt") }))._tag, "StorageFailure")
  })

  it("D1 a write refused by a read-only server (25006: a standby still in recovery behind the primary's address during a failover) is StorageUnavailable (503)", () => {
    const e = fold("commit")(new SqlError({ cause: driverError("25006") }))
    assert.strictEqual(e._tag, "StorageUnavailable")
    assert.strictEqual(e.status, 503)
  })

  it("a start on a read-only server (25006: a standby) says to point the connection string at the primary", () => {
    const cause = Object.assign(new Error("cannot execute CREATE TABLE in a read-only transaction"), { code: "25006" })
    assert.strictEqual(
      PgDiagnosis.describe(new SqlError({ cause })),
      "cannot execute CREATE TABLE in a read-only transaction: the server is read-only (a standby, or default_transaction_read_only); point the connection string at the primary"
    )
  })

  it("storage: any other failure is StorageFailure (500), its cause kept for the logs", () => {
    const cause = new SqlError({ cause: driverError("42P01") })
    const e = fold("get")(cause)
    assert.strictEqual(e._tag, "StorageFailure")
    assert.strictEqual(e.cause, cause)
  })

  it("D1 a statement the server cancelled (57014: statement_timeout, or the cancel after the client-side bound) is StorageUnavailable (503)", () => {
    const e = fold("commit")(new SqlError({ cause: driverError("57014") }))
    assert.strictEqual(e._tag, "StorageUnavailable")
    assert.strictEqual(e.status, 503)
  })

  it("the statement timeout defaults to 10 s and takes 1 ms to 2^31 - 1 ms (Node's timer limit)", () => {
    assert.strictEqual(millisOf(undefined), 10_000)
    assert.strictEqual(millisOf("5 seconds"), 5_000)
    assert.strictEqual(millisOf(2 ** 31 - 1), 2 ** 31 - 1)
    for (const bad of [0, -1, 2 ** 31, "0 millis", Infinity] as const) assert.throws(() => millisOf(bad), /statementTimeout must be from 1 ms/, String(bad))
  })
})
