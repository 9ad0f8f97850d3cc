/**
 * The storage a host names in `createTender({ storage })`, as the layer core takes. The
 * adapters are loaded only when chosen: a host on PostgreSQL never loads the MongoDB driver,
 * and a host on MongoDB needs `@tender/mongodb` installed beside its `mongodb` client (an
 * optional peer of this package).
 */
import type { Merchants, Storage, Task } from "@tender/core"
import { Tender } from "@tender/core"
import type { PgStorage } from "@tender/postgres"
import { Effect, Layer } from "effect"
import type { MongoClient } from "mongodb"

/** The host's `pg.Pool`: Tender borrows it and never ends it. @since 0.1.0 @category models */
export interface PostgresStorage {
  readonly postgres: PgStorage.PgPool
  /** Prefix of every table Tender creates. Default `tender_`. */
  readonly tablePrefix?: string | undefined
  /** The longest one database call may take before the operation answers 503 (docs/postgres.md). Default 10 000. */
  readonly statementTimeoutMs?: number | undefined
}

/** The host's `MongoClient` (a replica set): Tender borrows it and never closes it. @since 0.1.0 @category models */
export interface MongoStorage {
  readonly mongodb: MongoClient
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
    const [{ PgStorage }, { PgClient }] = await Promise.all([import("@tender/postgres"), import("@effect/sql-pg")])
    const pgOptions = { tablePrefix: options.tablePrefix, statementTimeout: options.statementTimeoutMs }
    if (migrate) return PgStorage.layerFromPool(options.postgres, pgOptions)
    return PgStorage.layerWithoutMigrations(pgOptions).pipe(
      // As `layerFromPool`, without the migrations: the pool is acquired without a release (the host owns it).
      Layer.provide(PgClient.layerFromPool({ acquire: Effect.succeed(options.postgres), applicationName: "tender" }))
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
  return mongo.MongoStorage.layer({ client: options.mongodb, database, collectionPrefix: options.collectionPrefix })
}
