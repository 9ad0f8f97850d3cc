/**
 * Contract cases for the rule of reads on the `Storage` port: a record handed back is frozen
 * with everything inside it and never changes, so core may keep what it derives from it with the
 * object (`RenderedView`); a changed record is a new object.
 */
import { assert } from "@effect/vitest"
import { PaymentIntent, Refund, Storage } from "@tender/core"
import { Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, freshScope, intent, refund } from "./fixtures.js"

/** The paths of `value` and of everything inside it that are not frozen (bytes aside). */
const unfrozen = (value: unknown, path = "record"): ReadonlyArray<string> => {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return []
  const own = Object.isFrozen(value) ? [] : [path]
  return [...own, ...Object.entries(value).flatMap(([k, v]) => unfrozen(v, `${path}.${k}`))]
}

/** @internal */
export const cases = (it: ContractIt) => {
  it.effect("Storage rule of reads: get, find and list hand back records frozen with their nested values", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const scope = freshScope()
      const record = intent(scope, { metadata: { order: "1" }, customer: { name: "Somchai", email: "s@example.com" } })
      const refunded = refund(scope, record.id)
      yield* commit([Storage.Write.insert(PaymentIntent.table, record), Storage.Write.insert(Refund.table, refunded)])
      const reads = [
        Option.getOrThrow(yield* storage.get(PaymentIntent.table, scope, record.id)),
        Option.getOrThrow(yield* storage.find(PaymentIntent.table, record.id)),
        ...(yield* storage.list(PaymentIntent.table, { ...scope, limit: 5 })),
        Option.getOrThrow(yield* storage.get(Refund.table, scope, refunded.id)),
        ...(yield* storage.list(Refund.table, { ...scope, limit: 5 }))
      ]
      assert.lengthOf(reads, 5)
      for (const read of reads) assert.deepStrictEqual(unfrozen(read), [])
    }))

  it.effect("Storage rule of reads: a changed record comes back as a new object, and the one handed back before keeps its content", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const scope = freshScope()
      const record = intent(scope)
      yield* commit([Storage.Write.insert(PaymentIntent.table, record)])
      const before = Option.getOrThrow(yield* storage.get(PaymentIntent.table, scope, record.id))
      const text = PaymentIntent.toResourceJson(before)
      yield* commit([Storage.Write.update(
        PaymentIntent.table,
        { ...before, status: "succeeded", nextAction: null, updatedAt: before.updatedAt + 1, version: 2 },
        1
      )])
      const after = Option.getOrThrow(yield* storage.get(PaymentIntent.table, scope, record.id))
      const [listed] = yield* storage.list(PaymentIntent.table, { ...scope, limit: 1 })
      assert.notStrictEqual(after, before)
      assert.notStrictEqual(listed, before)
      assert.deepStrictEqual([before.status, before.version, before.nextAction], [record.status, 1, record.nextAction])
      assert.strictEqual(PaymentIntent.toResourceJson(before), text)
      assert.strictEqual(JSON.parse(PaymentIntent.toResourceJson(after)).status, "succeeded")
      assert.strictEqual(JSON.parse(PaymentIntent.toResourceJson(listed!)).status, "succeeded")
    }))
}
