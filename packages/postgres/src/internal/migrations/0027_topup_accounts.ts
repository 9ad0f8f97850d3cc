/**
 * Migration 0027 (D13): a top-up names the provider account that took it (`provider_account`,
 * null for the deployment's), as payment intents, refunds and payouts do since 0019, so its
 * polls and receipt go to that account for its whole life.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { TopupIntent } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const topupAccounts = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    yield* sql`ALTER TABLE ${sql(tables(prefix).of(TopupIntent.table))} ADD COLUMN provider_account text`
  })
