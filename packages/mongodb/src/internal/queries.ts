/**
 * The reads of the port as filters, sorts and options: pure data built from a core `Table` and a
 * query, so every list shape of 4.3 is tested without a server.
 */
import type { Storage, Table } from "@tender/core"
import type { Document, Filter, FindOptions, Sort } from "mongodb"
import { encodeValue, fieldOf } from "./documents.js"

/** Newest first by (created_at, id) (D6). Ids compare as the server compares strings under the simple collation: by byte. */
export const listSort: Sort = { created_at: -1, id: -1 }

/** Documents come back without the driver's `_id`: a record has no such field. */
export const projection: Document = { _id: 0 }

/** One record in its scope (4.2: another merchant's or environment's id is none). */
export const scopedFilter = (scope: Storage.Scope, id: string): Filter<Document> => ({
  id,
  merchant_id: scope.merchantId,
  environment: scope.environment
})

/** One record by id alone. */
export const idFilter = (id: string): Filter<Document> => ({ id })

/**
 * The position strictly after `after` in list order: older, or as old with a lower id. The
 * outer `$lte` bounds the index range on created_at, so a deep page starts where the cursor
 * is instead of filtering every newer document; the `$or` only drops the ties on the cursor's
 * own millisecond.
 */
export const afterPosition = (after: { readonly createdAt: number; readonly id: string }) => {
  const at = new Date(after.createdAt)
  return {
    createdAt: { $lte: at },
    or: [{ created_at: { $lt: at } }, { created_at: at, id: { $lt: after.id } }]
  }
}

/**
 * The filter of one list page: the scope, each `where` entry (a value, or `$in` of several), the
 * created range (after inclusive, before exclusive) and the keyset position. Every equality
 * leads an index that ends in the keyset order (see `indexes.ts`).
 */
export const listFilter = <A extends Table.StoredRecord>(table: Table.Table<A>, q: Storage.ListQuery<A>): Filter<Document> => {
  const filter: Document = { merchant_id: q.merchantId, environment: q.environment }
  for (const [name, value] of Object.entries(q.where ?? {})) {
    if (value === undefined) continue
    const field = fieldOf(table, name)
    if (typeof value === "string") {
      filter[field.column] = encodeValue(field, value)
    } else {
      const values = [...new Set(value as ReadonlyArray<string>)].map((v) => encodeValue(field, v))
      filter[field.column] = values.length === 1 ? values[0] : { $in: values }
    }
  }
  const created: Document = {}
  if (q.createdAfter !== undefined) created["$gte"] = new Date(q.createdAfter)
  if (q.createdBefore !== undefined) created["$lt"] = new Date(q.createdBefore)
  if (q.after !== undefined) {
    const position = afterPosition(q.after)
    created["$lte"] = position.createdAt.$lte
    filter["$or"] = position.or
  }
  if (Object.keys(created).length > 0) filter["created_at"] = created
  return filter
}

/** The options of one list page. */
export const listOptions = (limit: number): FindOptions => ({ sort: listSort, limit, projection })

/** `Storage.findBy`: the document of an unscoped table whose unique field holds `value` (its unique index). */
export const findByFilter = (table: Table.Table<any>, field: string, value: string): Filter<Document> => {
  if (table.scoped || !table.unique.some((u) => u.fields.length === 1 && u.fields[0] === field)) {
    throw new Error(`Storage.findBy: ${field} is not a unique field of the unscoped table ${table.name}`)
  }
  return { [fieldOf(table, field).column]: value }
}

/** `Storage.walk`: the filter of a page in id order (the `id_unique` index, or one leading with a `where` field). */
export const walkFilter = <A extends Table.BaseRecord>(table: Table.Table<A>, q: Storage.WalkQuery<A>): Filter<Document> => ({
  ...Object.fromEntries(Object.entries(q.where ?? {}).flatMap(([field, value]) => value === undefined ? [] : [[fieldOf(table, field).column, value]])),
  ...(q.after === null ? {} : { id: { $gt: q.after } })
})

/** The order of a walk: ids ascending (the server compares strings by their UTF-8 bytes: code point order, as every store, `Table.compareIds`). */
export const walkOptions = (limit: number): FindOptions => ({ sort: { id: 1 }, limit, projection })
