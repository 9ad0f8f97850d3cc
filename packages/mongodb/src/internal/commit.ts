/**
 * `commit`: a list of writes, all or none. Each write is one single-document operation; a
 * write with a precondition (a versioned update, completing a claim) is conditional on it and
 * must match its document. Several writes run in order inside one multi-document transaction:
 * the first that fails (a precondition that matched nothing, a duplicate key) aborts it, so its
 * error names the first failing write in list order and nothing is written. One write needs no
 * transaction: a single-document operation is atomic by itself.
 */
import { BalanceTransaction, type Storage, StorageError, type Table } from "@tender/core"
import { Effect } from "effect"
import type { ClientSession, Db, Document, Filter, MongoClient, TransactionOptions, UpdateFilter } from "mongodb"
import * as Balances from "./balances.js"
import { heldKeyFilter, heldReferenceFilter, responseDocument } from "./claims.js"
import type { Collections } from "./collections.js"
import { toDocument } from "./documents.js"
import { fold } from "./errors.js"
import { inTransaction } from "./transactions.js"

/** One write as the operation that applies it. `lost` is the error when a guarded operation matched nothing. */
export type Step =
  | { readonly op: "insert"; readonly collection: string; readonly document: Document }
  | {
    readonly op: "replace"
    readonly collection: string
    readonly filter: Filter<Document>
    readonly document: Document
    readonly lost: StorageError.StorageError
  }
  | {
    readonly op: "update"
    readonly collection: string
    readonly filter: Filter<Document>
    readonly update: UpdateFilter<Document>
    readonly lost: StorageError.StorageError
  }
  | { readonly op: "delete"; readonly collection: string; readonly filter: Filter<Document>; readonly lost?: StorageError.StorageError }
  | {
    /** D12: write the balance's lock document, then sum it; below zero aborts with `lost`. */
    readonly op: "balance"
    readonly collection: string
    readonly locks: string
    readonly lockId: string
    readonly pipeline: ReadonlyArray<Document>
    readonly lost: StorageError.StorageError
  }

/** The operation of one write (pure: the whole plan of a commit is tested without a server). */
export const step = (c: Collections, w: Storage.Write): Step => {
  switch (w._tag) {
    case "Insert":
      return { op: "insert", collection: c.of(w.table), document: toDocument(w.table, w.record) }
    case "Update": {
      const r = w.record as Table.StoredRecord
      // A replacement, not `$set`: embedded documents may hold keys starting with `$` (merchant
      // metadata), which MongoDB accepts below the top level of a replacement but not in `$set`.
      return {
        op: "replace",
        collection: c.of(w.table),
        // A record of an unscoped table (the directory's) is known by its id alone.
        filter: w.table.scoped
          ? { id: r.id, merchant_id: r.merchantId, environment: r.environment, version: w.expectedVersion }
          : { id: r.id, version: w.expectedVersion },
        document: toDocument(w.table, r),
        lost: new StorageError.StaleVersion({ message: `stale update of ${r.id}` })
      }
    }
    case "Delete":
      return {
        op: "delete",
        collection: c.of(w.table),
        filter: { id: w.id, version: w.expectedVersion },
        lost: new StorageError.StaleVersion({ message: `stale delete of ${w.id}` })
      }
    case "CompleteReference":
      return {
        op: "update",
        collection: c.references,
        filter: heldReferenceFilter(w.reference),
        update: { $set: { completed: true } },
        lost: new StorageError.UniqueViolation({ message: `merchant_reference is no longer held by ${w.reference.resourceId}` })
      }
    case "ReleaseReference":
      // Never a completed one: a created resource holds its reference for good.
      return { op: "delete", collection: c.references, filter: { ...heldReferenceFilter(w.reference), completed: false } }
    case "CompleteIdempotency":
      return {
        op: "update",
        collection: c.idempotencyKeys,
        filter: heldKeyFilter(w.key),
        update: { $set: { response: responseDocument(w.response) } },
        lost: new StorageError.ClaimLost({ message: "the idempotency key was taken over by a retry" })
      }
    case "ReleaseIdempotency":
      return { op: "delete", collection: c.idempotencyKeys, filter: heldKeyFilter(w.key) }
    case "RequireAvailable":
      return {
        op: "balance",
        collection: c.of(BalanceTransaction.table),
        locks: c.balanceLocks,
        lockId: Balances.lockId(w.balance),
        pipeline: Balances.guardPipeline(w.balance, w.now),
        lost: new StorageError.StaleVersion({ message: "the available balance does not cover this payout" })
      }
  }
}

/** Whether a commit of these writes needs a multi-document transaction. */
export const needsTransaction = (writes: ReadonlyArray<Storage.Write>): boolean => writes.length > 1

/** Apply one step, in `session` when given; fails with its `lost` error when its guard matched nothing. */
const apply = (db: Db, s: Step, session: ClientSession | undefined): Effect.Effect<void, StorageError.StorageError> => {
  const options = session === undefined ? {} : { session }
  const collection = db.collection(s.collection)
  const run = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(`commit (${s.op} ${s.collection})`) })
  switch (s.op) {
    case "insert":
      // A copy: the driver adds `_id` to the document it inserts, and a retried attempt must start clean.
      return Effect.asVoid(run(() => collection.insertOne({ ...s.document }, options)))
    case "replace":
      return Effect.flatMap(run(() => collection.replaceOne(s.filter, s.document, options)), (r) => r.matchedCount === 0 ? Effect.fail(s.lost) : Effect.void)
    case "update":
      return Effect.flatMap(run(() => collection.updateOne(s.filter, s.update, options)), (r) => r.matchedCount === 0 ? Effect.fail(s.lost) : Effect.void)
    case "delete":
      return Effect.flatMap(
        run(() => collection.deleteOne(s.filter, options)),
        (r) => s.lost !== undefined && r.deletedCount === 0 ? Effect.fail(s.lost) : Effect.void
      )
    case "balance":
      return run(async () => {
        await db.collection(s.locks).updateOne({ _id: s.lockId as never }, { $inc: { commits: 1 } }, { ...options, upsert: true })
        return collection.aggregate([...s.pipeline], options).toArray()
      }).pipe(Effect.flatMap((docs) => docs[0] !== undefined && BigInt(Balances.toTotal(docs[0]).available) < 0n ? Effect.fail(s.lost) : Effect.void))
  }
}

/**
 * The transaction options of a commit: on the primary, as every transaction must be; committed
 * once a majority has it (an acknowledged commit survives a failover) and reading majority data,
 * whatever the host's client says; the commit waits at most `millis` on the server
 * (`maxCommitTimeMS`, and `wtimeoutMS` for the majority), docs/mongodb.md "Durability".
 */
export const transactionOptions = (millis: number): TransactionOptions => ({
  readPreference: "primary",
  readConcern: { level: "majority" },
  writeConcern: { w: "majority", wtimeoutMS: millis },
  maxCommitTimeMS: millis
})

/** The commit of one adapter instance; `millis` bounds a commit on the server. */
export const make =
  (client: MongoClient, db: Db, c: Collections, millis: number) => (writes: ReadonlyArray<Storage.Write>): Effect.Effect<void, StorageError.StorageError> =>
    Effect.suspend(() => {
      const steps = writes.map((w) => step(c, w))
      if (!needsTransaction(writes)) return steps.length === 0 ? Effect.void : apply(db, steps[0]!, undefined)
      return inTransaction(client, transactionOptions(millis), (session) => Effect.forEach(steps, (s) => apply(db, s, session), { discard: true }))
    })
