import { describe, expect, it } from "@effect/vitest"
import { Event, Merchants, PaymentIntent, ProviderNotification, Refund, StorePrefix, Table, Task } from "@tender/core"
import { Effect, Exit } from "effect"
import { type CollectionPrefix, collections, validatePrefix } from "../src/internal/collections.js"
import { byCollection, indexSpecs, resourceIndexes, resources, retiredIndexes } from "../src/internal/indexes.js"
import { retentionFilter } from "../src/internal/purge.js"
import * as Tasks from "../src/internal/tasks.js"
import { tenderCollections } from "./fake.js"

const c = tenderCollections
const specs = indexSpecs(c, { expireKeys: true })
const find = (collection: string, name: string) => {
  const spec = specs.find((s) => s.collection === collection && s.name === name)
  if (spec === undefined) throw new Error(`no index ${name} on ${collection}`)
  return spec
}
const keys = (collection: string, name: string) => Object.entries(find(collection, name).key)
/** The unique `merchant_reference` index (D4, D10): scoped to merchant and environment, null never colliding. */
const referenceIndex = (collection: string) => ({
  collection,
  name: "unique_reference",
  key: { merchant_id: 1, environment: 1, merchant_reference: 1 },
  unique: true,
  partialFilterExpression: { merchant_reference: { $type: "string" } }
})

