/**
 * The MongoDB equivalent of PostgreSQL's migration 0022 (D12): on `setup`, once per database, the
 * balance transactions of the history stored before the ledger, from `LedgerBackfill`. Each
 * resource collection is read in pages by id; a transaction already written (the unique
 * `source_type` index) is skipped, so a setup cut off halfway and run again completes it. A
 * marker document says it is done, so later setups read nothing. `sourceOf` is pure, tested
 * without a server.
 */
import { BalanceTransaction, LedgerBackfill, PaymentIntent, PayoutIntent, Refund, type StorageError, type Table, TopupIntent } from "@tender/core"
import { Effect } from "effect"
import type { Db } from "mongodb"
import type { Collections } from "./collections.js"
import { toDocument, toRecord } from "./documents.js"
import { classify, fold } from "./errors.js"

/** The resource tables whose history moved money. */
export const sources: ReadonlyArray<Table.Table<any>> = [PaymentIntent.table, Refund.table, TopupIntent.table, PayoutIntent.table]

/** The backfill source a stored record of `table` is. */
export const sourceOf = (table: Table.Table<any>, record: any): LedgerBackfill.Source => {
  switch (table.name) {
    case PaymentIntent.table.name:
      return { kind: "payment_intent", record }
    case Refund.table.name:
      return { kind: "refund", record }
    case TopupIntent.table.name:
      return { kind: "topup_intent", record }
    default:
      return { kind: "payout_intent", record }
  }
}

/** The marker of a finished backfill, in the upgrades collection. */
export const marker = "balance_backfill"

const page = 1000

/** Write the transactions of the history before the ledger, once per database. */
export const run = (db: Db, c: Collections): Effect.Effect<void, StorageError.StorageError> =>
  Effect.tryPromise({
    try: async () => {
      const upgrades = db.collection<{ _id: string }>(c.upgrades)
      if ((await upgrades.findOne({ _id: marker })) !== null) return
      const target = db.collection(c.of(BalanceTransaction.table))
      for (const table of sources) {
        let after = ""
        while (true) {
          const docs = await db.collection(c.of(table)).find({ id: { $gt: after } }, { sort: { id: 1 }, limit: page }).toArray()
          for (const doc of docs) {
            for (const x of LedgerBackfill.transactionsOf(sourceOf(table, toRecord(table, doc)))) {
              try {
                await target.insertOne(toDocument(BalanceTransaction.table, x))
              } catch (error) {
                if (classify(error) !== "unique") throw error
              }
            }
          }
          if (docs.length < page) break
          after = String(docs[docs.length - 1]!["id"])
        }
      }
      await upgrades.updateOne({ _id: marker }, { $set: { done: true } }, { upsert: true })
    },
    catch: fold("balance backfill")
  })
