/**
 * The MongoDB storage adapter: `Storage`, `Tasks` and `Merchants` on the host's `MongoClient`
 * (the official driver). Correctness comes from the database: unique indexes for ids, unique
 * fields, idempotency keys and merchant_reference claims; conditional single-document writes for
 * claims and leases; one multi-document transaction per commit of several writes. Any number of
 * processes may share one database. Needs a replica set (a single node is enough).
 *
 * @since 0.1.0
 */
import { BalanceTransaction, DirectoryCache, Merchants, ReplayCache, Storage, StorageError, Task } from "@tender/core"
import { Context, type Duration, Effect, Layer, Option, Redacted } from "effect"
import { type Db, type DbOptions, type Document, MongoClient, ReadConcern } from "mongodb"
import * as Backfill from "./internal/backfill.js"
import * as Balances from "./internal/balances.js"
import * as Claims from "./internal/claims.js"
import { collections, validatePrefix } from "./internal/collections.js"
import * as Commit from "./internal/commit.js"
import * as Directory from "./internal/directory.js"
import * as DirectoryUpgrade from "./internal/directoryUpgrade.js"
import { readRecord } from "./internal/documents.js"
import { codeOf, fold } from "./internal/errors.js"
import { byCollection, indexSpecs, retiredIndexes } from "./internal/indexes.js"
import * as Purge from "./internal/purge.js"
import { findByFilter, idFilter, listFilter, listOptions, projection, scopedFilter, walkFilter, walkOptions } from "./internal/queries.js"
import * as TaskClaims from "./internal/taskClaims.js"
import * as Tasks from "./internal/tasks.js"
import * as Timeout from "./internal/timeout.js"
import * as Topology from "./internal/topology.js"

/** The host's `MongoClient`, for `layerClient`; `layerFromUrl` provides one. @since 0.1.0 @category tags */
export class Client extends Context.Tag("@tender/mongodb/MongoStorage/Client")<Client, MongoClient>() {}

/** @since 0.1.0 @category models */
export interface MongoStorageOptions {
  /** The database Tender's collections live in. */
  readonly database: string
  /** Prefix of every collection Tender uses. Default `tender_`. */
  readonly collectionPrefix?: string | undefined
  /**
   * Whether the server deletes expired idempotency keys itself (a TTL index on `expires_at`, 4.9.4).
   * Default true. Turn it off when request times are not the server's time (tests that drive
   * time far from the wall clock) and rely on `purgeExpired` alone.
   */
  readonly expireKeys?: boolean | undefined
  /**
   * The process's cache of credentials, route availability and each merchant's enabled webhook
   * endpoints, cleared on every change in any process through a change stream and bounded by
   * `maxAgeMillis` (docs/performance.md, "Caches across processes"). Needs a deployment with change streams; `false` turns it off.
   * Default `{ maxAgeMillis: 5000, maxEntries: 10000 }`.
   */
  readonly directoryCache?: DirectoryCache.DirectoryCacheOptions | false | undefined
  /**
   * The process's completed idempotency keys: a replay or a 409 for a key this process has read
   * completed is answered without a round trip (a completed key never changes until it expires;
   * docs/postgres.md, "Idempotent replays from the process"). `false` turns it off. Default
   * `{ maxEntries: 10000, maxBodyChars: 8 MiB, marginMillis: 60000 }`.
   */
  readonly replayCache?: ReplayCache.ReplayCacheOptions | false | undefined
  /**
   * The most any one call to MongoDB may take before it answers 503 `service_unavailable`
   * (docs/mongodb.md, "Timeouts"): every storage, directory and task call, and on the server the
   * majority write concern's `wtimeoutMS`, a commit's `maxCommitTimeMS` and a read's `maxTimeMS`.
   * Default 10 seconds.
   */
  readonly operationTimeout?: Duration.DurationInput | undefined
}

