/**
 * The purge (`Storage.purgeExpired`) on MongoDB: expired idempotency keys, long-lapsed
 * merchant_reference claims, and the records past their retention (docs/retention.md). With a
 * limit, each kind is one batch: the `_id`s of at most that many due documents, read through
 * the index on the condition, then one `deleteMany` of those still due. A batch never holds a
 * lock beyond its own single-document deletes, so requests never wait on it.
 *
 * Retention is not a TTL index: a TTL's `expireAfterSeconds` is fixed when the index is created
 * while the retention is an option of the schedule, and the TTL monitor deletes in passes of
 * its own size. Expired keys may also go by TTL (`expireKeys`, internal/indexes.ts).
 */
import { type Storage, type StorageError, Table } from "@tender/core"
import { Effect } from "effect"
import type { Collection, Document, Filter } from "mongodb"
import { expiredKeysFilter, lapsedReferencesFilter } from "./claims.js"
import { callDriver } from "./errors.js"

/** The collections a purge deletes from: keys, references, and the collection of each table it is given. */
export interface PurgeCollections {
  readonly keys: Collection<Document>
  readonly references: Collection<Document>
  readonly of: (table: Table.Table<any>) => Collection<Document>
}

/** The documents of `cut.table` due under its `Table.retention`. */
export const retentionFilter = (cut: Storage.Cutoff): Filter<Document> => {
  const retention = Table.retentionOf(cut.table)
  const keep = retention.keep
  return {
    ...(keep === undefined ? {} : { [Table.columnName(keep.field)]: { $ne: keep.value } }),
    [Table.columnName(retention.from)]: { $lt: new Date(cut.before) }
  }
}

/** Delete at most `limit` documents matching `filter` (all of them without a limit); how many went. */
const deleteDue = (
  what: string,
  collection: Collection<Document>,
  filter: Filter<Document>,
  limit: number | undefined
): Effect.Effect<number, StorageError.StorageError> =>
  limit === undefined
    ? Effect.map(callDriver(`purge ${what}`, () => collection.deleteMany(filter)), (r) => r.deletedCount)
    : callDriver(`purge ${what}`, async () => {
      const due = await collection.find(filter, { projection: { _id: 1 }, limit }).toArray()
      if (due.length === 0) return 0
      // The filter again: a document changed since it was read is deleted only if still due.
      const r = await collection.deleteMany({ $and: [{ _id: { $in: due.map((d) => d["_id"]) } }, filter] })
      return r.deletedCount
    })

export const make = (c: PurgeCollections) => (now: number, options: Storage.PurgeOptions = {}): Effect.Effect<Storage.PurgeResult, StorageError.StorageError> =>
  Effect.all({
    idempotencyKeys: deleteDue("idempotency keys", c.keys, expiredKeysFilter(now), options.limit),
    referenceClaims: deleteDue("merchant_reference claims", c.references, lapsedReferencesFilter(now), options.limit),
    records: Effect.map(
      Effect.forEach(
        options.cutoffs ?? [],
        (cut) => Effect.map(deleteDue(cut.table.name, c.of(cut.table), retentionFilter(cut), options.limit), (n) => [cut.table.name, n] as const)
      ),
      Object.fromEntries
    )
  })
