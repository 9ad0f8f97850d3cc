/**
 * Tender's own migrations, under the host's chosen table prefix and in their own
 * migrations table (`<prefix>migrations`), so they never mix with the host's. Running
 * them again is a no-op; several processes may run them at once.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { migrations } from "./internal/migrations.js"
import { tables, validatePrefix } from "./internal/tables.js"

// The migrations themselves (the SQL of each `NNNN_name`) are `internal/migrations/`, listed in `internal/migrations.ts`.
export { migrations } from "./internal/migrations.js"

/** @since 0.1.0 @category models */
export interface MigrateOptions {
  /** Prefix of every table Tender creates. Default `tender_`. */
  readonly tablePrefix?: string | undefined
}

/**
 * Run the pending migrations on the `SqlClient` provided. Safe to call from every process
 * at start, or once from a deploy step: concurrent runs wait for each other.
 *
 * @since 0.1.0 @category migrations
 */
export const run = (options: MigrateOptions = {}) =>
  Effect.gen(function*() {
    const prefix = yield* validatePrefix(options.tablePrefix)
    const sql = (yield* SqlClient).withoutTransforms()
    const table = tables(prefix).migrations
    // Migrator creates its table after probing for it, which two processes starting on an empty
    // database can both do at once. Create it first, one process at a time.
    // Migrations are bounded by the start-up timeout, not the statement timeout (an index build or
    // the wait for another process's migrations may take longer): lifted for their transactions.
    const unbounded = sql.unsafe("SET LOCAL statement_timeout = 0")
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* unbounded
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`tender:migrations:${table}`}))`
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
        migration_id integer PRIMARY KEY,
        created_at timestamp with time zone NOT NULL DEFAULT now(),
        name text NOT NULL
      )`
    }))
    // Migrator's own transaction runs inside this one (as a savepoint), under its SET LOCAL.
    return yield* sql.withTransaction(
      Effect.zipRight(unbounded, Migrator.make({})({ loader: Migrator.fromRecord(migrations(prefix)), table }))
    )
  })

/** Runs the migrations when built. @since 0.1.0 @category layers */
export const layer = (options: MigrateOptions = {}) => Layer.effectDiscard(run(options))
