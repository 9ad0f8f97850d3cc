/**
 * Statements run on Tender's own pool directly (packages/postgres/src/internal/direct.ts;
 * docs/postgres.md, "How a statement runs"). The storage contract runs on that pool too
 * (PgStorage.test.ts). Here, what the direct path must keep of `@effect/sql`: a statement inside
 * an `@effect/sql` transaction runs on the transaction's connection; under an exporting tracer
 * every statement is still a `sql.execute` span; a statement transformer still sees every
 * statement; and the statement timeout answers at the deadline
 * from the client, asks the server to stop the statement, and leaves the pool usable.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { assert, layer } from "@effect/vitest"
import { PaymentIntent, Storage, StorageError } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Fixtures } from "@tender/testing"
import { Effect, Exit, Fiber, Layer, Option, Tracer } from "effect"
import { Socket } from "node:net"
import pg from "pg"
import { dropTables, freshPrefix, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
/** The client-side bound here; the server's own (the URL's) is far longer, so only the client can answer in time. */
const timeoutMillis = 400
const serverUrl = (() => {
  const u = new URL(url)
  u.searchParams.set("statement_timeout", "60000")
  u.searchParams.set("application_name", `${prefix}direct`)
  return u.toString()
})()
const scratch = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))
const store = scratch.pipe(
  Layer.provideMerge(PgStorage.layerFromUrl({ url: serverUrl, tablePrefix: prefix, statementTimeout: timeoutMillis, directoryCache: false }))
)

const get = (scope: Fixtures.Scope, id: string) => Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, scope, id))

/** An intent stored in a scope of its own. */
const stored = Effect.gen(function*() {
  const scope = Fixtures.freshScope()
  const intent = Fixtures.intent(scope)
  yield* Fixtures.commit([Storage.Write.insert(PaymentIntent.table, intent)])
  return { scope, intent }
})

/**
 * Another session holding the intents table in ACCESS EXCLUSIVE mode, and how many statements of
 * the store wait for its lock (`blocked`).
 */
