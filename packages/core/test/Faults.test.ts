import { assert, describe, it } from "@effect/vitest"
import { promptpay } from "@tender/repo-test-support"
import { Effect, Layer, Schema, TestClock } from "effect"
import { PaymentIntent, PaymentIntents, StorageError } from "../src/index.js"
import { keys, layer, login, quiet, storeWith } from "./fixtures.js"

const body = { ...promptpay, customer: {}, merchant_reference: "order-outage" }

const create = (idempotencyKey: string) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(body))
    return yield* PaymentIntents.create({ principal, requestId: "req_outage", idempotencyKey }, params)
  })

/** A store whose every commit fails as unreachable while `state.down`. */
const downStore = () => {
  const state = { down: true }
  const flaky = storeWith((store) => ({
    commit: (writes) => (state.down ? Effect.fail(new StorageError.StorageUnavailable({ message: "connection reset" })) : store.commit(writes))
  }))
  return { flaky, state }
}

/** Storage outages are logged by design; keep the test output clean. */

describe("storage outages", () => {
  it.effect("D1 a store that is unreachable at the final commit answers 503 service_unavailable and gives the key and reference back", () => {
    let down = true
    const flaky = storeWith((store) => ({
      commit: (writes) =>
        down && writes.some((w) => w._tag === "Insert")
          ? Effect.fail(new StorageError.StorageUnavailable({ message: "connection refused" }))
          : store.commit(writes)
    }))
    return Effect.gen(function*() {
      const during = yield* create("outage-key")
      assert.strictEqual(during.status, 503)
      const error = JSON.parse(during.body).error
      assert.strictEqual(error.code, "service_unavailable")
      assert.notInclude(during.body, "connection refused")
      down = false
      // Nothing stuck: the same key and reference reach a fresh handler at once.
      const after = yield* create("outage-key")
      assert.strictEqual(after.status, 201, after.body)
    }).pipe(Effect.provide(Layer.merge(layer({ storage: flaky }), quiet)))
  })

  it.effect("D1 a store down for the release too: the key is given back in the background once the store is back, well before its lock (Idempotency.lockMillis, 60 s) lapses", () => {
    const { flaky, state } = downStore()
    return Effect.gen(function*() {
      assert.strictEqual((yield* create("release-key")).status, 503)
      // The key's claim is still held (its release met the outage too): a retry now finds it in flight.
      assert.strictEqual((yield* create("release-key")).status, 409)
      state.down = false
      // Within a few seconds of the store coming back, not after the 60 s lock.
      yield* TestClock.adjust("3 seconds")
      const after = yield* create("release-key")
      assert.strictEqual(after.status, 201, after.body)
    }).pipe(Effect.provide(Layer.merge(layer({ storage: flaky }), quiet)))
  })

  it.effect("4.9.7 a retry right after the store is back reaches a fresh handler at once, though the background release still waits its back-off", () => {
    const { flaky, state } = downStore()
    return Effect.gen(function*() {
      assert.strictEqual((yield* create("retry-key")).status, 503)
      // The store takes the release again, but the background release's next try is not due (the
      // test clock stands still): the retry itself gives back what the 503 could not.
      state.down = false
      const after = yield* create("retry-key")
      assert.strictEqual(after.status, 201, after.body)
      assert.isFalse(after.replayed)
      // The same again without a key: the merchant_reference the 503 held is given back as well.
      state.down = true
      const principal = yield* login(keys.demoTest)
      const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)({ ...body, merchant_reference: "order-outage-2" }))
      const unkeyed = PaymentIntents.create({ principal, requestId: "req_outage_2" }, params)
      assert.strictEqual((yield* unkeyed).status, 503)
      state.down = false
      const second = yield* unkeyed
      assert.strictEqual(second.status, 201, second.body)
    }).pipe(Effect.provide(Layer.merge(layer({ storage: flaky }), quiet)))
  })

  it.effect("D1 a begin whose answer was lost (written, then the connection cut) gives back the key and reference it may have claimed", () => {
    let lose = true
    const flaky = storeWith((store) => ({
      begin: (request) =>
        lose
          ? Effect.zipRight(store.begin(request), Effect.fail(new StorageError.StorageUnavailable({ message: "connection reset" })))
          : store.begin(request)
    }))
    return Effect.gen(function*() {
      assert.strictEqual((yield* create("lost-begin-key")).status, 503)
      lose = false
      // At once: neither the key nor the merchant_reference is left claimed by the lost begin.
      const after = yield* create("lost-begin-key")
      assert.strictEqual(after.status, 201, after.body)
    }).pipe(Effect.provide(Layer.merge(layer({ storage: flaky }), quiet)))
  })
})
