/**
 * Every index Tender creates, as pure data derived from the core tables: `setup` hands these
 * to `createIndexes`, which does nothing for an index that exists with the same key and
 * options, so running it at every start, from any number of processes at once, is safe.
 *
 * A new resource is its `Table` and one entry of `resources`; a new list filter is one name
 * in its entry.
 */
import {
  Asset,
  BalanceTransaction,
  Event,
  Merchants,
  PaymentIntent,
  PayoutIntent,
  ProviderAttempt,
  ProviderNotification,
  Refund,
  Table,
  Task,
  TopupIntent,
  WebhookDelivery,
  WebhookEndpoint
} from "@tender/core"
import type { Document, IndexDirection } from "mongodb"
import type { Collections } from "./collections.js"
import { fieldOf } from "./documents.js"

/** One index of one collection, as `createIndexes` takes it. */
export interface IndexSpec {
  readonly collection: string
  readonly name: string
  readonly key: Readonly<Record<string, IndexDirection>>
  readonly unique?: true
  readonly partialFilterExpression?: Document
  readonly expireAfterSeconds?: number
}

/** A stored resource and the fields its lists filter on by equality (4.3). */
export interface Resource {
  readonly table: Table.Table<any>
  readonly listFilters: ReadonlyArray<string>
}

/** The stored resources of core and the list filters each serves. */
export const resources: ReadonlyArray<Resource> = [
  { table: PaymentIntent.table, listFilters: ["status", "country", "currency", "merchantReference"] },
  { table: Event.table, listFilters: ["type", "resourceId"] },
  { table: Task.table, listFilters: ["resourceId"] },
  { table: Asset.table, listFilters: [] },
  { table: WebhookEndpoint.table, listFilters: ["status"] },
  { table: WebhookDelivery.attemptTable, listFilters: ["endpointId", "eventId"] },
  { table: PayoutIntent.table, listFilters: ["status", "currency", "merchantReference"] },
  { table: TopupIntent.table, listFilters: ["status", "country", "destinationCurrency", "merchantReference", "sourceType"] },
  { table: Refund.table, listFilters: ["status", "paymentIntentId", "merchantReference"] },
  // Stored provider notices (D11): read by id alone; `unique_provider_event` dedupes (provider, event id).
  { table: ProviderNotification.table, listFilters: [] },
  // D12: `source_type` keeps one transaction per money event; the balance sums match on the scope.
  { table: BalanceTransaction.table, listFilters: ["type", "source", "currency"] },
  // Provider attempts whose answer was lost: read by their derived id alone.
  { table: ProviderAttempt.table, listFilters: [] }
]

/** The BSON type a stored value of each kind has: a partial index over it skips nulls. */
const bsonType: Record<Table.StorageKind, string> = {
  text: "string",
  amount: "string",
  integer: "number",
  millis: "date",
  json: "object",
  boolean: "bool",
  bytes: "binData"
}

/** The keyset order of every list (D6), after the scope and at most one equality. */
const keyset = { created_at: -1, id: -1 } as const

/** The indexes of one stored resource. */
export const resourceIndexes = (c: Collections, resource: Resource): ReadonlyArray<IndexSpec> => {
  const { table } = resource
  const collection = c.of(table)
  const scope = { merchant_id: 1, environment: 1 } as const
  return [
    // `find` reads by id alone; a duplicate id is a UniqueViolation (code 11000).
    { collection, name: "id_unique", key: { id: 1 }, unique: true },
    // Each unique constraint within a merchant and environment. Null values never collide: the
    // partial filter leaves out every document where a field of the constraint is null, and
    // every one its `where` does not hold for (a pending delivery is unique, a done one is not).
    ...table.unique.map((u): IndexSpec => {
      const fields = u.fields.map((name) => fieldOf(table, name))
      const where = Object.entries(u.where ?? {}).map(([name, value]) => [fieldOf(table, name).column, value] as const)
      return {
        collection,
        name: `unique_${u.name}`,
        key: { ...scope, ...Object.fromEntries(fields.map((f) => [f.column, 1])) },
        unique: true,
        partialFilterExpression: {
          ...Object.fromEntries(fields.map((f) => [f.column, { $type: bsonType[f.kind] }])),
          ...Object.fromEntries(where)
        }
      }
    }),
    { collection, name: "list", key: { ...scope, ...keyset } },
    ...resource.listFilters.map((name): IndexSpec => {
      const column = fieldOf(table, name).column
      return { collection, name: `list_${column}`, key: { ...scope, [column]: 1, ...keyset } }
    }),
    // Claims take the earliest due pending task first: (due_at, id) within pending. The leased
    // pending tasks (those being worked on) by lease end: `nextDue` reads them (internal/tasks.ts).
    ...(table.name === Task.table.name
      ? [
        { collection, name: "claim", key: { status: 1, due_at: 1, id: 1 } } satisfies IndexSpec,
        {
          collection,
          name: "leased",
          key: { lease_until: 1 },
          partialFilterExpression: { status: "pending", lease_until: { $type: "date" } }
        } satisfies IndexSpec,
        ...claimIndexes(collection)
      ]
      : []),
    ...retentionIndexes(collection, table)
  ]
}

/**
 * The indexes of the fair claim (internal/taskClaims.ts), on the tasks collection: partial on the
 * pool each task document carries, as a partial filter cannot say `kind: { $ne: … }`.
 */