describe("indexes: specs as data", () => {
  it("every stored resource has a unique id and the keyset list index", () => {
    for (const { table } of resources) {
      expect(find(c.of(table), "id_unique")).toStrictEqual({ collection: c.of(table), name: "id_unique", key: { id: 1 }, unique: true })
      expect(keys(c.of(table), "list")).toStrictEqual([["merchant_id", 1], ["environment", 1], ["created_at", -1], ["id", -1]])
    }
  })

  it("D4 merchant_reference is unique per merchant and environment, and null references never collide", () => {
    expect(find(c.of(PaymentIntent.table), "unique_reference")).toStrictEqual(referenceIndex("tender_payment_intents"))
  })

  it("D7 an event is unique per (resource, version, ordinal), each field typed in the partial filter", () => {
    expect(find(c.of(Event.table), "unique_resource_version")).toStrictEqual({
      collection: "tender_events",
      name: "unique_resource_version",
      key: { merchant_id: 1, environment: 1, resource_id: 1, resource_version: 1, ordinal: 1 },
      unique: true,
      partialFilterExpression: { resource_id: { $type: "string" }, resource_version: { $type: "number" }, ordinal: { $type: "number" } }
    })
  })

  it("D10 merchant_reference is unique per merchant and environment among refunds, null references never colliding", () => {
    expect(find(c.of(Refund.table), "unique_reference")).toStrictEqual(referenceIndex("tender_refunds"))
  })

  it("a delivery queued for an endpoint is not queued again: one pending webhook.deliver per (event, endpoint), done and failed ones never colliding", () => {
    expect(find(c.of(Task.table), "unique_pending_delivery")).toStrictEqual({
      collection: "tender_tasks",
      name: "unique_pending_delivery",
      key: { merchant_id: 1, environment: 1, resource_id: 1, target_id: 1 },
      unique: true,
      partialFilterExpression: { resource_id: { $type: "string" }, target_id: { $type: "string" }, kind: "webhook.deliver", status: "pending" }
    })
  })

  it("D11 a stored provider notice is unique per (provider, event id), and read by id alone", () => {
    const collection = c.of(ProviderNotification.table)
    expect(collection).toBe("tender_provider_notifications")
    expect(find(collection, "id_unique").unique).toBe(true)
    expect(find(collection, "unique_provider_event")).toStrictEqual({
      collection,
      name: "unique_provider_event",
      key: { merchant_id: 1, environment: 1, provider: 1, event_id: 1 },
      unique: true,
      partialFilterExpression: { provider: { $type: "string" }, event_id: { $type: "string" } }
    })
  })

  it("every table's unique constraints have their index, generically", () => {
    for (const { table } of resources) {
      for (const u of table.unique) expect(find(c.of(table), `unique_${u.name}`).unique).toBe(true)
    }
  })

  it("4.3 every list filter leads an index after the scope and ends in the keyset order", () => {
    const expected: Record<string, ReadonlyArray<string>> = {
      payment_intents: ["status", "country", "currency", "merchant_reference"],
      events: ["type", "resource_id"],
      refunds: ["status", "payment_intent_id", "merchant_reference"]
    }
    for (const [name, columns] of Object.entries(expected)) {
      for (const column of columns) {
        expect(keys(`tender_${name}`, `list_${column}`)).toStrictEqual([
          ["merchant_id", 1],
          ["environment", 1],
          [column, 1],
          ["created_at", -1],
          ["id", -1]
        ])
      }
    }
  })

  it("4.3 every field core lists by has its index", () => {
    // PaymentIntents.list and Event.list/forResource filter by these.
    for (const column of ["status", "country", "currency", "merchant_reference"]) find("tender_payment_intents", `list_${column}`)
    for (const column of ["type", "resource_id"]) find("tender_events", `list_${column}`)
  })

  it("tasks are claimed earliest due first by (status, due_at, id)", () => {
    expect(keys(c.of(Task.table), "claim")).toStrictEqual([["status", 1], ["due_at", 1], ["id", 1]])
    const leased = specs.find((s) => s.collection === c.of(Task.table) && s.name === "leased")
    expect(leased?.key).toStrictEqual({ lease_until: 1 })
    // The same filter as `Tasks.leasedPipeline`'s $match: the server uses a partial index only for a query inside it.
    expect(leased?.partialFilterExpression).toStrictEqual((Tasks.leasedPipeline[0] as { $match: unknown }).$match)
  })

  it("4.9.3 a key is unique per (API key id, key); 4.9.4 a TTL index deletes it once expired", () => {
    expect(find(c.idempotencyKeys, "key_unique")).toStrictEqual({
      collection: "tender_idempotency_keys",
      name: "key_unique",
      key: { api_key_id: 1, key: 1 },
      unique: true
    })
    expect(find(c.idempotencyKeys, "expires_at")).toStrictEqual({
      collection: "tender_idempotency_keys",
      name: "expires_at",
      key: { expires_at: 1 },
      expireAfterSeconds: 0
    })
  })

  it("4.9.4 without server-side expiry, expires_at is still indexed for purgeExpired", () => {
    const spec = indexSpecs(c, { expireKeys: false }).find((s) => s.collection === c.idempotencyKeys && s.name === "expires_at")
    expect(spec).toStrictEqual({ collection: "tender_idempotency_keys", name: "expires_at", key: { expires_at: 1 } })
  })

  it("D4 a reference claim is unique per (merchant, environment, resource type, reference)", () => {
    expect(keys(c.references, "reference_unique")).toStrictEqual([["merchant_id", 1], ["environment", 1], ["resource_type", 1], ["reference", 1]])
    expect(find(c.references, "reference_unique").unique).toBe(true)
    expect(keys(c.references, "lapsed")).toStrictEqual([["completed", 1], ["locked_until", 1]])
  })

  it("merchants by id, API keys by public key and by id, each unique (PostgreSQL: primary keys)", () => {
    expect(find(c.merchants, "id_unique").unique).toBe(true)
    expect(find(c.apiKeys, "public_key_unique").unique).toBe(true)
    expect(keys(c.apiKeys, "id_unique")).toStrictEqual([["id", 1]])
    expect(find(c.apiKeys, "id_unique").unique).toBe(true)
    // The plain index of earlier versions on the same key is dropped first (one key, one set of options).
    expect(retiredIndexes(c)).toStrictEqual([
      { collection: c.apiKeys, name: "id" },
      { collection: c.merchants, name: "provider_account_id" },
      { collection: c.merchants, name: "provider_account_unique" },
      { collection: c.routeAvailability, name: "kind_id_unique" }
    ])
  })

  it("D13 issue 49 a provider account id is unique across merchants by the account keys' id index, so two racing writes leave one holder", () => {
    const accounts = c.of(Merchants.accountTable)
    expect(find(accounts, "id_unique")).toStrictEqual({ collection: accounts, name: "id_unique", key: { id: 1 }, unique: true })
    expect(keys(accounts, "merchant")).toStrictEqual([["merchant_id", 1], ["id", 1]])
    // The host's words are keyed by one id since issue 49.
    expect(find(c.routeAvailability, "id_unique").unique).toBe(true)
  })

  it("index names are unique per collection, and grouped by collection in first-seen order", () => {
    const groups = byCollection(specs)
    for (const [, group] of groups) expect(new Set(group.map((s) => s.name)).size).toBe(group.length)
    expect(groups.map(([name]) => name)).toStrictEqual([...new Set(specs.map((s) => s.collection))])
    expect(groups.flatMap(([, g]) => g)).toHaveLength(specs.length)
  })

  it("a new resource needs only its entry: its indexes derive from its table", () => {
    const Widget = Table.make({
      name: "widgets",
      idPrefix: "wdg_",
      record: PaymentIntent.PaymentIntentRecord,
      unique: [{ name: "pair", fields: ["currency", "externalReference"] }]
    })
    expect(resourceIndexes(c, { table: Widget, listFilters: ["status"] }).map((s) => s.name)).toStrictEqual([
      "id_unique",
      "unique_pair",
      "list",
      "list_status"
    ])
  })
})

