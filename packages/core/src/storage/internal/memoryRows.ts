/**
 * The rows of one table in the in-memory store (`MemoryStorage`): by id, and per scope
 * oldest first so a keyset page is a binary search and a walk. Generic over tables: a new
 * resource needs nothing here.
 */
import type { ListQuery, Scope, WalkQuery } from "../Storage.js"
import type { BaseRecord, StoredRecord, Table } from "../Table.js"
import { compareIds, compareNewestFirst, constrains, freeze } from "../Table.js"

type Position = { readonly createdAt: number; readonly id: string }

/** First index whose row is not older than `probe`, in rows kept oldest first (the reverse of list order, so inserts append). */
const lowerBound = (rows: ReadonlyArray<Position>, probe: Position) => {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareNewestFirst(probe, rows[mid]!) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Separates the parts of a composite key; no identifier holds it. */
export const sep = "\u0000"
/** A record's scope (merchant, environment) as one key. */
export const scopeKey = (r: Scope) => `${r.merchantId}${sep}${r.environment}`

/**
 * One table's rows: by id, and per scope oldest first (an unscoped table's in one scope), with
 * its unique constraints' values and the id holding each.
 */
export class Rows {
  readonly byId = new Map<string, StoredRecord>()
  readonly byScope = new Map<string, Array<StoredRecord>>()
  readonly taken = new Map<string, string>()
  constructor(readonly table: Table<any>) {}

  /** The scope `record` is kept and constrained in: one for every record of an unscoped table. */
  scopeOf(record: BaseRecord): string {
    return this.table.scoped ? scopeKey(record as StoredRecord) : ""
  }

  /** The values `record` holds under each unique constraint (none when a field is null). */
  uniqueValues(record: BaseRecord): ReadonlyArray<string> {
    const out: Array<string> = []
    for (const u of this.table.unique) {
      if (!constrains(u, record)) continue
      const values = u.fields.map((f) => (record as unknown as Record<string, unknown>)[f])
      if (values.every((v) => v !== null && v !== undefined)) out.push([u.name, this.scopeOf(record), ...values.map(String)].join(sep))
    }
    return out
  }

  /** The record of this unscoped table whose unique `field` holds `value` (`Storage.findBy`). */
  findBy(field: string, value: string): StoredRecord | undefined {
    const u = this.table.unique.find((c) => c.fields.length === 1 && c.fields[0] === field)
    if (this.table.scoped || u === undefined) throw new Error(`Storage.findBy: ${field} is not a unique field of the unscoped table ${this.table.name}`)
    const id = this.taken.get([u.name, "", value].join(sep))
    return id === undefined ? undefined : this.byId.get(id)
  }

  /** Forget a stored record: its id, its place in its scope and its unique values. */
  remove(record: StoredRecord) {
    this.byId.delete(record.id)
    for (const value of this.uniqueValues(record)) this.taken.delete(value)
    const rows = this.byScope.get(this.scopeOf(record))
    const at = rows === undefined ? -1 : lowerBound(rows, record)
    if (rows !== undefined && rows[at]?.id === record.id) rows.splice(at, 1)
  }

  /**
   * Keep `record` in its scope's order, frozen with what it holds (`Table.freeze`, the port's
   * rule of reads): a change is a new record, never a change in place.
   */
  place(record: StoredRecord, replace: boolean) {
    freeze(record)
    const scope = this.scopeOf(record)
    let rows = this.byScope.get(scope)
    if (rows === undefined) this.byScope.set(scope, rows = [])
    const at = lowerBound(rows, record)
    if (replace && rows[at]?.id === record.id) rows[at] = record
    else rows.splice(at, 0, record)
  }
}

/** At most `q.limit` rows of `table` matching `q`, (createdAt, id) descending. */
export const list = <A extends StoredRecord>(table: Rows, q: ListQuery<A>): ReadonlyArray<A> => {
  const rows = (table.byScope.get(scopeKey(q)) ?? []) as ReadonlyArray<StoredRecord> as ReadonlyArray<A>
  const filters = Object.entries(q.where ?? {}).flatMap(([field, value]) =>
    value === undefined ? [] : [{ field, values: new Set(typeof value === "string" ? [value] : value as ReadonlyArray<string>) }]
  )
  // Start just below the cursor or created_before, whichever is lower; walk to older rows.
  let start = rows.length
  if (q.after !== undefined) start = Math.min(start, lowerBound(rows, q.after))
  if (q.createdBefore !== undefined) start = Math.min(start, lowerBound(rows, { createdAt: q.createdBefore, id: "" }))
  const out: Array<A> = []
  for (let i = start - 1; i >= 0 && out.length < q.limit; i--) {
    const r = rows[i]!
    if (q.createdAfter !== undefined && r.createdAt < q.createdAfter) break
    if (filters.every((f) => f.values.has((r as unknown as Record<string, string>)[f.field]!))) out.push(r)
  }
  return out
}

/** At most `q.limit` rows of `table` matching `q.where` with an id after `q.after`, ascending by id in code point order (`Storage.walk`, `compareIds`). */
export const walk = <A extends BaseRecord>(table: Rows, q: WalkQuery<A>): ReadonlyArray<A> => {
  const filters = Object.entries(q.where ?? {}).filter(([, value]) => value !== undefined)
  const out: Array<A> = []
  for (const r of table.byId.values()) {
    if (q.after !== null && compareIds(r.id, q.after) <= 0) continue
    if (filters.every(([field, value]) => (r as unknown as Record<string, unknown>)[field] === value)) out.push(r as unknown as A)
  }
  return out.sort((a, b) => compareIds(a.id, b.id)).slice(0, q.limit)
}
