/**
 * One statement on the pool, in one callback, bounded by the statement timeout (docs/postgres.md,
 * "How a statement runs"; docs/performance.md, "The direct statement path").
 *
 * `@effect/sql` runs a statement as a span, a scope, a connection effect and an async wait, and
 * the statement timeout (timeout.ts) forks a fiber around all of that: on a get by id, more CPU
 * per statement than the `pg` driver's own call (`npm run bench:timeout` reads the timeout's share). Here the
 * same driver call (the same pool, so the same prepared statements and type parsers) runs inside
 * a single `Effect.async`, and the statement timeout is a timer in that callback: the answer comes
 * at the deadline whatever the statement does, without a fiber of its own, because nothing here
 * waits for the statement once the timer has answered.
 *
 * The failures are the ones `@effect/sql-pg` reports (a `SqlError` with the driver's error as its
 * cause, told apart by `errors.ts`), and the timeout's is the one `timeout.ts` reports. Where this
 * path would change what someone sees, the statement runs through `@effect/sql` as before
 * (`through`): inside a transaction of `@effect/sql` (its connection is the transaction's) and
 * under a statement transformer of `@effect/sql` (`Statement.withTransformer`). Under a tracer
 * other than Effect's own, the direct path makes the `sql.execute` span `@effect/sql` would
 * (`executeSpan`, docs/observability.md).
 */
import { SqlError } from "@effect/sql/SqlError"
import type { Statement } from "@effect/sql/Statement"
import { type StorageError, Telemetry } from "@tender/core"
import { Effect } from "effect"
import type Pg from "pg"
import * as Cancel from "./cancel.js"
import * as PgInternals from "./pgInternals.js"
import * as SqlInternals from "./sqlInternals.js"
import * as Timeout from "./timeout.js"

/** A statement that has not answered after its cancel gets this long again, then its connection is closed. */
const closeAfterCancelMillis = 5000

/** How long a statement whose caller went away may run on before it is cancelled. */
const abandonedGraceMillis = 100

/**
 * Runs a statement and answers within `millis`, or fails with `StorageUnavailable`.
 *
 * @internal
 */
export type Run = <A>(
  operation: string,
  statement: Statement<A>
) => Effect.Effect<ReadonlyArray<A>, SqlError | StorageError.StorageUnavailable>

type Answer<A> = Effect.Effect<ReadonlyArray<A>, SqlError | StorageError.StorageUnavailable>

/** One statement on its way: what its callbacks share (one object per statement, in place of a closure each). */
interface Call<A> {
  readonly pool: Pg.Pool
  readonly millis: number
  readonly operation: string
  readonly resume: (effect: Answer<A>) => void
  answered: boolean
  client: Pg.PoolClient | undefined
  /** Set while the statement is on the connection: from the query until its callback or a connection error. */
  running: boolean
  /** Whether a cancel went out for this statement and has not been answered yet. */
  cancelling: boolean
  timer: ReturnType<typeof setTimeout> | undefined
  /** The listener for a connection error while the statement runs (`connectionError` on this call). */
  onError: (cause: Error) => void
}

const noListener = () => {}

const answer = <A>(call: Call<A>, effect: Answer<A>) => {
  if (call.answered) return
  call.answered = true
  clearTimeout(call.timer)
  call.resume(effect)
}

const release = <A>(call: Call<A>, cause?: Error) => {
  if (call.client === undefined) return
  const c = call.client
  call.client = undefined
  call.running = false
  c.off("error", call.onError)
  c.release(cause)
}

const connectionError = <A>(call: Call<A>, cause: Error) => {
  // The connection broke mid-statement (as @effect/sql-pg: "Connection error"); the pool drops it.
  release(call, cause)
  answer(call, Effect.fail(new SqlError({ cause, message: "Connection error" })))
}

