/**
 * The PostgreSQL storage adapter: `Storage` and `Merchants` on the host's `SqlClient`
 * (`@effect/sql-pg`). Correctness comes from the database: primary keys and unique
 * indexes for ids and merchant_reference, `INSERT ... ON CONFLICT` and row locks for
 * claims, one statement per commit. Any number of processes may share one database.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { MigrationError } from "@effect/sql/Migrator"
import { SqlClient } from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { DirectoryCache, Merchants, ReplayCache, Storage, type Table, Task } from "@tender/core"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import Pg from "pg"
import * as Balances from "./internal/balances.js"
import * as Claims from "./internal/claims.js"
import * as Commit from "./internal/commit.js"
import * as Direct from "./internal/direct.js"
import * as Directory from "./internal/directory.js"
import { fold, storable } from "./internal/errors.js"
import * as Prepared from "./internal/prepared.js"
import * as Purge from "./internal/purge.js"
import { findByStatement, listStatement, walkStatement } from "./internal/queries.js"
import { type Row, selectList, toRecord } from "./internal/records.js"
import { tables, validatePrefix } from "./internal/tables.js"
import * as Tasks from "./internal/tasks.js"
import * as Timeout from "./internal/timeout.js"
import * as PgMigrations from "./PgMigrations.js"

/** @since 0.1.0 @category models */
export interface PgStorageOptions {
  /** Prefix of every table Tender uses. Default `tender_`. */
  readonly tablePrefix?: string | undefined
  /**
   * The most any one call to the database may take before it answers 503 `service_unavailable`
   * (docs/postgres.md, "Statement timeout"). Default 10 seconds.
   */
  readonly statementTimeout?: Duration.DurationInput | undefined
  /**
   * The process's cache of credentials, route availability and each merchant's enabled webhook
   * endpoints (what a create reads to write its deliveries), cleared on every change in any
   * process through `LISTEN/NOTIFY` and bounded by `maxAgeMillis` (docs/performance.md, "Caches
   * across processes"). Needs the `PgClient` (a plain `SqlClient` reads the store every time);
   * `false` turns it off. Default `{ maxAgeMillis: 5000, maxEntries: 10000 }`.
   */
  readonly directoryCache?: DirectoryCache.DirectoryCacheOptions | false | undefined
  /**
   * The process's completed idempotency keys: a replay or a 409 for a key this process has read
   * completed is answered without a statement (a completed key never changes until it expires;
   * docs/postgres.md, "Idempotent replays from the process"). `false` turns it off. Default
   * `{ maxEntries: 10000, maxBodyChars: 8 MiB, marginMillis: 60000 }`.
   */
  readonly replayCache?: ReplayCache.ReplayCacheOptions | false | undefined
  /**
   * Whether each connection prepares Tender's parameterized statements once, under a name, instead
   * of the server parsing and planning them on every call (docs/postgres.md, "Prepared
   * statements"). Applies where Tender makes the client (`layerFromUrl`, `layerFromPool`); on a
   * host's `SqlClient` (`layer`) the host's client decides. Turn it off behind a connection pooler
   * that cannot keep prepared statements (PgBouncer before 1.21 in transaction mode). Default true.
   */
  readonly preparedStatements?: boolean | undefined
}

/** The statement timeout when none is set: 10 seconds. @since 0.1.0 @category constants */
export const defaultStatementTimeout: Duration.Duration = Timeout.defaultStatementTimeout

