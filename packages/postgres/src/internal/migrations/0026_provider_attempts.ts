/**
 * Migration 0026: the provider attempts Tender remembers (`ProviderAttempt`), a payment create
 * whose answer was lost, kept until its cancel task has canceled it or its late payment is
 * refunded. Read by id alone (derived from the intent, the provider and the account); never listed.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { ProviderAttempt } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const providerAttempts = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const table = tables(prefix).of(ProviderAttempt.table)
    yield* sql`CREATE TABLE ${sql(table)} (
      id text COLLATE "C" PRIMARY KEY,
      merchant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      payment_intent_id text NOT NULL,
      provider text NOT NULL,
      provider_account text,
      idempotency_key text NOT NULL,
      request json NOT NULL,
      state text NOT NULL CHECK (state IN ('open', 'canceled', 'paid', 'adopted')),
      provider_payment_id text,
      refund_id text,
      detail text,
      created_at timestamptz(3) NOT NULL,
      updated_at timestamptz(3) NOT NULL,
      version integer NOT NULL
    )`
  })
