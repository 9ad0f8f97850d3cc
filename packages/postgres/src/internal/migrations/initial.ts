/**
 * Migrations 0001 to 0010, written when all of Tender's migrations lived in one file. Later
 * migrations are one file each beside this one, listed in `../migrations.ts`.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Asset, Event, PaymentIntent, PayoutIntent, Refund, Task, TopupIntent, WebhookDelivery, WebhookEndpoint } from "@tender/core"
import { Effect } from "effect"
import { guardFailedCode } from "../commit.js"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/**
 * One index per list shape (D6): `<table>_<name>_idx` on (merchant_id, environment, the shape's
 * column if any, created_at DESC, id DESC), created in the order given. The statements are byte
 * for byte those the migrations first ran, so already-applied databases match new ones.
 */
export const listIndexes = (sql: SqlClient, table: string, shapes: Record<string, string | null>) =>
  Effect.forEach(
    Object.entries(shapes),
    ([name, column]) =>
      sql`CREATE INDEX ${sql(`${table}_${name}_idx`)} ON ${sql(table)} (merchant_id, environment, ${
        sql.literal(column === null ? "" : `${column}, `)
      }created_at DESC, id DESC)`,
    { discard: true }
  )

/** Migrations 0001 to 0010, keyed `NNNN_name` as `Migrator.fromRecord` requires. */
export const initialMigrations = (prefix: TablePrefix) => {
  const t = tables(prefix)
  return {
    "0001_payment_intents": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      // Ids order by byte (COLLATE "C"), as every adapter orders them, whatever the database's collation.
      yield* sql`CREATE TABLE ${sql(t.of(PaymentIntent.table))} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        country text NOT NULL,
        checkout_mode text NOT NULL,
        status text NOT NULL,
        merchant_reference text,
        payment_method text,
        next_action json,
        failure_code text,
        failure_message text,
        processing_reason text,
        receipt json,
        customer json NOT NULL,
        payment_method_options json,
        return_url text,
        device_fingerprint text,
        metadata json,
        external_reference text,
        provider_code text,
        provider_payment_id text,
        fingerprint text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      // One index per list shape of 4.3: the scope alone, and the scope with each equality filter,
      // each ending in the keyset order (created_at, id) descending so a page is an index range.
      yield* listIndexes(sql, t.of(PaymentIntent.table), { list: null, status: "status", country: "country", currency: "currency" })
      // merchant_reference is unique per merchant and environment among payment intents (4.9, D4).
      yield* sql`CREATE UNIQUE INDEX ${sql(`${t.of(PaymentIntent.table)}_reference_key`)} ON ${
        sql(t.of(PaymentIntent.table))
      } (merchant_id, environment, merchant_reference) WHERE merchant_reference IS NOT NULL`

      yield* sql`CREATE TABLE ${sql(t.references)} (
        merchant_id text NOT NULL,
        environment text NOT NULL,
        resource_type text NOT NULL,
        reference text NOT NULL,
        fingerprint text NOT NULL,
        resource_id text NOT NULL,
        locked_until timestamptz(3) NOT NULL,
        completed boolean NOT NULL DEFAULT false,
        PRIMARY KEY (merchant_id, environment, resource_type, reference)
      )`

      yield* sql`CREATE TABLE ${sql(t.idempotencyKeys)} (
        api_key_id text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        locked_until timestamptz(3) NOT NULL,
        response_status integer,
        response_body text,
        response_request_id text,
        PRIMARY KEY (api_key_id, key)
      )`
      yield* sql`CREATE INDEX ${sql(`${t.idempotencyKeys}_expires_idx`)} ON ${sql(t.idempotencyKeys)} (expires_at)`

      yield* sql`CREATE TABLE ${sql(t.merchants)} (
        id text PRIMARY KEY,
        name text NOT NULL,
        allowed_checkout_modes json NOT NULL,
        routes json NOT NULL
      )`
      yield* sql`CREATE TABLE ${sql(t.apiKeys)} (
        id text PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        public_key text NOT NULL UNIQUE,
        secret_hash text NOT NULL,
        revoked_at timestamptz(3),
        created_at timestamptz(3) NOT NULL
      )`
    }),
    "0002_guard_failed": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      // A commit is one statement of data-modifying CTEs; a write whose precondition touched no row
      // calls this to abort it. The SQLSTATE and the constraint field name the failed guard, so the
      // adapter never reads the message text.
      yield* sql`CREATE OR REPLACE FUNCTION ${sql(t.guardFailed)}(guard text) RETURNS integer LANGUAGE plpgsql AS $$
        BEGIN
          RAISE EXCEPTION 'tender: commit precondition % failed', guard
            USING ERRCODE = '${sql.literal(guardFailedCode)}', CONSTRAINT = guard;
        END
      $$`
    }),
    "0003_events_and_tasks": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      const events = t.of(Event.table)
      yield* sql`CREATE TABLE ${sql(events)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        type text NOT NULL,
        resource_type text NOT NULL,
        resource_id text COLLATE "C" NOT NULL,
        resource_version integer NOT NULL,
        ordinal integer NOT NULL,
        data json NOT NULL,
        created_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      // One event per (resource, version, ordinal): a change applied twice is refused (Event.table).
      yield* sql`CREATE UNIQUE INDEX ${sql(`${events}_resource_version_key`)} ON ${sql(events)}
        (merchant_id, environment, resource_id, resource_version, ordinal)`
      yield* listIndexes(sql, events, { list: null, type: "type" })

      const tasks = t.of(Task.table)
      yield* sql`CREATE TABLE ${sql(tasks)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        kind text NOT NULL,
        resource_id text COLLATE "C" NOT NULL,
        status text NOT NULL,
        due_at timestamptz(3) NOT NULL,
        attempts integer NOT NULL,
        lease_owner text,
        lease_until timestamptz(3),
        last_error text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      // The claim's range: pending tasks by due time (SKIP LOCKED walks it past rows other workers hold).
      yield* sql`CREATE INDEX ${sql(`${tasks}_due_idx`)} ON ${sql(tasks)} (due_at, id) WHERE status = 'pending'`
      yield* listIndexes(sql, tasks, { list: null, resource: "resource_id" })
    }),
    "0004_assets": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      const assets = t.of(Asset.table)
      // The bytes live in the row: a receipt is at most 5 MiB, which bytea holds (TOAST compresses it out of line).
      yield* sql`CREATE TABLE ${sql(assets)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        content_type text NOT NULL,
        size integer NOT NULL CHECK (size > 0),
        sha256 text NOT NULL,
        bytes bytea NOT NULL,
        created_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      yield* sql`CREATE INDEX ${sql(`${assets}_list_idx`)} ON ${sql(assets)} (merchant_id, environment, created_at DESC, id DESC)`
    }),
    "0005_webhooks": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      const endpoints = t.of(WebhookEndpoint.table)
      yield* sql`CREATE TABLE ${sql(endpoints)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        url text NOT NULL,
        description text,
        enabled_events json NOT NULL,
        secrets json NOT NULL,
        status text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      yield* sql`CREATE INDEX ${sql(`${endpoints}_status_idx`)} ON ${sql(endpoints)} (merchant_id, environment, status, created_at DESC, id DESC)`
      const attempts = t.of(WebhookDelivery.attemptTable)
      yield* sql`CREATE TABLE ${sql(attempts)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        endpoint_id text COLLATE "C" NOT NULL,
        event_id text COLLATE "C" NOT NULL,
        attempt integer NOT NULL,
        status_code integer,
        duration_millis integer NOT NULL,
        error text,
        created_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      yield* listIndexes(sql, attempts, { list: null, endpoint: "endpoint_id", event: "event_id" })
      // A delivery task names the endpoint it delivers to (Task.targetId).
      yield* sql`ALTER TABLE ${sql(t.of(Task.table))} ADD COLUMN target_id text`
    }),
    "0006_payout_intents": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      const payouts = t.of(PayoutIntent.table)
      yield* sql`CREATE TABLE ${sql(payouts)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        status text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        merchant_reference text NOT NULL,
        destination json NOT NULL,
        description text,
        metadata json,
        failure_code text,
        failure_message text,
        provider_code text,
        fingerprint text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      // merchant_reference is unique per merchant and environment among payouts (4.9, D4, D8).
      yield* sql`CREATE UNIQUE INDEX ${sql(`${payouts}_reference_key`)} ON ${sql(payouts)} (merchant_id, environment, merchant_reference)`
      yield* listIndexes(sql, payouts, { list: null, status: "status", currency: "currency" })
    }),
    "0007_seeded_api_keys": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      // Which keys a seed manages (Seed.apply revokes the ones a later seed leaves out). Keys
      // stored before this migration count as issued at run time: none is revoked by surprise.
      yield* sql`ALTER TABLE ${sql(t.apiKeys)} ADD COLUMN seeded boolean NOT NULL DEFAULT false`
    }),
    "0008_hosted_action": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      // A hosted intent's payer action at its provider, shown inside the hosted page (PaymentIntent.hostedAction).
      yield* sql`ALTER TABLE ${sql(t.of(PaymentIntent.table))} ADD COLUMN hosted_action json`
    }),
    "0009_topup_intents": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      const topups = t.of(TopupIntent.table)
      // Source-side amounts are integer strings that may pass 18 digits (a token with 18 decimals):
      // text holds them exactly, checked to be digits; nothing sorts or sums them in SQL.
      yield* sql`CREATE TABLE ${sql(topups)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        status text NOT NULL,
        merchant_reference text,
        country text,
        destination_amount bigint NOT NULL CHECK (destination_amount > 0),
        destination_currency text NOT NULL,
        credited_amount text NOT NULL CHECK (credited_amount ~ '^[0-9]+$'),
        source_type text NOT NULL,
        source_provider text NOT NULL,
        source_currency text NOT NULL,
        source_network text,
        source_amount text NOT NULL CHECK (source_amount ~ '^[1-9][0-9]*$'),
        converted_amount text NOT NULL CHECK (converted_amount ~ '^[0-9]+$'),
        fee_amount text NOT NULL CHECK (fee_amount ~ '^[0-9]+$'),
        spread_amount text NOT NULL CHECK (spread_amount ~ '^[0-9]+$'),
        fx_rate text NOT NULL,
        fx_spread text NOT NULL,
        fee_rate text NOT NULL,
        fee_fixed text NOT NULL,
        next_action json,
        receipt json,
        provider_topup_id text NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        failure_code text,
        failure_message text,
        fingerprint text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      // merchant_reference is unique per merchant and environment among top-ups (4.9, D4).
      yield* sql`CREATE UNIQUE INDEX ${sql(`${topups}_reference_key`)} ON ${
        sql(topups)
      } (merchant_id, environment, merchant_reference) WHERE merchant_reference IS NOT NULL`
      // One index per list shape of 4.8, each ending in the keyset order (D6).
      yield* listIndexes(sql, topups, { list: null, status: "status", country: "country", currency: "destination_currency", source_type: "source_type" })
    }),
    "0010_refunds": Effect.gen(function*() {
      const sql = (yield* SqlClient).withoutTransforms()
      const intents = t.of(PaymentIntent.table)
      // D10: cancel's reason, and the refund counters. The CHECK is the never-more-than-paid rule
      // held by the database too: a write that would break it fails whatever wrote it.
      yield* sql`ALTER TABLE ${sql(intents)}
        ADD COLUMN cancellation_reason text,
        ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0),
        ADD COLUMN refunds_pending bigint NOT NULL DEFAULT 0 CHECK (refunds_pending >= 0),
        ADD CONSTRAINT ${sql(`${intents}_refunds_check`)} CHECK (amount_refunded + refunds_pending <= amount)`
      const refunds = t.of(Refund.table)
      yield* sql`CREATE TABLE ${sql(refunds)} (
        id text COLLATE "C" PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        payment_intent_id text COLLATE "C" NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        status text NOT NULL,
        reason text,
        merchant_reference text,
        destination json,
        metadata json,
        failure_code text,
        failure_message text,
        provider_code text,
        fingerprint text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        version integer NOT NULL
      )`
      // merchant_reference is unique per merchant and environment among refunds (D10).
      yield* sql`CREATE UNIQUE INDEX ${sql(`${refunds}_reference_key`)} ON ${
        sql(refunds)
      } (merchant_id, environment, merchant_reference) WHERE merchant_reference IS NOT NULL`
      // One index per list shape of GET /refunds (D10, 4.3), each ending in the keyset order (D6).
      yield* listIndexes(sql, refunds, { list: null, status: "status", payment_intent: "payment_intent_id" })
    })
  }
}