export const claimIndexes = (collection: string): ReadonlyArray<IndexSpec> => [
  { collection, name: "claim_money", key: { merchant_id: 1, due_at: 1, id: 1 }, partialFilterExpression: { status: "pending", pool: "money" } },
  {
    collection,
    name: "claim_deliveries",
    key: { merchant_id: 1, target_id: 1, due_at: 1, id: 1 },
    partialFilterExpression: { status: "pending", pool: "webhooks" }
  },
  {
    collection,
    name: "in_flight",
    key: { target_id: 1, lease_until: 1 },
    partialFilterExpression: { status: "pending", pool: "webhooks", lease_until: { $type: "date" } }
  },
  {
    collection,
    name: "merchant_in_flight",
    key: { merchant_id: 1, lease_until: 1 },
    partialFilterExpression: { status: "pending", pool: "webhooks", lease_until: { $type: "date" } }
  },
  { collection, name: "pool_due", key: { pool: 1, due_at: 1, id: 1 }, partialFilterExpression: { status: "pending" } }
]

/**
 * The retention purge (internal/purge.ts) takes the oldest due documents through these, so a
 * batch reads what it deletes, however large the collection (docs/retention.md).
 */
const retentionIndexes = (collection: string, table: Table.Table<any>): ReadonlyArray<IndexSpec> => {
  const retention = table.retention
  if (retention === undefined) return []
  const from = { [Table.columnName(retention.from)]: 1 as const }
  return [{ collection, name: "retention", key: retention.keep === undefined ? from : { [Table.columnName(retention.keep.field)]: 1, ...from } }]
}

/**
 * The indexes of an unscoped table (`Table.scoped` false): its id, and each unique constraint (one
 * field) across the collection. They must exist before the directory is used: a unique index is
 * what refuses a second holder of a public key or of a provider account id (D2, D13).
 */
export const directoryIndexes = (c: Collections, table: Table.Table<any>): ReadonlyArray<IndexSpec> => {
  const collection = c.of(table)
  return [
    { collection, name: "id_unique", key: { id: 1 }, unique: true },
    ...table.unique.map((u): IndexSpec => ({
      collection,
      name: `${u.fields.map((f) => fieldOf(table, f).column).join("_")}_unique`,
      key: Object.fromEntries(u.fields.map((f) => [fieldOf(table, f).column, 1])),
      unique: true
    }))
  ]
}

/** @since 0.1.0 */
export interface IndexOptions {
  /**
   * Whether the server deletes expired idempotency keys itself (a TTL index on `expires_at`).
   * Without it the index still serves `purgeExpired`.
   */
  readonly expireKeys: boolean
}

/** Every index Tender uses, for every collection under one prefix. */
export const indexSpecs = (c: Collections, options: IndexOptions): ReadonlyArray<IndexSpec> => [
  ...resources.flatMap((r) => resourceIndexes(c, r)),
  // 4.9.3: a key is unique per (API key id, key).
  { collection: c.idempotencyKeys, name: "key_unique", key: { api_key_id: 1, key: 1 }, unique: true },
  // 4.9.4: kept 24 hours. The TTL monitor deletes a key once its expires_at has passed on the
  // server's clock, lazily (a pass every 60 s or so), so `begin` still judges expiry itself.
  options.expireKeys
    ? { collection: c.idempotencyKeys, name: "expires_at", key: { expires_at: 1 }, expireAfterSeconds: 0 }
    : { collection: c.idempotencyKeys, name: "expires_at", key: { expires_at: 1 } },
  // D4: a reference is unique per (merchant, environment, resource type).
  {
    collection: c.references,
    name: "reference_unique",
    key: { merchant_id: 1, environment: 1, resource_type: 1, reference: 1 },
    unique: true
  },
  // purgeExpired deletes uncompleted claims whose lock lapsed long ago.
  { collection: c.references, name: "lapsed", key: { completed: 1, locked_until: 1 } },
  // The directory (issue 49): unscoped tables, each unique constraint across the collection.
  ...Merchants.tables.flatMap((table) => directoryIndexes(c, table)),
  // One merchant's provider account keys, in id order (`Storage.walk` by merchant_id).
  { collection: c.of(Merchants.accountTable), name: "merchant", key: { merchant_id: 1, id: 1 } },
  // The seeded keys a start revokes when its seed leaves them out (`Seed.apply`).
  { collection: c.of(Merchants.apiKeyTable), name: "seeded", key: { seeded: 1, id: 1 } }
]

/** The specs grouped by collection, in the order `createIndexes` is called. */
export const byCollection = (specs: ReadonlyArray<IndexSpec>): ReadonlyArray<readonly [string, ReadonlyArray<IndexSpec>]> => {
  const groups = new Map<string, Array<IndexSpec>>()
  for (const s of specs) {
    const group = groups.get(s.collection)
    if (group === undefined) groups.set(s.collection, [s])
    else group.push(s)
  }
  return [...groups]
}

/**
 * Indexes earlier versions created that `setup` drops before creating the specs: the API keys'
 * plain `id` index, whose key the unique `id_unique` now has, and the merchants' plain
 * `provider_account_id`, whose key the unique `provider_account_unique` now has (MongoDB refuses a
 * second index on one key with other options). Dropping one that is not there is nothing.
 */
export const retiredIndexes = (c: Collections): ReadonlyArray<{ readonly collection: string; readonly name: string }> => [
  { collection: c.apiKeys, name: "id" },
  { collection: c.merchants, name: "provider_account_id" },
  // Since issue 49 the provider account keys (`Merchants.accountTable`) hold account ids unique,
  // and the host's words are keyed by one id (`<kind>:<target>`).
  { collection: c.merchants, name: "provider_account_unique" },
  { collection: c.routeAvailability, name: "kind_id_unique" }
]
