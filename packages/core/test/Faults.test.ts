import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, Schema } from "effect"
import { PaymentIntent, PaymentIntents, Storage, StorageError } from "../src/index.js"
import { keys, layer, login } from "./fixtures.js"

const body = {
  amount: "150000",
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_promptpay",
  customer: {},
  merchant_reference: "order-outage"
}

const create = (idempotencyKey: string) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(body))
    return yield* PaymentIntents.create({ principal, requestId: "req_outage", idempotencyKey }, params)
  })

/** Storage outages are logged by design; keep the test output clean. */
const quiet = Logger.replace(Logger.defaultLogger, Logger.none)

describe("storage outages", () => {
  it.effect("D1 a store that is unreachable at the final commit answers 503 service_unavailable and gives the key and reference back", () => {
    let down = true
    const store = Storage.makeMemory()
    const flaky = Layer.succeed(Storage.Storage, {
      ...store,
      commit: (writes) =>
        down && writes.some((w) => w._tag === "Insert")
          ? Effect.fail(new StorageError.StorageUnavailable({ message: "connection refused" }))
          : store.commit(writes)
    })
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
})