/**
 * The `Db` handle Tender uses, with its BSON options stated, so the host's client options
 * (`promoteValues: false`, `useBigInt64`, `raw`, a secondary read preference, `w: 1`, a `local`
 * read concern) never change what Tender reads, where, or how durably it writes: claims must read
 * what they just wrote, and an acknowledged claim or commit must survive a failover (with `w: 1`
 * it can roll back, and a retry call the provider again). Writes wait for a majority of the
 * replica set (at most `wtimeoutMS`), reads see only majority-committed data, so a completed key
 * read into the replay cache is one no failover takes back (docs/mongodb.md, "Durability").
 *
 * @since 0.1.0
 */
export const dbOptions: DbOptions = {
  readPreference: "primary",
  readConcern: new ReadConcern("majority"),
  writeConcern: { w: "majority", wtimeoutMS: Timeout.millisOf(undefined) },
  promoteValues: true,
  promoteLongs: true,
  promoteBuffers: false,
  useBigInt64: false,
  bsonRegExp: false,
  ignoreUndefined: false,
  raw: false
}

/** `dbOptions` with the majority write concern waiting at most `millis` (the operation timeout). */
const handleOptions = (millis: number): DbOptions => ({ ...dbOptions, writeConcern: { w: "majority", wtimeoutMS: millis } })

const call = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })

/**
 * Create every index Tender uses (unique ids and fields, keys, references, list and claim
 * indexes, the TTL of keys), and so the collections. Idempotent: an index that exists with the
 * same key and options is left as it is, so any number of processes may run it at once. `layer`
 * runs it at every start.
 *
 * @since 0.1.0 @category setup
 */
export const setup = (client: MongoClient, options: MongoStorageOptions): Effect.Effect<void, StorageError.StorageError> =>
  Effect.gen(function*() {
    const c = collections(yield* validatePrefix(options.collectionPrefix))
    const db = client.db(options.database, dbOptions)
    const specs = indexSpecs(c, { expireKeys: options.expireKeys ?? true })
    for (const retired of retiredIndexes(c)) {
      yield* call(`drop index ${retired.name} of ${retired.collection}`, () => db.collection(retired.collection).dropIndex(retired.name)).pipe(
        // 26 NamespaceNotFound (no collection yet), 27 IndexNotFound (dropped already, or never made).
        Effect.catchIf((e) => [26, 27].includes(codeOf(e.cause) ?? 0), () => Effect.void)
      )
    }
    // Issue 49: the directory's documents as its tables expect them, before their unique indexes.
    yield* DirectoryUpgrade.run(db, c)
    for (const [collection, group] of byCollection(specs)) {
      yield* call(`create indexes of ${collection}`, () =>
        db.collection(collection).createIndexes(group.map(({ collection: _, ...spec }) => ({ ...spec, key: { ...spec.key } }))))
    }
    yield* TaskClaims.backfillPools(db.collection(c.of(Task.table)))
    // D12: the balance transactions of the history before the ledger, once (after the index that dedupes them).
    yield* Backfill.run(db, c)
  })

/**
 * Whether the deployment runs transactions; fails with one clear message on a standalone server.
 *
 * @since 0.1.0 @category setup
 */
export const checkDeployment = (db: Db, database: string): Effect.Effect<Topology.Topology, StorageError.StorageError> =>
  Effect.tryPromise({
    try: () => db.command({ hello: 1 }),
    catch: (error) => {
      const folded = fold("hello")(error)
      // Name the cause where the driver says it: a replica set whose members cannot be reached.
      const why = Topology.unreachableSet(error)
      return why === undefined ? folded : new StorageError.StorageUnavailable({ message: `mongodb: hello failed: ${why}`, cause: error })
    }
  }).pipe(
    Effect.map((hello: Document) => Topology.classify(hello)),
    Effect.filterOrFail(Topology.supportsTransactions, () => new StorageError.StorageFailure({ message: Topology.standaloneMessage(database) }))
  )