/**
 * Build the `Storage` and `Merchants` services on the provided `SqlClient`. Does not
 * migrate: run `PgMigrations.run` first (or use `layer`, which does). On a `PgClient` the
 * directory cache listens for changes for as long as the scope lives.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (options: PgStorageOptions = {}) =>
  Effect.gen(function*() {
    const prefix = yield* validatePrefix(options.tablePrefix)
    // Tender reads and writes its own column names: the host's name transforms must not apply.
    const client = yield* SqlClient
    const sql = client.withoutTransforms()
    const t = tables(prefix)
    const millis = Timeout.millisOf(options.statementTimeout)
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    const run = Direct.make(poolOf.get(client), millis)
    // One statement, its rows as records of `table`; a driver failure as a storage error.
    const records = <A extends Table.BaseRecord>(operation: string, table: Table.Table<A>, statement: Statement.Statement<Row>) =>
      run(operation, statement).pipe(
        Effect.map((rows) => rows.map((row) => toRecord(table, row))),
        Effect.catchTag("SqlError", (e) => Effect.fail(fold(operation)(e)))
      )
    // A read by id is one text per table, compiled once: the same string each time, so the prepared
    // statement's name is found without hashing a new 1.5 KB text on every get.
    const byIdTexts = new Map<string, string>()
    const byId = <A extends Table.BaseRecord>(table: Table.Table<A>, id: string) => {
      let text = byIdTexts.get(table.name)
      if (text === undefined) {
        byIdTexts.set(table.name, text = sql`SELECT ${sql.literal(selectList(table))} FROM ${sql(t.of(table))} WHERE id = ${id}`.compile()[0])
      }
      return sql.unsafe<Row>(text, [id])
    }
    const replays = options.replayCache === false ? undefined : ReplayCache.make(options.replayCache)
    const claims = Claims.make(sql, t, run, millis, replays)
    const commit = Commit.make(sql, t, claims, run, millis)
    const purge = Purge.make(sql, t, run)
    const bare = Storage.Storage.of({
      begin: replays === undefined ? claims.begin : ReplayCache.cachedBegin(replays, claims.begin),
      commit,
      // By the primary key alone, the scope checked on the row (4.2: another merchant's or
      // environment's record is the same None as a missing one). With the scope in the WHERE
      // clause the planner may take a list index that leads with merchant and environment and
      // walk the merchant's every row to the id, as it did on a table not yet analyzed
      // (docs/performance.md, "PostgreSQL").
      get: (table, scope, id) =>
        !storable(id) ? Effect.succeed(Option.none()) : Effect.map(
          records(`get ${table.name}`, table, byId(table, id)),
          (found) =>
            Option.filter(
              Option.fromNullable(found[0]),
              (record) => record.merchantId === scope.merchantId && record.environment === scope.environment
            )
        ),
      find: (table, id) =>
        !storable(id)
          ? Effect.succeed(Option.none())
          : Effect.map(records(`find ${table.name}`, table, byId(table, id)), (found) => Option.fromNullable(found[0])),
      list: (table, query) => records(`list ${table.name}`, table, listStatement(sql, t, table, query)),
      findBy: (table, field, value) =>
        !storable(value)
          ? Effect.succeed(Option.none())
          : Effect.map(
            records(`find ${table.name} by ${field}`, table, findByStatement(sql, t, table, field, value)),
            (found) => Option.fromNullable(found[0])
          ),
      walk: (table, query) => records(`walk ${table.name}`, table, walkStatement(sql, t, table, query)),
      // Bounded statement by statement (a purge is one statement per kind).
      purgeExpired: purge,
      balances: (query) => Balances.sums(sql, t, run, query)
    })
    // The directory is core's, over this store (its tables are `Merchants.tables`).
    const bounded = Merchants.make(bare)
    // The cache needs a change signal, which only the PgClient's connection settings give.
    const { merchants, storage } = yield* DirectoryCache.wire(
      { storage: bare, merchants: bounded },
      options.directoryCache,
      Option.isSome(pg)
        ? (cache) => Directory.listen(Directory.clientConfig(pg.value.config), t.directoryChannel, cache, prefix)
        : undefined
    )
    // Each statement by `run`, so bounded by the statement timeout, and cancelled only while it runs.
    const tasks = Tasks.make(sql, t, pg, run)
    return { storage, merchants, tasks }
  })

/**
 * `Storage` and `Merchants` on the host's `SqlClient`, without migrating (run
 * `PgMigrations.run` from your deploy step).
 *
 * @since 0.1.0 @category layers
 */
export const layerWithoutMigrations = (
  options: PgStorageOptions = {}
): Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, never, SqlClient> =>
  Layer.scopedContext(
    Effect.map(make(options), ({ merchants, storage, tasks }) =>
      Context.make(Storage.Storage, storage).pipe(Context.add(Merchants.Merchants, merchants), Context.add(Task.Tasks, tasks)))
  )

/**
 * `Storage` and `Merchants` on the host's `SqlClient`, running the pending migrations
 * first. The host owns the client and its pool.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (
  options: PgStorageOptions = {}
): Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, SqlError | MigrationError, SqlClient> =>
  layerWithoutMigrations(options).pipe(Layer.provide(PgMigrations.layer(options)))

/** @since 0.1.0 @category models */
export interface PgUrlOptions extends PgStorageOptions {
  /** A `postgres://` connection URL. */
  readonly url: string | Redacted.Redacted
  /** Pool size. Default 10. */
  readonly maxConnections?: number | undefined
}

/**
 * For hosts without a client of their own: a pool from a URL, migrated, with `Storage`
 * and `Merchants` on it. Also provides the `SqlClient`, for the host's own queries. Every
 * session of the pool has `statement_timeout` set to the statement timeout (the server stops
 * a slow statement too), unless the URL sets its own; migrations lift it for their transactions.
 *
 * @since 0.1.0 @category layers
 */
