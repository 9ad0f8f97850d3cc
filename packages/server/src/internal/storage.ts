/**
 * The storage a host names in `createTender({ storage })`, as the layer core takes. The
 * adapters are loaded only when chosen: a host on PostgreSQL never loads the MongoDB driver,
 * and a host on MongoDB needs `@tender/mongodb` installed beside its `mongodb` client (an
 * optional peer of this package).
 */
import type { Merchants, Storage, Task } from "@tender/core"
import { Tender } from "@tender/core"
import type { PgStorage } from "@tender/postgres"
import { Layer } from "effect"

/**
 * The members of a `pg.Pool` Tender uses, written out so the published types need neither
 * `@types/pg` nor the `mongodb` driver's types in a host that uses only one of them.
 *
 * @since 0.1.0 @category models
 */
export interface PgPoolLike {
  connect: (...args: Array<any>) => any
  query: (...args: Array<any>) => any
  on: (...args: Array<any>) => any
  end: (...args: Array<any>) => any
}

/** The members of a `MongoClient` Tender's options read (the rest is the driver's). @since 0.1.0 @category models */
export interface MongoClientLike {
  db: (name?: string, options?: any) => { readonly databaseName: string }
  startSession: (...args: Array<any>) => any
}

/** The host's `pg.Pool`: Tender borrows it and never ends it. @since 0.1.0 @category models */
export interface PostgresStorage {
  readonly postgres: PgPoolLike
  /** Prefix of every table Tender creates. Default `tender_`. */
  readonly tablePrefix?: string | undefined
  /** The longest one database call may take before the operation answers 503 (docs/postgres.md). Default 10 000. */
  readonly statementTimeoutMs?: number | undefined
  /**
   * Whether Tender's statements are prepared once per connection (docs/postgres.md, "Prepared
   * statements"). `false` behind a pooler that cannot keep them (PgBouncer before 1.21 in
   * transaction mode). Default true.
   */
  readonly preparedStatements?: boolean | undefined
}

/** The host's `MongoClient` (a replica set): Tender borrows it and never closes it. @since 0.1.0 @category models */
export interface MongoStorage {
  readonly mongodb: MongoClientLike
  /** The database of Tender's collections. Default: the client's default database (the one its URL names). */
  readonly database?: string | undefined
  /** Prefix of every collection Tender uses. Default `tender_`. */
  readonly collectionPrefix?: string | undefined
}

/** Tender's own in-memory store: for tests and demos; everything is lost when the process ends. @since 0.1.0 @category models */
export interface MemoryStorage {
  readonly memory: true
}

/** @since 0.1.0 @category models */
export type StorageOptions = PostgresStorage | MongoStorage | MemoryStorage

type StorageLayer = Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, unknown>

/** The layer of the chosen store; `migrate: false` leaves PostgreSQL's schema to the CLI (`tender migrate`). */
export const layerOf = async (options: StorageOptions | undefined, migrate: boolean): Promise<StorageLayer> => {
  if (options === undefined || "memory" in options) return Tender.layerMemoryStorage
  if ("postgres" in options) {
    const { PgStorage } = await import("@tender/postgres")
    const pgOptions = { tablePrefix: options.tablePrefix, statementTimeout: options.statementTimeoutMs, preparedStatements: options.preparedStatements }
    const pool = options.postgres as PgStorage.PgPool
    if (migrate) return PgStorage.layerFromPool(pool, pgOptions)
    return PgStorage.layerWithoutMigrations(pgOptions).pipe(
      // As `layerFromPool`, without the migrations: the pool is acquired without a release (the host owns it).
      Layer.provide(PgStorage.clientOnPool(pool, pgOptions))
    )
  }
  let mongo: typeof import("@tender/mongodb")
  try {
    mongo = await import("@tender/mongodb")
  } catch (cause) {
    throw new Error("tender: storage { mongodb } needs the @tender/mongodb package: npm i @tender/mongodb", { cause })
  }
  const database = options.database ?? options.mongodb.db().databaseName
  // MongoDB's "migration" is its indexes, which `layer` creates at every start (idempotent).
  return mongo.MongoStorage.layer({
    client: options.mongodb as Parameters<typeof mongo.MongoStorage.layer>[0]["client"],
    database,
    collectionPrefix: options.collectionPrefix
  })
}

/** A pg.Pool's settings as node-postgres keeps them (`pool.options`). */
interface PgPoolSettings {
  readonly connectionString?: string
  readonly host?: string
  readonly port?: number | string
  readonly database?: string
  readonly user?: string
}

/** Where a pool connects, `host:port/database`, from its settings and libpq's variables as node-postgres reads them; never the user's password. */
const pgAddress = (pool: PgPoolLike): string => {
  const settings = ((pool as { options?: PgPoolSettings }).options ?? {}) as PgPoolSettings
  const env = process.env
  let fromUrl: { host?: string | undefined; port?: string | undefined; database?: string | undefined } = {}
  if (settings.connectionString !== undefined) {
    try {
      const url = new URL(settings.connectionString)
      fromUrl = {
        host: decodeURIComponent(url.hostname) || undefined,
        port: url.port || undefined,
        database: decodeURIComponent(url.pathname.slice(1)) || undefined
      }
    } catch {
      // A connection string that is no URL (`host=… dbname=…`): named by its settings below.
    }
  }
  const host = settings.host ?? fromUrl.host ?? env["PGHOST"] ?? "localhost"
  const port = settings.port ?? fromUrl.port ?? env["PGPORT"] ?? 5432
  const database = settings.database ?? fromUrl.database ?? env["PGDATABASE"] ?? settings.user ?? env["PGUSER"] ?? "postgres"
  return `${host}:${port}/${database}`
}

/**
 * The line Tender logs once it started, naming the store it runs on (`tender: storage postgres
 * 127.0.0.1:5432/shop, table prefix tender_`): a host whose option was meant for PostgreSQL
 * sees at once that it is not on memory. Never a password.
 */
export const describe = (options: StorageOptions | undefined): string => {
  if (options === undefined || "memory" in options) return "tender: storage memory (everything is lost when the process ends)"
  if ("postgres" in options) return `tender: storage postgres ${pgAddress(options.postgres)}, table prefix ${options.tablePrefix ?? "tender_"}`
  const hosts = (options.mongodb as { options?: { hosts?: ReadonlyArray<unknown> } }).options?.hosts
  const address = Array.isArray(hosts) && hosts.length > 0 ? `${hosts.map(String).join(",")}, ` : ""
  return `tender: storage mongodb ${address}database ${options.database ?? options.mongodb.db().databaseName}, collection prefix ${
    options.collectionPrefix ?? "tender_"
  }`
}