/**
 * The three services on `client`, without creating indexes (run `setup` first, or use `layer`).
 * Fails on a standalone server. The directory cache's change stream lives as long as the scope.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (client: MongoClient, options: MongoStorageOptions) =>
  Effect.gen(function*() {
    const c = collections(yield* validatePrefix(options.collectionPrefix))
    const millis = yield* Effect.try({
      try: () => Timeout.millisOf(options.operationTimeout),
      catch: (e) => new StorageError.StorageFailure({ message: String(e) })
    })
    const within = Timeout.bound(millis)
    const db = client.db(options.database, handleOptions(millis))
    const topology = yield* within("hello", checkDeployment(db, options.database))
    const replays = options.replayCache === false ? undefined : ReplayCache.make(options.replayCache)
    const claims = Claims.make(db.collection(c.idempotencyKeys), db.collection(c.references), replays)
    const begin = (request: Storage.BeginRequest) => within("begin", claims.begin(request))
    const commit = Commit.make(client, db, c, millis)
    const reads = { projection, maxTimeMS: millis }
    const purge = Purge.make({
      keys: db.collection(c.idempotencyKeys),
      references: db.collection(c.references),
      of: (table) => db.collection(c.of(table))
    })
    const bare = Storage.Storage.of({
      begin: replays === undefined ? begin : ReplayCache.cachedBegin(replays, begin),
      commit: (writes) => within("commit", commit(writes)),
      get: (table, scope, id) =>
        within(`get ${table.name}`, call(`get ${table.name}`, () => db.collection(c.of(table)).findOne(scopedFilter(scope, id), reads))).pipe(
          Effect.flatMap((doc) => doc === null ? Effect.succeed(Option.none()) : Effect.asSome(readRecord(table, doc)))
        ),
      find: (table, id) =>
        within(`find ${table.name}`, call(`find ${table.name}`, () => db.collection(c.of(table)).findOne(idFilter(id), reads))).pipe(
          Effect.flatMap((doc) => doc === null ? Effect.succeed(Option.none()) : Effect.asSome(readRecord(table, doc)))
        ),
      list: (table, query) =>
        // The driver reads a limit of 0 as "no limit".
        query.limit <= 0
          ? Effect.succeed([])
          : within(
            `list ${table.name}`,
            call(
              `list ${table.name}`,
              () => db.collection(c.of(table)).find(listFilter(table, query), { ...listOptions(query.limit), maxTimeMS: millis }).toArray()
            )
          ).pipe(
            Effect.flatMap((docs) => Effect.forEach(docs, (d) => readRecord(table, d)))
          ),
      findBy: (table, field, value) =>
        within(`find ${table.name} by ${field}`, call(`find ${table.name}`, () => db.collection(c.of(table)).findOne(findByFilter(table, field, value), reads)))
          .pipe(
            Effect.flatMap((doc) => doc === null ? Effect.succeed(Option.none()) : Effect.asSome(readRecord(table, doc)))
          ),
      walk: (table, query) =>
        query.limit <= 0 ? Effect.succeed([]) : within(
          `walk ${table.name}`,
          call(`walk ${table.name}`, () =>
            db.collection(c.of(table)).find(walkFilter(table, query), { ...walkOptions(query.limit), maxTimeMS: millis }).toArray())
        ).pipe(Effect.flatMap((docs) =>
          Effect.forEach(docs, (d) => readRecord(table, d))
        )),
      balances: (query) =>
        within(
          "balances",
          call("balances", () => db.collection(c.of(BalanceTransaction.table)).aggregate([...Balances.pipeline(query)], { maxTimeMS: millis }).toArray())
        ).pipe(
          Effect.map((docs) => docs.map(Balances.toTotal))
        ),
      purgeExpired: (request) => within("purge", purge(request))
    })
    // The directory is core's, over this store (its collections are `Merchants.tables`).
    const bounded = Merchants.make(bare)
    // The cache needs a change signal: change streams, which a standalone server has not.
    const { merchants, storage } = yield* DirectoryCache.wire(
      { storage: bare, merchants: bounded },
      options.directoryCache,
      Topology.supportsChangeStreams(topology)
        ? (cache) => Directory.listen(db, c.prefix, cache)
        : undefined
    )
    const k = Tasks.make(db.collection(c.of(Task.table)), Topology.supportsChangeStreams(topology))
    const tasks = Task.Tasks.of({
      claim: (request) => within("claim tasks", k.claim(request)),
      nextDue: within("next due task", k.nextDue),
      backlog: (now) => within("task backlog", k.backlog(now)),
      // A long-lived change stream: not a call, so not bounded.
      wakeups: k.wakeups
    })
    return { storage, tasks, merchants }
  })

// The deployment is checked (in `make`) before `setup` writes anything: a standalone server is
// refused with its one message and left as it was.
const servicesLayer = (client: MongoClient, options: MongoStorageOptions) =>
  Layer.scopedContext(
    Effect.zipLeft(make(client, options), setup(client, options)).pipe(
      Effect.map(({ merchants, storage, tasks }) =>
        Context.make(Storage.Storage, storage).pipe(Context.add(Merchants.Merchants, merchants), Context.add(Task.Tasks, tasks))
      )
    )
  )

/**
 * `Storage`, `Tasks` and `Merchants` on the host's client, creating the indexes first. The host
 * owns the client: it is never closed here.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (
  options: MongoStorageOptions & { readonly client: MongoClient }
): Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, StorageError.StorageError> => servicesLayer(options.client, options)

/**
 * As `layer`, with the client taken from the `Client` tag.
 *
 * @since 0.1.0 @category layers
 */
