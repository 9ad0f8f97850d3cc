/**
 * `commit`: a list of writes applied in one statement. Each write is a data-modifying CTE;
 * data-modifying CTEs always run to completion, so a write whose precondition must touch a
 * row (a versioned update, completing a claim) is checked after them all, and one that
 * touched none aborts the whole statement through `guard_failed` (migration 0002), which
 * undoes every write. The error names the guard by its constraint field and a SQLSTATE of
 * our own, never by message text. One round trip, and no transaction held open.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment, Statement } from "@effect/sql/Statement"
import { BalanceTransaction, type Storage, StorageError, type Table, Task } from "@tender/core"
import { Effect } from "effect"
import type * as Claims from "./claims.js"
import type { Run } from "./direct.js"
import { codeOf, fold } from "./errors.js"
import { columns, timestamp, values } from "./records.js"
import type { Tables } from "./tables.js"
import { channel, wakePayload } from "./tasks.js"

/** The SQLSTATE `guard_failed` raises (class TD is not used by PostgreSQL). */
export const guardFailedCode = "TD001"

/** The columns an update never changes: a record's identity and scope. */
const fixed = new Set(["id", "merchant_id", "environment", "created_at"])

interface Step {
  readonly statement: Statement<unknown>
  /**
   * The error when the statement touched no row; absent for writes without a precondition. Made
   * only when it happened: an error captures a stack trace, and making one for every step of
   * every commit was 1.1 % of a PostgreSQL create's CPU (`npm run bench:profile` with `DATABASE_URL`).
   */
  readonly lost?: () => StorageError.StorageError
}

const constraintOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "constraint" in cause && typeof cause.constraint === "string"
    ? cause.constraint
    : undefined

