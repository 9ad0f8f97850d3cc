/**
 * Rows read again (docs/postgres.md, "Rows read again"): a row whose every column reads
 * the same text as the last time is handed back as the record made then, and with it the view
 * rendered from it; a row changed in any column, by this process or by any other writer of the
 * table, is a new record with the new values. Nothing a reader sees may be stale.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { Asset, PaymentIntent, Storage } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Fixtures } from "@tender/testing"
import { Effect, Layer, Option } from "effect"
import { largestRecentRow, recentChars, recentRows, remembered, toRecord } from "../src/internal/records.js"
import { client, dropTables, freshPrefix, runSql } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
const scratch = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))
const store = PgStorage.layer({ tablePrefix: prefix, directoryCache: false }).pipe(Layer.provideMerge(scratch), Layer.provide(client))

const get = (scope: Fixtures.Scope, id: string) =>
  Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, scope, id)).pipe(Effect.map(Option.getOrThrow))

/** A payment intent stored in a scope of its own, and how to read it back. */
const stored = (overrides: Partial<PaymentIntent.PaymentIntentRecord> = {}) =>
  Effect.gen(function*() {
    const scope = Fixtures.freshScope()
    const intent = Fixtures.intent(scope, overrides)
    yield* Fixtures.commit([Storage.Write.insert(PaymentIntent.table, intent)])
    return { scope, id: intent.id, read: get(scope, intent.id) }
  })

describeOnPostgres("rows read again on PostgreSQL", () => {
  layer(store, { timeout: 60_000 })((it) => {
    it.effect("a row read again unchanged is the same frozen record, its view rendered once", () =>
      Effect.gen(function*() {
        const { read, scope } = yield* stored()
        const first = yield* read
        const again = yield* read
        assert.strictEqual(again, first)
        assert.isTrue(Object.isFrozen(first))
        assert.strictEqual(PaymentIntent.toResourceJson(again), PaymentIntent.toResourceJson(first))
        const page = yield* Effect.flatMap(Storage.Storage, (s) => s.list(PaymentIntent.table, { ...scope, limit: 10 }))
        assert.strictEqual(page[0], first, "a list reads the same row as the same record")
      }))

    it.effect("a row updated through the store is read as a new record with the new values", () =>
      Effect.gen(function*() {
        const { read } = yield* stored()
        const before = yield* read
        const paid = { ...before, status: "succeeded" as const, nextAction: null, updatedAt: before.updatedAt + 1, version: before.version + 1 }
        yield* Fixtures.commit([Storage.Write.update(PaymentIntent.table, paid, before.version)])
        const after = yield* read
        assert.notStrictEqual(after, before)
        assert.strictEqual(after.status, "succeeded")
        assert.strictEqual(JSON.parse(PaymentIntent.toResourceJson(after)).status, "succeeded")
        assert.strictEqual(before.status, "requires_action", "the record read before is unchanged")
      }))

    it.effect("a row changed by another writer, in one byte of a JSON column and nothing else, is read with that change", () =>
      Effect.gen(function*() {
        const qr = "00020101021229370016A000000677010111"
        const { id, read } = yield* stored({ nextAction: { type: "display_qr_code", qr_data: qr } })
        const before = yield* read
        // Another process's write: no version bump, no updated_at, one character of the next action.
        yield* Effect.promise(() =>
          runSql(Effect.flatMap(SqlClient, (sql) =>
            sql`UPDATE ${sql(`${prefix}payment_intents`)} SET next_action = ${`{"type":"display_qr_code","qr_data":"${qr.slice(0, -1)}2"}`} WHERE id = ${id}`))
        )
        const after = yield* read
        assert.notStrictEqual(after, before)
        assert.deepStrictEqual(after.nextAction, { type: "display_qr_code", qr_data: `${qr.slice(0, -1)}2` })
        assert.include(PaymentIntent.toResourceJson(after), `"qr_data":"${qr.slice(0, -1)}2"`)
      }))
  })
})

/** A payment intent's row as PostgreSQL hands it back (text columns), with `extra` columns. */
const intentRow = (scope: { readonly merchantId: string; readonly environment: string }, id: string, extra: Record<string, string> = {}) => ({
  id,
  merchant_id: scope.merchantId,
  environment: scope.environment,
  amount: "100",
  currency: "THB",
  ...extra,
  created_at: "1764115200000",
  updated_at: "1764115200000",
  version: "1"
})

describeOnPostgres("rows read again, bounded", () => {
  layer(Layer.empty)((it) => {
    it.effect(`at most ${recentRows} rows of a table are remembered, the one remembered longest let go first`, () =>
      Effect.sync(() => {
        const scope = Fixtures.freshScope()
        const rowOf = (id: string) => intentRow(scope, id)
        const first = toRecord(PaymentIntent.table, rowOf("dord_bounded_0"))
        assert.strictEqual(toRecord(PaymentIntent.table, rowOf("dord_bounded_0")), first)
        for (let i = 1; i <= recentRows; i++) toRecord(PaymentIntent.table, rowOf(`dord_bounded_${i}`))
        assert.notStrictEqual(toRecord(PaymentIntent.table, rowOf("dord_bounded_0")), first, "the row remembered longest was let go")
        const last = toRecord(PaymentIntent.table, rowOf(`dord_bounded_${recentRows}`))
        assert.strictEqual(toRecord(PaymentIntent.table, rowOf(`dord_bounded_${recentRows}`)), last)
      }))

    it.effect(`remembered rows hold at most ${recentChars} characters of a table, whatever their count`, () =>
      Effect.sync(() => {
        const scope = Fixtures.freshScope()
        // Rows of some 100,000 characters (a large metadata), each under the largest remembered.
        const metadata = JSON.stringify({ note: "x".repeat(100_000) })
        const rowOf = (id: string) => intentRow(scope, id, { metadata })
        for (let i = 0; i < 200; i++) toRecord(PaymentIntent.table, rowOf(`dord_large_${i}`))
        const held = remembered(PaymentIntent.table)
        assert.isAtMost(held.chars, recentChars)
        assert.isBelow(held.rows, 200, "rows past the characters' bound were let go")
        const last = toRecord(PaymentIntent.table, rowOf("dord_large_199"))
        assert.strictEqual(toRecord(PaymentIntent.table, rowOf("dord_large_199")), last, "the row read last is remembered")
      }))

    it.effect("an asset's row (a 5 MiB file in base64) is never remembered: each read builds its record anew", () =>
      Effect.sync(() => {
        const scope = Fixtures.freshScope()
        const base64 = Buffer.alloc(Asset.maxBytes, 7).toString("base64")
        assert.isAbove(base64.length, largestRecentRow)
        const rowOf = (id: string) => ({
          id,
          merchant_id: scope.merchantId,
          environment: scope.environment,
          content_type: "image/png",
          size: String(Asset.maxBytes),
          sha256: "0".repeat(64),
          bytes: base64,
          created_at: "1764115200000",
          version: "1"
        })
        for (let i = 0; i < 4; i++) toRecord(Asset.table, rowOf(`asst_large_${i}`))
        const first = toRecord(Asset.table, rowOf("asst_large_0"))
        assert.strictEqual(first.bytes.length, Asset.maxBytes)
        assert.deepStrictEqual(remembered(Asset.table), { rows: 0, chars: 0 })
        // A boolean, not the records: a failure message diffing two 5 MiB files takes minutes.
        assert.isFalse(toRecord(Asset.table, rowOf("asst_large_0")) === first, "the row was built anew")
      }))
  })
})