describe("collections: prefix", () => {
  it("every collection starts with the prefix", () => {
    const p = collections("acme_" as CollectionPrefix)
    expect([p.references, p.idempotencyKeys, p.merchants, p.apiKeys, p.of(PaymentIntent.table)]).toStrictEqual([
      "acme_merchant_references",
      "acme_idempotency_keys",
      "acme_merchants",
      "acme_api_keys",
      "acme_payment_intents"
    ])
  })

  it("the prefix is validated like the PostgreSQL table prefix, before any driver call", () => {
    for (const ok of ["tender_", "t", "a1_b2", "a".repeat(30)]) expect(StorePrefix.problem("collectionPrefix", ok)).toBeUndefined()
    for (const bad of ["", "Tender_", "1abc", "a-b", "a.b", "a$b", "a".repeat(31), "tender_\u0000"]) {
      expect(StorePrefix.problem("collectionPrefix", bad)).toMatch(/collectionPrefix must be 1 to 30 lowercase letters/)
    }
    expect(Effect.runSync(validatePrefix())).toBe("tender_")
    expect(Exit.isFailure(Effect.runSyncExit(validatePrefix("Bad")))).toBe(true)
  })
})

describe("indexes: retention read from the tables", () => {
  it("retention: each table's purge filter and index come from its Table.retention, the kept value excluded", () => {
    const before = 1_700_000_000_000
    expect(retentionFilter({ table: Task.table, before })).toStrictEqual({ status: { $ne: "pending" }, updated_at: { $lt: new Date(before) } })
    expect(retentionFilter({ table: Event.table, before })).toStrictEqual({ created_at: { $lt: new Date(before) } })
    // The index leads with the fields of the filter, so a batch walks it to the oldest due documents.
    expect(keys(c.of(Task.table), "retention")).toStrictEqual([["status", 1], ["updated_at", 1]])
    expect(keys(c.of(Event.table), "retention")).toStrictEqual([["created_at", 1]])
    // A table that declares no retention is kept for ever: no index, and a purge of it is refused.
    expect(specs.some((s) => s.collection === c.of(PaymentIntent.table) && s.name === "retention")).toBe(false)
    expect(() => retentionFilter({ table: PaymentIntent.table, before })).toThrow(/declares no retention/)
  })
})