/** The commit of one adapter instance: its one statement run by `run` (internal/direct.ts), bounded by the statement timeout. */
export const make = (sql: SqlClient, t: Tables, claims: ReturnType<typeof Claims.make>, run: Run, statementMillis: number) => {
  const REF = sql(t.references)
  const KEY = sql(t.idempotencyKeys)
  const name = (i: number) => `w${i}`

  /**
   * The statement of write `w`; `freedBy` are the positions of the Deletes of the same table
   * earlier in the list. The sub-statements of one statement run in no set order, and an insert
   * running before a delete would find the unique values the delete frees still taken: such an
   * insert reads what each of them returned first (a data-modifying CTE runs when read), so it
   * runs after them, and only when each removed its record (otherwise that Delete's guard fails
   * the commit with `StaleVersion`, which a duplicate key must not hide).
   */
  const step = (w: Storage.Write, freedBy: ReadonlyArray<number>): Step => {
    switch (w._tag) {
      case "Insert": {
        const v = values(w.table, w.record)
        const into = sql`INSERT INTO ${sql(t.of(w.table))} (${sql.literal(columns(w.table).join(", "))})`
        const row = sql.csv(v.map((x) => sql`${x}`))
        return {
          statement: freedBy.length === 0
            ? sql`${into} VALUES (${row})`
            : sql`${into} SELECT ${row} WHERE ${sql.join(" AND ", false)(freedBy.map((j) => sql`(SELECT count(*) FROM ${sql(name(j))}) > 0`))}`
        }
      }
      case "Update": {
        const v = values(w.table, w.record)
        const set = columns(w.table).flatMap((c, i) => fixed.has(c) ? [] : [sql`${sql(c)} = ${v[i]!}`])
        const r = w.record as Table.StoredRecord
        // A record of an unscoped table (the directory's) is known by its id alone.
        const scope = w.table.scoped ? sql`AND merchant_id = ${r.merchantId} AND environment = ${r.environment}` : sql``
        return {
          statement: sql`UPDATE ${sql(t.of(w.table))} SET ${sql.csv(set)}
            WHERE id = ${r.id} ${scope} AND version = ${w.expectedVersion} RETURNING 1`,
          lost: () => new StorageError.StaleVersion({ message: `stale update of ${r.id}` })
        }
      }
      case "Delete":
        return {
          statement: sql`DELETE FROM ${sql(t.of(w.table))} WHERE id = ${w.id} AND version = ${w.expectedVersion} RETURNING 1`,
          lost: () => new StorageError.StaleVersion({ message: `stale delete of ${w.id}` })
        }
      case "CompleteReference":
        return {
          statement: sql`UPDATE ${REF} SET completed = true WHERE ${claims.heldReference(w.reference)} RETURNING 1`,
          lost: () => new StorageError.UniqueViolation({ message: `merchant_reference is no longer held by ${w.reference.resourceId}` })
        }
      case "ReleaseReference":
        return { statement: sql`DELETE FROM ${REF} WHERE ${claims.heldReference(w.reference)} AND NOT completed` }
      case "CompleteIdempotency":
        return {
          statement: sql`UPDATE ${KEY} SET response_status = ${w.response.status}, response_body = ${w.response.body},
              response_request_id = ${w.response.requestId}
            WHERE ${claims.heldKey(w.key)} RETURNING 1`,
          lost: () => new StorageError.ClaimLost({ message: "the idempotency key was taken over by a retry" })
        }
      case "ReleaseIdempotency":
        return { statement: sql`DELETE FROM ${KEY} WHERE ${claims.heldKey(w.key)}` }
      case "RequireAvailable":
        // Checked around the statement, in its transaction (`guarded`).
        return { statement: sql`SELECT 1` }
    }
  }

  /** The check after every write ran: the first guarded write (in list order) that touched no row aborts. */
  const guards = (steps: ReadonlyArray<Step>): Fragment => {
    const checks = steps.flatMap((s, i): Array<Fragment> =>
      s.lost === undefined ? [] : [sql`WHEN NOT EXISTS (SELECT 1 FROM ${sql(name(i))}) THEN ${sql(t.guardFailed)}(${name(i)}::text)`]
    )
    return checks.length === 0 ? sql`1` : sql`CASE ${sql.join(" ", false)(checks)} ELSE 1 END`
  }

  /**
   * A commit with work for idle workers (`Task.wakesWorkers`) notifies them in every process when
   * it commits (LISTEN/NOTIFY). The payload is not empty: a listener of `@effect/sql-pg` drops
   * empty ones.
   */
  const notifies = (wakes: boolean) => wakes ? sql`, pg_notify(${channel(t)}, ${wakePayload})` : sql``

  const BT = sql(t.of(BalanceTransaction.table))

  /**
   * A commit that must not overdraw a balance (D12): one transaction that first takes the
   * balance's lock (an advisory lock of the transaction, so every process on the database waits
   * for the same one, and payments, which never take it, never wait), then applies the writes in
   * a statement whose snapshot is taken after the lock, so it sees every payout committed before,
   * then sums the balance with this commit's own transactions. A debit counts whenever it is
   * available: a concurrent payout decided a moment later than this one is dated after `now`, and
   * must still count. Below zero: `StaleVersion`, and
   * the rollback undoes every write. A serialization failure or deadlock is `StaleVersion` too:
   * the caller decides again, and a lost race is never reported as an insufficient balance.
   */
  const guarded = (
    balances: ReadonlyArray<{ readonly balance: Storage.BalanceKey; readonly now: number }>,
    rest: ReadonlyArray<Storage.Write>
  ): Effect.Effect<void, StorageError.StorageError> => {
    // PostgreSQL text holds no NUL: the parts as a JSON array, which no id can make ambiguous.
    const keyOf = (b: Storage.BalanceKey) => JSON.stringify([b.environment, b.merchantId, b.currency])
    const locks = [...new Set(balances.map((g) => keyOf(g.balance)))].sort()
    const inTransaction = Effect.gen(function*() {
      // A host's pool has no statement_timeout of Tender's: the lock waits and checks are bounded here.
      yield* run("bound the balance's commit", sql.unsafe(`SET LOCAL statement_timeout = ${statementMillis}`))
      for (const key of locks) yield* run("lock balance", sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
      yield* commit(rest)
      for (const g of balances) {
        const rows = yield* run(
          "check balance",
          sql<{ available: string }>`SELECT coalesce(sum(net), 0)::text AS available FROM ${BT}
          WHERE environment = ${g.balance.environment} AND merchant_id = ${g.balance.merchantId}
            AND currency = ${g.balance.currency} AND (available_at <= ${timestamp(g.now)} OR net < 0)`
        )
        if (BigInt(rows[0]?.available ?? "0") < 0n) {
          return yield* new StorageError.StaleVersion({ message: "the available balance does not cover this payout" })
        }
      }
    })
    // Uninterruptible, as every statement of a transaction (direct.ts, `through`): the server ends
    // it at the statement timeout, and no cancel of `@effect/sql-pg` can outlive it.
    return sql.withTransaction(Effect.uninterruptible(inTransaction)).pipe(
      Effect.catchTag("SqlError", (e) => {
        const code = codeOf(e.cause)
        return Effect.fail(
          code === "40001" || code === "40P01"
            ? new StorageError.StaleVersion({ message: "the balance's commit lost a race", cause: e })
            : fold("commit")(e)
        )
      })
    )
  }

  const commit = (writes: ReadonlyArray<Storage.Write>): Effect.Effect<void, StorageError.StorageError> => {
    const balances = writes.flatMap((w) => w._tag === "RequireAvailable" ? [w] : [])
    if (balances.length > 0) return guarded(balances, writes.filter((w) => w._tag !== "RequireAvailable"))
    const steps = writes.map((w, i) =>
      step(w, w._tag !== "Insert" ? [] : writes.flatMap((d, j) => j < i && d._tag === "Delete" && d.table.name === w.table.name ? [j] : []))
    )
    const only = steps[0]
    const wakes = writes.some(Task.wakesWorkers)
    const applied: Effect.Effect<void, SqlError | StorageError.StorageError> = steps.length === 0
      ? Effect.void
      : steps.length === 1 && only !== undefined && only.lost === undefined && !wakes
      // One statement is atomic by itself.
      ? Effect.asVoid(run("commit", only.statement))
      : steps.length === 1 && only !== undefined && !wakes
      // One statement is atomic by itself; its precondition is its own row count.
      ? Effect.flatMap(run("commit", only.statement), (rows) => only.lost !== undefined && rows.length === 0 ? Effect.fail(only.lost()) : Effect.void)
      : Effect.asVoid(
        run("commit", sql`WITH ${sql.csv(steps.map((s, i) => sql`${sql(name(i))} AS (${s.statement})`))} SELECT ${guards(steps)}${notifies(wakes)}`)
      )
    return applied.pipe(
      Effect.catchTag("SqlError", (e) => {
        const guard = codeOf(e.cause) === guardFailedCode ? constraintOf(e.cause) : undefined
        const lost = guard === undefined ? undefined : steps[Number(guard.slice(1))]?.lost
        return Effect.fail(lost?.() ?? fold("commit")(e))
      })
    )
  }

  return commit
}