export const layerFromUrl = (options: PgUrlOptions) =>
  Layer.unwrapScoped(Effect.map(
    ownPool({
      connectionString: Redacted.value(withStatementTimeout(options.url, Timeout.millisOf(options.statementTimeout))),
      max: options.maxConnections ?? 10,
      application_name: "tender",
      // A connection not made within the statement timeout, or 5 s if that is longer, is given
      // up and its place in the pool given back. Without a bound, connections begun while the
      // server was gone without a word (a host powered off, a partition, a failover whose old
      // address went dark) held every place for as long as the OS tried, and the pool served no
      // one even after the address led to a new primary (docs/postgres.md, "High availability").
      // Not below 5 s (the first connection's check): on a loaded machine a connection that
      // takes longer than a short statement timeout still serves the calls after it.
      connectionTimeoutMillis: Math.max(Timeout.millisOf(options.statementTimeout), 5_000),
      // An idle connection never holds the host's process open (docs/embedding.md, "Shutdown").
      allowExitOnIdle: true
    }, options),
    (pool) => layer(options).pipe(Layer.provideMerge(clientLayer(pool)))
  ))

/**
 * The pool under each client Tender made (`layerFromUrl`, `layerFromPool`, `clientOnPool`), by the
 * `SqlClient` that compiles the statements: `make` runs its statements on it directly
 * (internal/direct.ts). A host's own `SqlClient` is not here, and its statements run through
 * `@effect/sql`.
 */
const poolOf = new WeakMap<object, Pg.Pool>()

/** The `PgClient` on `pool` (as Tender's client sees it), its pool remembered. */
const clientLayer = (pool: Pg.Pool) =>
  PgClient.layerFromPool({ acquire: Effect.succeed(pool), applicationName: "tender" }).pipe(
    Layer.tap((context) => Effect.sync(() => poolOf.set(Context.get(context, SqlClient), pool)))
  )

/** The pool as Tender's client uses it: preparing its statements unless `preparedStatements` is false. */
const seenBy = (pool: Pg.Pool, options: Pick<PgStorageOptions, "preparedStatements">): Pg.Pool =>
  options.preparedStatements === false ? pool : Prepared.preparing(pool)

/**
 * A pool Tender makes, as `PgClient.layer` makes its own: an idle connection's error never reaches
 * the process, the first connection is checked within 5 seconds, and the pool ends with the scope.
 * `PgClient.layer` cannot be used: its pool's connections could not prepare statements.
 */
const ownPool = (config: Pg.PoolConfig, options: PgStorageOptions) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pg.Pool(config)
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(Effect.timeoutFail({
        duration: Duration.seconds(5),
        onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
      }))
    ),
    Effect.map((pool) => seenBy(pool, options))
  )

/**
 * `url` with a `statement_timeout` parameter, which the `pg` driver sends when each connection
 * starts (`PgClient.layer` has no option for it). A URL that sets one already keeps its own.
 */
const withStatementTimeout = (url: string | Redacted.Redacted, millis: number): Redacted.Redacted => {
  const text = typeof url === "string" ? url : Redacted.value(url)
  try {
    const parsed = new URL(text)
    if (parsed.searchParams.has("statement_timeout")) return Redacted.make(text)
    parsed.searchParams.set("statement_timeout", String(millis))
    return Redacted.make(parsed.toString())
  } catch {
    // Not a URL (a socket path): the driver reads it as it is.
    return Redacted.make(text)
  }
}

/**
 * For hosts with a `pg.Pool` of their own: Tender's client on that pool, migrated, with
 * `Storage`, `Tasks` and `Merchants` on it (and the `SqlClient`, for the host's own Effect
 * queries). The host owns the pool: releasing this layer never ends it, so the host ends it
 * after Tender has stopped (docs/embedding.md, "Shutdown"). `PgClient.fromPool` alone asks
 * for `Reactivity`; `PgClient.layerFromPool`, used here, brings it.
 *
 * @since 0.1.0 @category layers
 */
export const layerFromPool = (pool: PgPool, options: PgStorageOptions = {}) => layer(options).pipe(Layer.provideMerge(clientOnPool(pool, options)))

/**
 * The `PgClient` (and `SqlClient`) Tender runs on a host's pool, without its storage: what
 * `layerFromPool` provides, for hosts that migrate separately (`layerWithoutMigrations`). The
 * pool is acquired without a release: it outlives Tender.
 *
 * @since 0.1.0 @category layers
 */
export const clientOnPool = (pool: PgPool, options: Pick<PgStorageOptions, "preparedStatements"> = {}) => clientLayer(seenBy(pool, options))

/** The `pg.Pool` a host already has (the `pg` package that `@effect/sql-pg` depends on). @since 0.1.0 @category models */
export type PgPool = Parameters<typeof PgClient.layerFromPool>[0]["acquire"] extends Effect.Effect<infer P, any, any> ? P : never