export const layerClient = (
  options: MongoStorageOptions
): Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, StorageError.StorageError, Client> =>
  Layer.unwrapEffect(Effect.map(Client, (client) => servicesLayer(client, options)))

/** @since 0.1.0 @category models */
export interface MongoUrlOptions extends Omit<MongoStorageOptions, "database"> {
  /** A `mongodb://` or `mongodb+srv://` connection string. */
  readonly url: string | Redacted.Redacted
  /** Default: the database the URL names, else `tender`. */
  readonly database?: string | undefined
}

/**
 * The database a connection string names (`mongodb://host/db?...`), if any.
 *
 * @since 0.1.0
 */
export const databaseOfUrl = (url: string): string | undefined => {
  const rest = url.replace(/^mongodb(\+srv)?:\/\//, "")
  const slash = rest.indexOf("/")
  if (slash < 0) return undefined
  const name = decodeURIComponent(rest.slice(slash + 1).split("?")[0] ?? "")
  return name === "" ? undefined : name
}

/**
 * A connected client from a URL, closed when the layer's scope closes.
 *
 * @since 0.1.0 @category layers
 */
export const layerClientFromUrl = (url: string | Redacted.Redacted): Layer.Layer<Client, StorageError.StorageError> =>
  Layer.scoped(
    Client,
    Effect.acquireRelease(
      Effect.flatMap(
        Effect.try({ try: () => new MongoClient(Redacted.isRedacted(url) ? Redacted.value(url) : url, { appName: "tender" }), catch: fold("connect") }),
        (client) => Effect.as(call("connect", () => client.connect()), client)
      ),
      (client) => Effect.ignore(call("close", () => client.close()))
    )
  )

/**
 * For hosts without a client of their own: connects to `url`, creates the indexes, and provides
 * `Storage`, `Tasks` and `Merchants` and the `Client` (for the host's own queries). The client is
 * closed when the layer's scope closes.
 *
 * @since 0.1.0 @category layers
 */
export const layerFromUrl = (
  options: MongoUrlOptions
): Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants | Client, StorageError.StorageError> => {
  const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
  return layerClient({ ...options, database: options.database ?? databaseOfUrl(url) ?? "tender" }).pipe(
    Layer.provideMerge(layerClientFromUrl(options.url))
  )
}