const lockedTable = Effect.promise(async () => {
  const holder = new pg.Client({ connectionString: url })
  await holder.connect()
  await holder.query("BEGIN")
  await holder.query(`LOCK TABLE "${prefix}payment_intents" IN ACCESS EXCLUSIVE MODE`)
  // The holder's transaction sees one snapshot of the statistics unless told to take a new one.
  const blocked = () =>
    Effect.promise(async () =>
      (await holder.query("SELECT pg_stat_clear_snapshot()"),
        await holder.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND wait_event_type = 'Lock'`,
          [`${prefix}direct`]
        )).rows[0].n as number
    )
  return { holder, blocked }
})

/** How many statements still wait after up to two seconds for them to go. */
const drained = (blocked: () => Effect.Effect<number>) =>
  Effect.gen(function*() {
    let left = yield* blocked()
    for (let i = 0; i < 40 && left > 0; i++) {
      yield* Effect.promise(() => new Promise((ok) => setTimeout(ok, 50)))
      left = yield* blocked()
    }
    return left
  })

/** A call answered at its deadline: the 503's `StorageUnavailable`. */
const assertUnavailable = (exit: Exit.Exit<unknown, unknown>) =>
  assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof StorageError.StorageUnavailable, String(exit))

/**
 * On a pool of two with `statementTimeout`, two reads of a stored intent (each `read`) wait for
 * a held lock on both connections; `settle` ends them and says what must hold next: every
 * statement stopped on the server while the lock was still held. Then the lock is let go and the
 * pool must serve the next read.
 */
const bothConnectionsOnTheLock = <A, E, R>(
  statementTimeout: number,
  read: (read: ReturnType<typeof get>) => Effect.Effect<A, E, R>,
  settle: (reads: ReadonlyArray<Fiber.RuntimeFiber<A, E>>) => Effect.Effect<string>
) =>
  Effect.gen(function*() {
    const { intent, scope } = yield* stored
    const small = PgStorage.layerFromUrl({ url: serverUrl, tablePrefix: prefix, statementTimeout, directoryCache: false, maxConnections: 2 })
    const { blocked, holder } = yield* lockedTable
    const next = yield* Effect.gen(function*() {
      const reads = yield* Effect.forEach([1, 2], () => Effect.fork(read(get(scope, intent.id))))
      for (let i = 0; i < 100 && (yield* blocked()) < 2; i++) yield* Effect.promise(() => new Promise((ok) => setTimeout(ok, 20)))
      assert.strictEqual(yield* blocked(), 2, "both connections of the pool wait on the lock")
      const stopped = yield* settle(reads)
      assert.strictEqual(yield* drained(blocked), 0, stopped)
      yield* Effect.promise(() => holder.query("ROLLBACK"))
      return yield* Effect.exit(get(scope, intent.id))
    }).pipe(Effect.provide(small), Effect.ensuring(Effect.promise(() => holder.end())))
    assert.isTrue(Exit.isSuccess(next) && Option.isSome(next.value), `the next read: ${String(next)}`)
  })

describeOnPostgres("statements on the pool Tender makes", () => {
  layer(store, { timeout: 60_000 })((it) => {
    it.effect("inside an @effect/sql transaction, the store's statements run on its connection: its writes are seen in it and undone with it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient
        const scope = Fixtures.freshScope()
        const intent = Fixtures.intent(scope)
        let inside: { readonly seen: boolean; readonly outside: number | null } | undefined
        const rolledBack = yield* sql.withTransaction(Effect.gen(function*() {
          yield* Fixtures.commit([Storage.Write.insert(PaymentIntent.table, intent)])
          const seen = Option.isSome(yield* get(scope, intent.id))
          // Read from another connection, the insert is not committed yet.
          const outside = yield* Effect.promise(async () => {
            const c = new pg.Client({ connectionString: url })
            await c.connect()
            try {
              return (await c.query(`SELECT id FROM "${prefix}payment_intents" WHERE id = $1`, [intent.id])).rowCount
            } finally {
              await c.end()
            }
          })
          inside = { seen, outside }
          // Failing undoes the transaction.
          return yield* Effect.fail("roll back" as const)
        })).pipe(Effect.flip)
        assert.strictEqual(rolledBack, "roll back")
        assert.isTrue(inside?.seen, "the transaction reads its own insert")
        assert.strictEqual(inside?.outside, 0, "the insert ran in the transaction, not on a connection of its own")
        assert.isTrue(Option.isNone(yield* get(scope, intent.id)), "the rollback undid the insert")
      }))

    it.effect("under an exporting tracer every statement is a sql.execute span with the attributes @effect/sql gives it (docs/observability.md)", () =>
      Effect.gen(function*() {
        const { intent, scope } = yield* stored
        const base = yield* Effect.tracer
        const spans: Array<{ readonly kind: string; readonly attributes: Map<string, unknown> }> = []
        const tracer = Tracer.make({
          span: (...args) => {
            const span = base.span(...args)
            if (args[0] === "sql.execute") spans.push({ kind: args[5], attributes: span.attributes as Map<string, unknown> })
            return span
          },
          context: base.context
        })
        const found = yield* Effect.withTracer(get(scope, intent.id), tracer)
        assert.isTrue(Option.isSome(found))
        assert.strictEqual(spans.length, 1, "one statement, one span")
        const direct = spans[0]!
        assert.strictEqual(direct.kind, "client")
        assert.include(String(direct.attributes.get("db.query.text")), `FROM "${prefix}payment_intents" WHERE id = $1`)
        // The same statement through @effect/sql itself: every attribute it sets, with the same values.
        const sql = yield* SqlClient
        yield* Effect.withTracer(sql`SELECT 1`, tracer)
        const own = spans[1]!
        assert.strictEqual(own.kind, "client")
        assert.strictEqual(own.attributes.get("db.system.name"), "postgresql")
        for (const [key, value] of own.attributes) {
          if (key === "db.query.text") continue
          assert.deepStrictEqual(direct.attributes.get(key), value, key)
        }
        assert.deepStrictEqual([...direct.attributes.keys()].sort(), [...own.attributes.keys()].sort())
      }))

    it.effect("under an @effect/sql statement transformer the store's statements pass through it", () =>
      Effect.gen(function*() {
        const { intent, scope } = yield* stored
        const texts: Array<string> = []
        const found = yield* Statement.withTransformer(get(scope, intent.id), (statement) => {
          texts.push(statement.compile()[0])
          return Effect.succeed(statement)
        })
        assert.isTrue(Option.isSome(found))
        assert.strictEqual(texts.length, 1)
        assert.include(texts[0], `FROM "${prefix}payment_intents" WHERE id = $1`)
      }))

    it.effect("D1 a statement held past the statement timeout answers StorageUnavailable at the deadline, the server stops it, and the pool serves the next call", () =>
      Effect.gen(function*() {
        const { intent, scope } = yield* stored
        // Another session holds the row: the store's update waits for it, on a server that would wait a minute.
        const holder = new pg.Client({ connectionString: url })
        yield* Effect.promise(async () => {
          await holder.connect()
          await holder.query("BEGIN")
          await holder.query(`SELECT id FROM "${prefix}payment_intents" WHERE id = $1 FOR UPDATE`, [intent.id])
        })
        // The holder's transaction sees one snapshot of the statistics unless told to take a new one.
        const waiting = () =>
          Effect.promise(async () =>
            (await holder.query("SELECT pg_stat_clear_snapshot()"),
              await holder.query(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE 'UPDATE%'`,
                [`${prefix}direct`]
              )).rows[0].n as number
          )
        try {
          const paid = { ...intent, status: "succeeded" as const, nextAction: null, updatedAt: intent.updatedAt + 1, version: intent.version + 1 }
          const exit = yield* Effect.exit(Fixtures.commit([Storage.Write.update(PaymentIntent.table, paid, intent.version)]))
          const cause = Exit.isFailure(exit) ? exit.cause : undefined
          assert.isTrue(cause?._tag === "Fail" && cause.error instanceof StorageError.StorageUnavailable, String(cause))
          // Answered by the client's timer (the server, with its minute, would have answered 57014 "failed").
          assert.include(cause?._tag === "Fail" ? cause.error.message : "", `within the statement timeout of ${timeoutMillis} ms`)
          // The cancel reaches the server: the waiting update is gone while the lock is still held.
          let left = yield* waiting()
          for (let i = 0; i < 50 && left > 0; i++) {
            // The real clock (the test's own clock stands still).
            yield* Effect.promise(() => new Promise((ok) => setTimeout(ok, 100)))
            left = yield* waiting()
          }
          assert.strictEqual(left, 0, "the statement nobody waits for any more was cancelled on the server")
        } finally {
          yield* Effect.promise(async () => {
            await holder.query("ROLLBACK")
            await holder.end()
          })
        }
        const after = yield* get(scope, intent.id)
        assert.strictEqual(Option.getOrThrow(after).status, intent.status, "the timed-out update did not land")
      }))

    it.effect("D1 statements past their deadline on every connection of the pool are stopped on the server without a connection of the pool, and the pool serves the next statement", () =>
      // A deadline far from the 5 s after which a statement that did not answer its cancel loses its connection.
      bothConnectionsOnTheLock(1_000, (read) => Effect.exit(read), (reads) =>
        Effect.gen(function*() {
          for (const exit of yield* Effect.forEach(reads, Fiber.join)) {
            assertUnavailable(exit)
          }
          // With the lock still held, the cancels reach the server: a cancel that needed a connection of
          // this pool could not be sent at all (both are held by the statements it would stop).
          return "both statements past their deadline were stopped on the server while the lock was held"
        })))

    it.effect("D1 on a pool that reaches its server through a stream of its own, a statement past its deadline is cancelled through the pool", () =>
      Effect.gen(function*() {
        const { intent, scope } = yield* stored
        // The pool's connections go through a socket of its own that dials the server whatever
        // host it is asked for (as a connector or a tunnel does): the host the connection knows,
        // a documentation address, is not where the server is.
        const u = new URL(url)
        const streamed = new pg.Pool({
          host: "192.0.2.1",
          port: 5432,
          user: decodeURIComponent(u.username),
          ...(u.password === "" ? {} : { password: decodeURIComponent(u.password) }),
          database: u.pathname.slice(1),
          application_name: `${prefix}direct`,
          max: 3,
          stream: () => {
            const socket = new Socket()
            const dial = socket.connect.bind(socket)
            return Object.assign(socket, { connect: () => dial(Number(u.port || "5432"), u.hostname) })
          }
        })
        const { blocked, holder } = yield* lockedTable
        yield* Effect.gen(function*() {
          const exit = yield* Effect.exit(get(scope, intent.id)).pipe(
            Effect.provide(PgStorage.layerFromPool(streamed, { tablePrefix: prefix, statementTimeout: 400, directoryCache: false }))
          )
          assertUnavailable(exit)
          assert.strictEqual(yield* drained(blocked), 0, "the statement past its deadline was stopped on the server while the lock was held")
        }).pipe(Effect.ensuring(Effect.promise(async () => {
          await holder.query("ROLLBACK")
          await holder.end()
          await streamed.end()
        })))
      }))

    it.effect("reads whose callers went away, filling the pool, are stopped on the server well before their deadline, and the pool serves the next statement: no cancel waits for a connection of the pool they hold", () =>
      // A deadline far from the 5 s after which a cancel nobody answered frees its connection.
      bothConnectionsOnTheLock(3_000, (read) => read, (reads) =>
        Effect.gen(function*() {
          // Their callers go away (interrupted); still waiting on the lock, both are cancelled long before their 3 s deadline.
          yield* Effect.forEach(reads, (f) => Fiber.interrupt(f), { discard: true })
          return "both reads nobody waits for were stopped on the server while the lock was held"
        })))
  })
})
