/**
 * Migration 0018 (D11): the provider notices Tender stored, one row per (provider, provider event
 * id). The primary key is derived from both (`ProviderNotification.recordId`) and the pair is
 * unique on its own, so two processes storing the same notice at once store it once. Read by
 * id alone (the apply task); never listed.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { ProviderNotification } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const providerNotifications = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const table = tables(prefix).of(ProviderNotification.table)
    yield* sql`CREATE TABLE ${sql(table)} (
      id text COLLATE "C" PRIMARY KEY,
      merchant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      provider text NOT NULL,
      event_id text NOT NULL,
      notice json NOT NULL,
      status text NOT NULL CHECK (status IN ('received', 'applied', 'unchanged', 'unmatched', 'mismatch', 'ignored')),
      resource_id text,
      detail text,
      created_at timestamptz(3) NOT NULL,
      updated_at timestamptz(3) NOT NULL,
      version integer NOT NULL
    )`
    yield* sql`CREATE UNIQUE INDEX ${sql(`${table}_provider_event_key`)} ON ${sql(table)} (provider, event_id)`
  })