// At the deadline, best effort, ask the server to stop the statement nobody waits for any more,
// with PostgreSQL's CancelRequest on a socket of its own (cancel.ts): a cancel that needed a
// connection of this pool waited, when every connection held a statement past its deadline,
// for a connection only a cancel could free. The connection goes back to the pool only once
// both the statement and the cancel have answered: a cancel still on its way would otherwise
// stop the next borrower's statement. A cancel that may still arrive (sent, its answer lost),
// or either unanswered for 5 seconds (a frozen server or network), closes the connection, so it
// is lent to no one while a statement nobody waits for may still hold it or a cancel reach it.
const cancel = <A>(call: Call<A>) => {
  if (!call.running || call.client === undefined) return
  const { operation, pool } = call
  const c = call.client
  call.cancelling = true
  const settled = (outcome: Cancel.Outcome) => {
    call.cancelling = false
    if (call.client !== c) return
    if (outcome === "unknown") release(call, new Error(`postgres: the cancel of ${operation} was sent and not answered`))
    else if (!call.running) release(call)
  }
  // A pool that reaches its server through a stream of its own (a connector, a tunnel): the
  // server is not at the connection's host and port, so the cancel goes as a statement of the pool.
  if (pool.options.stream !== undefined) {
    const pid = PgInternals.backendOf(c).processID
    if (pool.ending || pid === null || pid === undefined) settled("not sent")
    else pool.query(`SELECT pg_cancel_backend(${Number(pid)})`, () => settled("taken"))
  } else {
    Cancel.send(PgInternals.backendOf(c), closeAfterCancelMillis, settled)
  }
  setTimeout(() => {
    if (call.client === c) release(call, new Error(`postgres: ${operation} did not answer its cancel`))
  }, closeAfterCancelMillis).unref()
}

/** The statement's deadline: it answers the timeout's failure, then cancels what still runs. */
const deadline = <A>(call: Call<A>) => {
  answer(call, Effect.fail(Timeout.timedOut(call.operation, call.millis)))
  cancel(call)
}

/** A connection lent (or refused) for the call: the statement goes on it, unless the call was answered meanwhile. */
const connected = <A>(call: Call<A>, text: string, params: ReadonlyArray<unknown>, cause: Error | null | undefined, c: Pg.PoolClient | undefined) => {
  if (cause !== undefined && cause !== null) {
    return answer(call, Effect.fail(new SqlError({ cause, message: "Failed to acquire connection" })))
  }
  if (c === undefined) {
    return answer(call, Effect.fail(new SqlError({ cause: new Error("No client returned"), message: "Failed to acquire connection" })))
  }
  if (call.answered) {
    clearTimeout(call.timer)
    return c.release()
  }
  call.client = c
  call.running = true
  c.once("error", call.onError)
  c.query(text, params as Array<unknown>, (error: Error | null, result: Pg.QueryResult) => {
    // Answered: nothing is left to cancel at the deadline (a caller that went away kept it armed).
    clearTimeout(call.timer)
    if (call.client !== c) return
    call.running = false
    if (!call.cancelling) release(call)
    answer(
      call,
      error === null || error === undefined
        // Several commands in one text answer one result each (as @effect/sql-pg reads them).
        ? Effect.succeed((Array.isArray(result) ? result.map((r: Pg.QueryResult) => r.rows ?? []) : result?.rows ?? []) as ReadonlyArray<A>)
        : Effect.fail(new SqlError({ cause: error, message: "Failed to execute statement" }))
    )
  })
}

/**
 * Interrupted (the caller went away: a client that closed its connection, a host's request
 * timeout): stop waiting. A statement still running `abandonedGraceMillis` later is cancelled
 * as at its deadline; one that ends sooner (nearly all: a request's statements take a few
 * milliseconds) ends on its connection as any other and costs no cancel. The API's operations
 * and the workers run uninterruptibly (Operation.run, Workers), so what is cut off here is a
 * read or a commit of another kind, one statement that lands whole or not at all.
 * Cancelled at once through the pool (as @effect/sql-pg does), a full pool's requests going at
 * once (a load generator or a balancer dropping its connections) had every connection wait for
 * a cancel that waited for a connection, and no statement of the process ran until the 5 s
 * `closeAfterCancelMillis` broke the wait (docs/upstream.md, "Cancel without a connection of the pool"); the
 * CancelRequest (cancel.ts) needs no connection of the pool.
 */
