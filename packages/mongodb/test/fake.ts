/**
 * A test stand-in for the few collection methods the claims use, over the filter subset the
 * adapter writes, with the server's documented semantics for them (null matches null or missing,
 * strings by byte, an upsert inserts the filter's top-level equalities and then applies the
 * update, a unique index refuses a duplicate with code 11000). Single-threaded: it checks the
 * adapter's control flow, never MongoDB itself (races are checked against a server).
 */
import { MemoryStorage, Storage, type Table, Task } from "@tender/core"
import { Effect } from "effect"
import { type Document, MongoServerError } from "mongodb"
import { type CollectionPrefix, collections } from "../src/internal/collections.js"
import { toDocument } from "../src/internal/documents.js"

const compare = (a: unknown, b: unknown): number =>
  a instanceof Date && b instanceof Date
    ? a.getTime() - b.getTime()
    : typeof a === "number" && typeof b === "number"
    ? a - b
    : Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)))

const present = (v: unknown) => v !== null && v !== undefined
const equal = (a: unknown, b: unknown): boolean =>
  b === null
    ? !present(a)
    : typeof b === "object" && !(b instanceof Date)
    ? JSON.stringify(a) === JSON.stringify(b)
    : present(a) && compare(a, b) === 0

const matchesValue = (value: unknown, condition: unknown): boolean => {
  if (typeof condition === "object" && condition !== null && !(condition instanceof Date) && Object.keys(condition).every((k) => k.startsWith("$"))) {
    return Object.entries(condition).every(([op, arg]) => {
      switch (op) {
        case "$in":
          return (arg as Array<unknown>).some((x) => equal(value, x))
        case "$nin":
          return !(arg as Array<unknown>).some((x) => equal(value, x))
        case "$lt":
          return present(value) && compare(value, arg) < 0
        case "$lte":
          return present(value) && compare(value, arg) <= 0
        case "$gte":
          return present(value) && compare(value, arg) >= 0
        case "$gt":
          return present(value) && compare(value, arg) > 0
        case "$type":
          return arg === "date" ? value instanceof Date : typeof value === arg
        default:
          throw new Error(`fake: ${op}`)
      }
    })
  }
  return equal(value, condition)
}

/** Whether `doc` matches `filter`. */
export const matches = (doc: Document, filter: Document): boolean =>
  Object.entries(filter).every(([key, condition]) =>
    key === "$or" ? (condition as Array<Document>).some((f) => matches(doc, f)) : matchesValue(doc[key], condition)
  )

const applyUpdate = (doc: Document, update: Document): Document => {
  const next = { ...doc }
  for (const [op, fields] of Object.entries(update)) {
    for (const [k, v] of Object.entries(fields as Document)) {
      if (op === "$set") next[k] = v
      else if (op === "$inc") next[k] = (next[k] ?? 0) + v
      else throw new Error(`fake: ${op}`)
    }
  }
  return next
}

/** One collection with one unique index. */
export class FakeCollection {
  docs: Array<Document> = []
  constructor(readonly unique: ReadonlyArray<string>) {}

  private duplicate(doc: Document, except?: Document) {
    return this.docs.some((d) => d !== except && this.unique.every((k) => equal(d[k], doc[k])))
  }
  private refuse(): never {
    throw new MongoServerError({ ok: 0, code: 11000, codeName: "DuplicateKey", errmsg: "E11000 duplicate key error" } as never)
  }

  async insertOne(doc: Document) {
    if (this.duplicate(doc)) this.refuse()
    this.docs.push({ ...doc })
    return { acknowledged: true }
  }
  async findOne(filter: Document) {
    const d = this.docs.find((x) => matches(x, filter))
    return d === undefined ? null : { ...d }
  }
  async updateOne(filter: Document, update: Document, options: { upsert?: boolean } = {}) {
    const at = this.docs.findIndex((x) => matches(x, filter))
    if (at >= 0) {
      const next = applyUpdate(this.docs[at]!, update)
      if (this.duplicate(next, this.docs[at])) this.refuse()
      this.docs[at] = next
      return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 }
    }
    if (options.upsert !== true) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 }
    const seed = Object.fromEntries(
      Object.entries(filter).filter(([k, v]) => !k.startsWith("$") && !(typeof v === "object" && v !== null && !(v instanceof Date)))
    )
    await this.insertOne(applyUpdate(seed, update))
    return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 }
  }
  async deleteOne(filter: Document) {
    const at = this.docs.findIndex((x) => matches(x, filter))
    if (at >= 0) this.docs.splice(at, 1)
    return { deletedCount: at >= 0 ? 1 : 0 }
  }
  async deleteMany(filter: Document) {
    const before = this.docs.length
    this.docs = this.docs.filter((x) => !matches(x, filter))
    return { deletedCount: before - this.docs.length }
  }
}

/**
 * `rows` of `table` both ways: as the adapter's documents, and in the in-memory store (the
 * reference a query's page is compared with).
 */
export const storedBothWays = <A extends Table.StoredRecord>(table: Table.Table<A>, rows: ReadonlyArray<A>) => ({
  docs: rows.map((r) => toDocument(table, r)),
  memory: Effect.runSync(Effect.gen(function*() {
    const store = MemoryStorage.make()
    for (const r of rows) yield* store.commit([Storage.Write.insert(table, r)])
    return store
  }))
})

/** A pending expiry task for `dord_1`, due, made and updated at `at`, with `over` on top. */
export const taskRecord = (at: number, over: Partial<Task.TaskRecord> = {}): Task.TaskRecord =>
  Task.TaskRecord.make({
    id: "task_1",
    merchantId: "mch_a",
    environment: "test",
    kind: "payment_intent.expire",
    resourceId: "dord_1",
    status: "pending",
    dueAt: at,
    attempts: 0,
    createdAt: at,
    updatedAt: at,
    version: 1,
    ...over
  })

/** Tender's collections under the default prefix, as the adapter names them. */
export const tenderCollections = collections("tender_" as CollectionPrefix)

/** An error as the server answers one: `reply` carries its code, labels and the rest. */
export const serverError = (reply: Record<string, unknown>) => new MongoServerError({ ok: 0, errmsg: "from the server", ...reply } as never)
