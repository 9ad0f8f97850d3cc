/**
 * Contract cases for balances (D12): balance transactions round-trip with signed amounts, one per
 * (source, type); the sums per currency (available, pending, fees) come from the transactions;
 * and a commit that must not overdraw a balance (`RequireAvailable`) is refused with nothing
 * written when it would, whatever the concurrency.
 */
import { assert } from "@effect/vitest"
import { BalanceTransaction, Ledger, Storage } from "@tender/core"
import { Effect, Either, Option } from "effect"
import type { ContractIt, Scope } from "./fixtures.js"
import { commit, freshScope, t0 } from "./fixtures.js"

const storage = Storage.Storage

const txn = (
  scope: Scope,
  type: BalanceTransaction.Type,
  amount: bigint,
  options: { fee?: bigint; availableAt?: number; source?: string | null; currency?: string } = {}
) =>
  Ledger.transaction({
    ...scope,
    type,
    amount,
    currency: options.currency ?? "THB",
    source: options.source === undefined ? `src_${crypto.randomUUID()}` : options.source,
    counter: "provider:simulator",
    createdAt: t0,
    fee: options.fee,
    availableAt: options.availableAt
  })

const day = 24 * 60 * 60 * 1000

export const cases = (it: ContractIt, concurrency: number) => {
  it.effect("D12 storage: a balance transaction round-trips with its signed amounts; a second of one (source, type) is a UniqueViolation", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const refund = txn(scope, "refund", -1500n, { source: "rfnd_1" })
      yield* commit([Storage.Write.insert(BalanceTransaction.table, refund)])
      assert.deepStrictEqual(Option.getOrThrow(yield* (yield* storage).get(BalanceTransaction.table, scope, refund.id)), refund)
      const again = yield* Effect.flip(commit([Storage.Write.insert(BalanceTransaction.table, txn(scope, "refund", -1500n, { source: "rfnd_1" }))]))
      assert.strictEqual(again._tag, "UniqueViolation")
      // Adjustments have no source: they never collide on it.
      yield* commit([Storage.Write.insert(BalanceTransaction.table, txn(scope, "adjustment", 5n, { source: null }))])
      yield* commit([Storage.Write.insert(BalanceTransaction.table, txn(scope, "adjustment", 5n, { source: null }))])
    }))

  it.effect("D12 storage: balances sum net per currency, available at `now` (every debit counts at once) and pending after, with the fees; sorted by currency, scoped", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const other = freshScope()
      yield* commit([
        Storage.Write.insert(BalanceTransaction.table, txn(scope, "payment", 100_000n, { fee: 1650n, availableAt: t0 + day })),
        Storage.Write.insert(BalanceTransaction.table, txn(scope, "topup", 5_000n)),
        Storage.Write.insert(BalanceTransaction.table, txn(scope, "payout", -2_000n, { availableAt: t0 + 1 })),
        Storage.Write.insert(BalanceTransaction.table, txn(scope, "topup", 7n, { currency: "USD" })),
        Storage.Write.insert(BalanceTransaction.table, txn(other, "topup", 9n))
      ])
      const s = yield* storage
      assert.deepStrictEqual(yield* s.balances({ ...scope, now: t0 }), [
        { currency: "THB", available: "3000", pending: "98350", fees: "1650" },
        { currency: "USD", available: "7", pending: "0", fees: "0" }
      ])
      assert.deepStrictEqual(yield* s.balances({ ...scope, now: t0 + day }), [
        { currency: "THB", available: "101350", pending: "0", fees: "1650" },
        { currency: "USD", available: "7", pending: "0", fees: "0" }
      ])
      assert.deepStrictEqual(yield* s.balances({ merchantId: "mch_nobody", environment: "test", now: t0 }), [])
    }))

  it.effect("D12 storage: a commit that would overdraw the available balance fails StaleVersion and writes nothing; concurrent ones never overdraw", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const balance = { ...scope, currency: "THB" }
      yield* commit([Storage.Write.insert(BalanceTransaction.table, txn(scope, "topup", 10_000n))])
      const payout = () => [
        Storage.Write.insert(BalanceTransaction.table, txn(scope, "payout", -1_000n)),
        Storage.Write.requireAvailable(balance, t0)
      ]
      const outcomes = yield* Effect.all(
        Array.from({ length: Math.max(concurrency, 12) + 3 }, () => Effect.either(commit(payout()))),
        { concurrency: "unbounded" }
      )
      const made = outcomes.filter(Either.isRight).length
      for (const o of outcomes) if (Either.isLeft(o)) assert.strictEqual(o.left._tag, "StaleVersion")
      // Every commit that was refused wrote nothing; the ones that were made are exactly what the balance covered.
      const [total] = yield* (yield* storage).balances({ ...scope, now: t0 })
      assert.strictEqual(BigInt(total!.available), 10_000n - BigInt(made) * 1_000n)
      assert.isTrue(BigInt(total!.available) >= 0n)
      assert.strictEqual(made, 10)
    }))
}
