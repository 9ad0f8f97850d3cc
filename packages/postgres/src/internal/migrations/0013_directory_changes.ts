/**
 * Migration 0013 (docs/performance.md, "Caches across processes"): the host's word on routes and providers
 * (`Merchants.setAvailability`), and a notification on `<prefix>directory` after every statement
 * that changes merchants, API keys or that word, whoever runs it (Tender, a deploy script, an
 * operator in psql). Every process drops its directory cache when it hears it
 * (internal/directory.ts; docs/performance.md, "Caches across processes").
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** Migration 0013_directory_changes, under the host's table prefix. */
export const directoryChanges = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const t = tables(prefix)
    const sql = (yield* SqlClient).withoutTransforms()
    yield* sql`CREATE TABLE ${sql(t.routeAvailability)} (
      kind text NOT NULL CHECK (kind IN ('route', 'provider')),
      id text COLLATE "C" NOT NULL,
      available boolean NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (kind, id)
    )`
    // Names are a validated prefix (lowercase letters, digits, underscores) and fixed words,
    // so quoting them in the text is safe. A statement-level trigger: one notification per statement, however many rows it
    // touched; PostgreSQL delivers it when the transaction commits, and folds duplicates.
    yield* sql.unsafe(`CREATE FUNCTION "${t.directoryChanged}"() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('${t.directoryChannel}', TG_TABLE_NAME); RETURN NULL; END $$`)
    for (const table of [t.merchants, t.apiKeys, t.routeAvailability]) {
      yield* sql.unsafe(`CREATE TRIGGER "${table}_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
        FOR EACH STATEMENT EXECUTE FUNCTION "${t.directoryChanged}"()`)
    }
  })
