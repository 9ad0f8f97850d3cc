/**
 * The directory's documents written before issue 49 made them tables of the storage port
 * (`Merchants.tables`), brought to the documents the generic reads and writes expect, once
 * (a marker in the upgrades collection), before `setup` creates the indexes: merchants and API
 * keys gain `version` (and what a merchant stored before D12 and D13 lacks), the host's words are
 * keyed by one id (`<kind>:<target>`), and the provider account ids merchants hold become the
 * keys of `Merchants.accountTable`, whose unique id holds each with one merchant (D13).
 */
import { Merchants, type StorageError } from "@tender/core"
import { Effect } from "effect"
import type { Db } from "mongodb"
import type { Collections } from "./collections.js"
import { fold } from "./errors.js"

/** The marker of a finished upgrade, in the upgrades collection. */
export const marker = "directory_tables"

/** Run the upgrade unless its marker says it ran; safe to run from several processes at once. */
export const run = (db: Db, c: Collections): Effect.Effect<void, StorageError.StorageError> =>
  Effect.tryPromise({
    try: async () => {
      const upgrades = db.collection<{ _id: string }>(c.upgrades)
      if ((await upgrades.findOne({ _id: marker })) !== null) return
      const now = new Date()
      const merchants = db.collection(c.of(Merchants.table))
      const unversioned = { version: { $exists: false } }
      await merchants.updateMany({ ...unversioned, fees: { $exists: false } }, { $set: { fees: {} } })
      await merchants.updateMany({ ...unversioned, settlement_delay_days: { $exists: false } }, { $set: { settlement_delay_days: 0 } })
      await merchants.updateMany({ ...unversioned, provider_accounts: { $exists: false } }, { $set: { provider_accounts: [] } })
      const accounts = db.collection(c.of(Merchants.accountTable))
      // In id order, so that should two merchants hold one id (a race before D13's index), the first keeps it.
      for await (const m of merchants.find({ ...unversioned, "provider_accounts.0": { $exists: true } }).sort({ id: 1 })) {
        for (const a of m["provider_accounts"] as ReadonlyArray<{ readonly id: string }>) {
          await accounts.updateOne({ id: a.id }, { $setOnInsert: { id: a.id, merchant_id: m["id"], created_at: now, version: 1 } }, { upsert: true })
        }
      }
      await merchants.updateMany(unversioned, { $set: { created_at: now, version: 1 } })
      const keys = db.collection(c.of(Merchants.apiKeyTable))
      await keys.updateMany({ ...unversioned, seeded: { $exists: false } }, { $set: { seeded: false } })
      await keys.updateMany({ ...unversioned, revoked_at: { $exists: false } }, { $set: { revoked_at: null } })
      await keys.updateMany(unversioned, { $set: { version: 1 } })
      await db.collection(c.of(Merchants.availabilityTable)).updateMany(unversioned, [{
        $set: {
          target: "$id",
          id: { $concat: ["$kind", ":", "$id"] },
          created_at: { $ifNull: ["$updated_at", now] },
          updated_at: { $ifNull: ["$updated_at", now] },
          version: 1
        }
      }])
      await upgrades.updateOne({ _id: marker }, { $set: { done: true } }, { upsert: true })
    },
    catch: fold("directory upgrade")
  })
