/**
 * Contract cases for top-up intent rows (2.5, 4.8): round trips (source amounts past 18
 * digits, a crypto next_action), the merchant_reference constraint, versioned updates,
 * every list filter of 4.8 with `source_type`, isolation and keyset order.
 */
import { assert } from "@effect/vitest"
import type { TopupIntent } from "@tender/core"
import { Ids, Storage, TopupIntent as TI } from "@tender/core"
import { Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, expectedPage, freshScope, ids, t0 } from "./fixtures.js"

type Record = TopupIntent.TopupIntentRecord
type Scope = ReturnType<typeof freshScope>

/** A complete top-up record; `overrides` replace fields. */
export const topup = (scope: Scope, overrides: Partial<Record> = {}): Record =>
  TI.TopupIntentRecord.make({
    id: Ids.prefixes.topupIntent + Ids.randomBase62(),
    merchantId: scope.merchantId,
    environment: scope.environment,
    status: "requires_payment",
    destinationAmount: "100000000",
    destinationCurrency: "USDT",
    creditedAmount: "0",
    sourceType: "test_funding",
    sourceProvider: "simulator",
    sourceCurrency: "THB",
    sourceAmount: "367942",
    convertedAmount: "362503",
    feeAmount: "3626",
    spreadAmount: "1813",
    fxRate: "0.027586",
    fxSpread: "0.005",
    feeRate: "0.01",
    feeFixed: "0",
    providerTopupId: "simtu_1",
    expiresAt: t0 + 3_600_000,
    fingerprint: "f".repeat(64),
    createdAt: t0,
    updatedAt: t0,
    version: 1,
    ...overrides
  })

interface Query extends Omit<Storage.ListQuery<Record>, "where"> {
  readonly country?: string
  readonly currency?: string
  readonly merchantReference?: string
  readonly statuses?: ReadonlyArray<TopupIntent.Status>
  readonly sourceTypes?: ReadonlyArray<TopupIntent.SourceType>
}

const insert = (record: Record) => commit([Storage.Write.insert(TI.table, record)])
const get = (record: Record) => Effect.flatMap(Storage.Storage, (s) => s.get(TI.table, record, record.id))
const list = ({ country, currency, merchantReference, sourceTypes, statuses, ...query }: Query) =>
  Effect.flatMap(Storage.Storage, (s) =>
    s.list(TI.table, {
      ...query,
      where: { country, destinationCurrency: currency, merchantReference, status: statuses, sourceType: sourceTypes }
    }))

/** What a list must return, by the rules of 4.8 and D6. */
const expected = (rows: ReadonlyArray<Record>, q: Query) =>
  expectedPage(rows, q, (r) =>
    (q.country === undefined || r.country === q.country) &&
    (q.currency === undefined || r.destinationCurrency === q.currency) &&
    (q.merchantReference === undefined || r.merchantReference === q.merchantReference) &&
    (q.statuses === undefined || q.statuses.includes(r.status)) &&
    (q.sourceTypes === undefined || q.sourceTypes.includes(r.sourceType)))