const abandon = <A>(call: Call<A>) => {
  call.answered = true
  clearTimeout(call.timer)
  setTimeout(cancel<A>, abandonedGraceMillis, call).unref()
}

/** `text` with `params` on a connection of `pool`, within `millis`. */
const onPool = <A>(
  pool: Pg.Pool,
  millis: number,
  operation: string,
  text: string,
  params: ReadonlyArray<unknown>
): Answer<A> =>
  Effect.async((resume) => {
    const call: Call<A> = {
      pool,
      millis,
      operation,
      resume,
      answered: false,
      client: undefined,
      running: false,
      cancelling: false,
      timer: undefined,
      onError: noListener
    }
    call.onError = (cause) => connectionError(call, cause)
    call.timer = setTimeout(deadline<A>, millis, call)
    pool.connect((cause, c) => connected(call, text, params, cause, c))
    return Effect.sync(() => abandon(call))
  })

/**
 * `Run` on `pool` when there is one (the pool Tender's `PgClient` runs on), through `@effect/sql`
 * bounded by timeout.ts's `bound` otherwise.
 *
 * @internal
 */
export const make = (pool: Pg.Pool | undefined, millis: number): Run => {
  const within = Timeout.bound(millis)
  // Uninterruptible: interrupted, `@effect/sql-pg` sends `pg_cancel_backend` through the pool for
  // the connection its statement ran on, also when that statement has just answered and the
  // connection is back in the pool (the answer and the interruption cross), or when the cancel
  // waited 5 s for a connection of a full pool and went on after; it then stops whichever
  // statement that connection runs next: another of Tender's, or the host's own on a host's pool.
  // Here only statements of a transaction of `@effect/sql` take this path, and the server bounds
  // those (`SET LOCAL statement_timeout`, claims.ts and commit.ts): the caller still gets its
  // answer at the deadline, and the statement ends on the server (docs/postgres.md, "How a
  // statement runs").
  const through: Run = (operation, statement) => within(operation, Effect.uninterruptible(statement))
  if (pool === undefined) return through
  return <A>(operation: string, statement: Statement<A>) =>
    Effect.withFiberRuntime<ReadonlyArray<A>, SqlError | StorageError.StorageUnavailable>((fiber) => {
      if (SqlInternals.needsSqlClient(fiber)) return through(operation, statement)
      const [text, params] = statement.compile()
      const direct = onPool<A>(pool, millis, operation, text, params)
      // Under Effect's default tracer nobody can read a span: none is made.
      return Telemetry.exportsSpans(fiber.currentTracer) ? executeSpan(statement, text, direct) : direct
    })
}

/**
 * The span `@effect/sql` makes for a statement it executes (`sql.execute`, kind client, its
 * client's attributes, `db.operation.name` and `db.query.text`; docs/observability.md), around
 * the direct path. Through `@effect/sql` a statement under an exporting tracer cost its scope and
 * connection effects and, on interruption or at its deadline, a cancel sent as a statement of
 * the pool (`pg_cancel_backend`), which waits for a connection of a full pool (docs/postgres.md,
 * "How a statement runs").
 */
const executeSpan = <A, E>(statement: Statement<unknown>, text: string, effect: Effect.Effect<A, E>) =>
  Effect.useSpan("sql.execute", { kind: "client", captureStackTrace: false }, (span) => {
    for (const [key, value] of SqlInternals.spanAttributesOf(statement)) span.attribute(key, value)
    span.attribute("db.operation.name", "execute")
    span.attribute("db.query.text", text)
    return effect
  })
