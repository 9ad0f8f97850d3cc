/**
 * Migration 0024 (D13): provider account ids unique across merchants, held by the database. An
 * account's id names its notification door, so two merchants must never hold one; until now that
 * was a read before the write (`ProviderAccounts.checkUnique`), which two racing writes could both
 * pass. `<prefix>provider_account_ids` keys every account id to its merchant: a trigger on the
 * merchants table keeps it equal to each row's `provider_accounts`, and its primary key refuses an
 * id another merchant holds (23505, `UniqueViolation`), so `putMerchant` writes nothing then; of
 * two racing writes the second waits on the first's key and is refused once it commits.
 *
 * Existing merchants keep their rows and accounts: their ids are copied in, merchant by merchant
 * in id order. Should two merchants already hold one id (a race before this migration), the first
 * keeps it in the key table and the other's door stays closed (`ProviderAccounts.door` finds no
 * single holder) until an operator renames one of them.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const providerAccountIds = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    // The key table and its trigger function as 0024 named them (0028 renames the one, drops the other).
    const ids = `${prefix}provider_account_ids`
    const kept = `${prefix}provider_accounts_kept`
    yield* sql`CREATE TABLE ${sql(ids)} (
      id text COLLATE "C" PRIMARY KEY,
      merchant_id text NOT NULL
    )`
    yield* sql`CREATE INDEX ${sql(`${ids}_merchant_idx`)} ON ${sql(ids)} (merchant_id)`
    yield* sql`INSERT INTO ${sql(ids)} (id, merchant_id)
      SELECT a->>'id', m.id FROM ${sql(t.merchants)} AS m, jsonb_array_elements(m.provider_accounts) AS a
      ORDER BY m.id
      ON CONFLICT (id) DO NOTHING`
    // A validated prefix and fixed words (as in 0013): safe to quote in the text. A row trigger:
    // the ids of the row written, dropped ones deleted first so a merchant may pass an id on; a
    // merchant deleted (by an operator: Tender never deletes one) frees its ids.
    yield* sql.unsafe(`CREATE FUNCTION "${kept}"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          DELETE FROM "${ids}" WHERE merchant_id = OLD.id;
          RETURN NULL;
        END IF;
        DELETE FROM "${ids}" AS k WHERE k.merchant_id = NEW.id
          AND k.id NOT IN (SELECT a->>'id' FROM jsonb_array_elements(NEW.provider_accounts) AS a);
        INSERT INTO "${ids}" (id, merchant_id)
          SELECT a->>'id', NEW.id FROM jsonb_array_elements(NEW.provider_accounts) AS a
          WHERE NOT EXISTS (SELECT 1 FROM "${ids}" AS k WHERE k.id = a->>'id' AND k.merchant_id = NEW.id);
        RETURN NULL;
      END $$`)
    yield* sql.unsafe(`CREATE TRIGGER "${t.merchants}_accounts_kept" AFTER INSERT OR UPDATE OF provider_accounts OR DELETE ON "${t.merchants}"
      FOR EACH ROW EXECUTE FUNCTION "${kept}"()`)
  })
