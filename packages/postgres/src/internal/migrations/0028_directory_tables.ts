/**
 * Migration 0028 (issue 49): the merchant directory becomes tables of the storage port
 * (`Merchants.tables`), read and written by the generic statements every table has, so the
 * adapter holds no directory code of its own. Existing rows are kept, reshaped:
 *
 * - merchants and API keys gain `version` (and merchants `created_at`); their ids sort by byte
 *   (`COLLATE "C"`: code point order, as every store), as `Storage.walk` pages by id. `provider_accounts` becomes `json`, which
 *   reads back as written, and the trigger and index of 0019/0024 go: core writes the account keys.
 * - `provider_account_ids` (0024) becomes `provider_accounts`, the keys of every merchant's
 *   accounts: its primary key still holds an account id unique across merchants (D13).
 * - `route_availability` (0013) is keyed by one id, `<kind>:<target>`, the id the table had now
 *   `target`. Its change trigger (0013) stays, as do those of merchants and API keys.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** Migration 0028_directory_tables, under the host's table prefix. */
export const directoryTables = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    // A validated prefix and fixed words (as in 0013): safe to quote in the text.
    yield* sql.unsafe(`DROP TRIGGER "${t.merchants}_accounts_kept" ON "${t.merchants}"`)
    yield* sql.unsafe(`DROP FUNCTION "${prefix}provider_accounts_kept"()`)
    yield* sql.unsafe(`DROP INDEX "${t.merchants}_provider_accounts_idx"`)
    yield* sql`ALTER TABLE ${sql(t.merchants)}
      ALTER COLUMN id TYPE text COLLATE "C",
      ALTER COLUMN provider_accounts DROP DEFAULT,
      ALTER COLUMN provider_accounts TYPE json USING provider_accounts::json,
      ALTER COLUMN provider_accounts SET DEFAULT '[]',
      ADD COLUMN created_at timestamptz(3) NOT NULL DEFAULT now(),
      ADD COLUMN version integer NOT NULL DEFAULT 1`
    yield* sql`ALTER TABLE ${sql(t.apiKeys)}
      ALTER COLUMN id TYPE text COLLATE "C",
      ADD COLUMN version integer NOT NULL DEFAULT 1`
    // The seeded keys a start revokes when its seed leaves them out (`Seed.apply`): a walk of few rows.
    yield* sql`CREATE INDEX ${sql(`${t.apiKeys}_seeded_idx`)} ON ${sql(t.apiKeys)} (id) WHERE seeded`
    const accounts = `${prefix}provider_accounts`
    yield* sql`ALTER TABLE ${sql(`${prefix}provider_account_ids`)} RENAME TO ${sql(accounts)}`
    yield* sql`ALTER TABLE ${sql(accounts)}
      ADD COLUMN created_at timestamptz(3) NOT NULL DEFAULT now(),
      ADD COLUMN version integer NOT NULL DEFAULT 1`
    yield* sql.unsafe(`ALTER TABLE "${accounts}" RENAME CONSTRAINT "${prefix}provider_account_ids_pkey" TO "${accounts}_pkey"`)
    yield* sql`DROP INDEX ${sql(`${prefix}provider_account_ids_merchant_idx`)}`
    // One merchant's account keys, in id order (`Storage.walk` by merchant_id).
    yield* sql`CREATE INDEX ${sql(`${accounts}_merchant_idx`)} ON ${sql(accounts)} (merchant_id, id)`
    yield* sql`ALTER TABLE ${sql(t.routeAvailability)} RENAME COLUMN id TO target`
    yield* sql`ALTER TABLE ${sql(t.routeAvailability)}
      ADD COLUMN id text COLLATE "C",
      ADD COLUMN created_at timestamptz(3),
      ADD COLUMN version integer NOT NULL DEFAULT 1,
      ALTER COLUMN updated_at TYPE timestamptz(3)`
    yield* sql`UPDATE ${sql(t.routeAvailability)} SET id = kind || ':' || target, created_at = updated_at`
    yield* sql`ALTER TABLE ${sql(t.routeAvailability)}
      ALTER COLUMN id SET NOT NULL,
      ALTER COLUMN created_at SET NOT NULL,
      DROP CONSTRAINT ${sql(`${t.routeAvailability}_pkey`)},
      ADD PRIMARY KEY (id)`
  })
