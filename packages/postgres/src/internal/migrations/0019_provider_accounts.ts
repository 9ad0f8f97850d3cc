/**
 * Migration 0019 (D13): provider accounts per merchant. A merchant holds its own accounts at
 * providers (`provider_accounts`, jsonb so a notification's door finds its account by id through
 * containment; credentials only sealed), and every payment intent, refund and payout, and every
 * stored notice, names the account it belongs to (`provider_account`, null for the deployment's).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { PaymentIntent, PayoutIntent, ProviderNotification, Refund } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const providerAccounts = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    yield* sql`ALTER TABLE ${sql(t.merchants)} ADD COLUMN provider_accounts jsonb NOT NULL DEFAULT '[]'`
    // An account's door finds its merchant by containment (`@>`), through this index rather than a scan of every merchant.
    yield* sql`CREATE INDEX ${sql(`${t.merchants}_provider_accounts_idx`)} ON ${sql(t.merchants)} USING gin (provider_accounts jsonb_path_ops)`
    for (const table of [PaymentIntent.table, Refund.table, PayoutIntent.table, ProviderNotification.table]) {
      yield* sql`ALTER TABLE ${sql(t.of(table))} ADD COLUMN provider_account text`
    }
  })
