/**
 * Contract cases for refunds (D10): a refund round-trips, its list filters, its
 * merchant_reference constraint, and the never-more-than-paid rule under concurrency. The rule
 * rests on what every store already promises: a refund is inserted in one commit with the
 * payment intent's refund counters, written as a versioned update, so of two refunds that read
 * the same intent only one commits (`Refund.reserve`).
 */
import { assert } from "@effect/vitest"
import type { PaymentIntent } from "@tender/core"
import { PaymentIntent as PI, Refund, Storage } from "@tender/core"
import { Effect, Either, Option } from "effect"
import type { ContractIt, Scope } from "./fixtures.js"
import { commit, completeRefund, freshScope, intent, refund, t0 } from "./fixtures.js"

const storage = Storage.Storage

/** A succeeded payment intent of `amount`, stored. */
const paidIntent = (scope: Scope, amount: string) =>
  Effect.gen(function*() {
    const record = intent(scope, { amount, status: "succeeded", nextAction: null })
    yield* commit([Storage.Write.insert(PI.table, record)])
    return record
  })

/**
 * One refund of `amount` as `Refunds.create` makes it: read the intent, reserve on it, and
 * commit the reservation (versioned) with the insert; read again and retry when another commit
 * moved the intent first. `false` when the amount is no longer refundable.
 */
const refundOnce = (scope: Scope, intentId: string, amount: string) =>
  Effect.gen(function*() {
    const s = yield* storage
    const current = Option.getOrThrow(yield* s.get(PI.table, scope, intentId)) as PaymentIntent.PaymentIntentRecord
    const reserved = Refund.reserve(current, amount, t0)
    if (Either.isLeft(reserved)) return false
    // Let the other racers read the same version first, as a network round trip does on a real
    // store: without it an in-memory store would run each racer start to finish and race nothing.
    yield* Effect.yieldNow()
    yield* s.commit([
      Storage.Write.update(PI.table, reserved.right.intent, current.version),
      Storage.Write.insert(Refund.table, refund(scope, intentId, { amount }))
    ])
    return true
  }).pipe(Effect.retry({ while: (e) => e._tag === "StaleVersion" }))

/** @internal */
export const cases = (it: ContractIt, concurrency: number) => {
  it.effect("D10 storage: a refund round-trips every field, and a payment intent its cancellation_reason and refund counters", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const pi = intent(scope, {
        status: "canceled",
        nextAction: null,
        cancellationReason: "abandoned",
        amountRefunded: "999999999999999998",
        refundsPending: "1",
        amount: "999999999999999999"
      })
      yield* commit([Storage.Write.insert(PI.table, pi)])
      assert.deepStrictEqual(yield* Effect.flatMap(storage, (s) => s.get(PI.table, scope, pi.id)), Option.some(pi))
      const full = completeRefund(scope, pi.id, { createdAt: t0 + 123, updatedAt: t0 + 456 })
      const bare = refund(scope, pi.id)
      yield* commit([Storage.Write.insert(Refund.table, full), Storage.Write.insert(Refund.table, bare)])
      assert.deepStrictEqual(yield* Effect.flatMap(storage, (s) => s.get(Refund.table, scope, full.id)), Option.some(full))
      assert.deepStrictEqual(yield* Effect.flatMap(storage, (s) => s.get(Refund.table, scope, bare.id)), Option.some(bare))
    }))

  it.effect("D10 storage: merchant_reference is unique per merchant and environment among refunds", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const pi = yield* paidIntent(scope, "150000")
      yield* commit([Storage.Write.insert(Refund.table, refund(scope, pi.id, { merchantReference: "r-1" }))])
      const twice = yield* Effect.flip(commit([Storage.Write.insert(Refund.table, refund(scope, pi.id, { merchantReference: "r-1" }))]))
      assert.strictEqual(twice._tag, "UniqueViolation")
      // Another merchant, and refunds without a reference, never collide.
      const other = freshScope()
      yield* commit([
        Storage.Write.insert(Refund.table, refund(other, pi.id, { merchantReference: "r-1" })),
        Storage.Write.insert(Refund.table, refund(scope, pi.id)),
        Storage.Write.insert(Refund.table, refund(scope, pi.id))
      ])
    }))

  it.effect("D10 storage: refunds list by payment intent and status, newest first, within their scope", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const a = yield* paidIntent(scope, "150000")
      const b = yield* paidIntent(scope, "150000")
      const rows = [
        refund(scope, a.id, { createdAt: t0 + 1 }),
        refund(scope, a.id, { createdAt: t0 + 2, status: "failed" }),
        refund(scope, b.id, { createdAt: t0 + 3, status: "succeeded" }),
        refund(freshScope(), a.id, { createdAt: t0 + 4 })
      ]
      yield* commit(rows.map((r) => Storage.Write.insert(Refund.table, r)))
      const list = (where: Storage.ListQuery<Refund.RefundRecord>["where"]) =>
        Effect.map(Effect.flatMap(storage, (s) => s.list(Refund.table, { ...scope, where, limit: 10 })), (rs) => rs.map((r) => r.id))
      assert.deepStrictEqual(yield* list({ paymentIntentId: a.id }), [rows[1]!.id, rows[0]!.id])
      assert.deepStrictEqual(yield* list({ status: ["succeeded", "failed"] }), [rows[2]!.id, rows[1]!.id])
      assert.deepStrictEqual(yield* list(undefined), [rows[2]!.id, rows[1]!.id, rows[0]!.id])
    }))

  it.effect(`D10 ${concurrency} concurrent refunds never add up to more than the payment: exactly what was paid is reserved, each refund once`, () =>
    Effect.gen(function*() {
      const scope = freshScope()
      // Room for half of the racers: the other half must each be refused.
      const fits = Math.max(1, Math.floor(concurrency / 2))
      const pi = yield* paidIntent(scope, String(10000 * fits))
      const answers = yield* Effect.all(
        Array.from({ length: concurrency }, () => refundOnce(scope, pi.id, "10000")),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(answers.filter((ok) => ok).length, fits)
      const s = yield* storage
      const after = Option.getOrThrow(yield* s.get(PI.table, scope, pi.id))
      assert.strictEqual(after.refundsPending, String(10000 * fits))
      const stored = yield* s.list(Refund.table, { ...scope, where: { paymentIntentId: pi.id }, limit: 100 })
      assert.strictEqual(stored.length, fits)
      assert.strictEqual(stored.reduce((sum, r) => sum + BigInt(r.amount), 0n), BigInt(pi.amount))
    }))
}