/** @internal */
export const cases = (it: ContractIt) => {
  it.effect("2.5 storage: a top-up round-trips every field: a 38-digit source amount, a crypto next_action, a receipt, ms times", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const record = topup(scope, {
        merchantReference: "topup-ทดสอบ-" + "x".repeat(200),
        country: "TH",
        destinationAmount: "999999999999999999",
        destinationCurrency: "THB",
        sourceType: "provider_gateway",
        sourceCurrency: "ETH",
        sourceNetwork: "ethereum",
        sourceAmount: "12345678901234567890123456789012345678",
        convertedAmount: "12345678901234567890123456789012345000",
        feeAmount: "600",
        spreadAmount: "78",
        fxRate: "0.0000084721",
        nextAction: {
          type: "display_crypto_payment_instructions",
          address: "0x52908400098527886E0F7030069857D2E4169EE7",
          amount: "12345678901234567890123456789012345678",
          currency: "ETH",
          network: "ethereum",
          expires_at: "2026-11-22T09:15:30.123Z"
        },
        receipt: { status: "submitted", asset_id: "asst_000000000000000000000001" },
        failureCode: "payment_declined",
        failureMessage: "The provider declined the top-up.",
        expiresAt: t0 + 3_600_123,
        createdAt: t0 + 123,
        updatedAt: t0 + 98_765,
        version: 3
      })
      yield* insert(record)
      assert.deepStrictEqual(yield* get(record), Option.some(record))
      const nulls = topup(scope)
      yield* insert(nulls)
      assert.deepStrictEqual(yield* get(nulls), Option.some(nulls))
    }))

  it.effect("4.2 storage: a top-up of another merchant or environment is not found", () =>
    Effect.gen(function*() {
      const record = topup(freshScope())
      yield* insert(record)
      const s = yield* Storage.Storage
      assert.isTrue(Option.isNone(yield* s.get(TI.table, { ...freshScope(), environment: "test" }, record.id)))
      assert.isTrue(Option.isNone(yield* s.get(TI.table, { merchantId: record.merchantId, environment: "live" }, record.id)))
    }))

  it.effect("4.9 merchant_reference 1: the store refuses a second top-up with one reference in one scope; null references never collide", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      yield* insert(topup(scope, { merchantReference: "same" }))
      const e = yield* Effect.flip(insert(topup(scope, { merchantReference: "same" })))
      assert.strictEqual(e._tag, "UniqueViolation")
      yield* insert(topup(freshScope(), { merchantReference: "same" }))
      yield* insert(topup(scope))
      yield* insert(topup(scope))
    }))

  it.effect("storage: a top-up update applies only over the expected version", () =>
    Effect.gen(function*() {
      const record = topup(freshScope())
      yield* insert(record)
      const paid: Record = { ...record, status: "succeeded", creditedAmount: "100000000", nextAction: null, version: 2, updatedAt: t0 + 5 }
      yield* commit([Storage.Write.update(TI.table, paid, 1)])
      const stale = yield* Effect.flip(commit([Storage.Write.update(TI.table, { ...paid, status: "failed" as const, version: 3 }, 1)]))
      assert.strictEqual(stale._tag, "StaleVersion")
      assert.deepStrictEqual(yield* get(record), Option.some(paid))
    }))

  it.effect("4.8 every top-up filter (country, currency, merchant_reference, status, source_type single and several, created window), alone and combined, newest first", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const rows: Array<Record> = []
      const statuses = ["requires_payment", "processing", "succeeded", "failed", "expired"] as const
      const sources = ["test_funding", "manual_receipt", "provider_gateway"] as const
      for (let i = 0; i < 30; i++) {
        rows.push(topup(i % 10 === 9 ? { ...scope, environment: "live" } : scope, {
          status: statuses[i % 5]!,
          sourceType: sources[i % 3]!,
          country: i % 4 === 0 ? null : ["TH", "SG"][i % 2]!,
          destinationCurrency: ["THB", "USDT"][Math.floor(i / 2) % 2]!,
          merchantReference: i % 6 === 0 ? `ref-${i}` : null,
          // Ties on created_at break by id.
          createdAt: t0 + Math.floor(i / 3) * 1000
        }))
      }
      const other = topup(freshScope())
      yield* Effect.forEach([...rows, other], insert, { discard: true })
      const queries: ReadonlyArray<Query> = [
        { ...scope, limit: 100 },
        { ...scope, limit: 100, country: "TH" },
        { ...scope, limit: 100, currency: "USDT" },
        { ...scope, limit: 100, merchantReference: "ref-12" },
        { ...scope, limit: 100, statuses: ["failed"] },
        { ...scope, limit: 100, sourceTypes: ["manual_receipt"] },
        { ...scope, limit: 100, sourceTypes: ["manual_receipt", "provider_gateway"] },
        { ...scope, limit: 100, createdAfter: t0 + 2000, createdBefore: t0 + 7000 },
        {
          ...scope,
          limit: 3,
          country: "SG",
          currency: "THB",
          statuses: ["requires_payment", "succeeded", "expired"],
          sourceTypes: ["test_funding", "provider_gateway"]
        },
        { ...scope, limit: 5, after: { createdAt: rows[14]!.createdAt, id: rows[14]!.id } },
        { ...scope, environment: "live", limit: 100 }
      ]
      for (const q of queries) {
        assert.deepStrictEqual(ids(yield* list(q)), ids(expected(rows, q)), JSON.stringify(q))
      }
    }))
}
