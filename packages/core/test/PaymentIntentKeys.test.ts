import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { PaymentIntent, Routing, Simulator, Storage, StorageError } from "../src/index.js"
import { type Body, errorOf, json, keys, layer, storeWith } from "./fixtures.js"
import { create, hosted, insertOf, listAll, promptpay, recording } from "./paymentIntentHelpers.js"

describe("Idempotency-Key (4.9, D5)", () => {
  it.effect("4.9.4 same key, same request -> the stored response replayed byte for byte, one intent", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.demoTest, promptpay, "key-1")
      yield* TestClock.adjust("1 hour")
      const again = yield* create(keys.demoTest, promptpay, "key-1")
      assert.strictEqual(again.body, first.body)
      assert.strictEqual(again.status, 201)
      assert.isTrue(again.replayed)
      assert.isFalse(first.replayed)
      assert.strictEqual(again.requestId, first.requestId)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 defaults and normalised values fingerprint canonically, so equivalent requests replay", () =>
    Effect.gen(function*() {
      const a = yield* create(keys.demoTest, { ...hosted, customer: { email: "Somchai@Example.com" }, metadata: {} }, "key-eq")
      const b = yield* create(keys.demoTest, {
        customer: { email: "somchai@example.com" },
        checkout_mode: "hosted",
        country: "TH",
        currency: "THB",
        amount: "150000"
      }, "key-eq")
      assert.isTrue(b.replayed)
      assert.strictEqual(b.body, a.body)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.5 same key, changed body -> 409 idempotency_conflict", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, promptpay, "key-2")
      const r = yield* create(keys.demoTest, { ...promptpay, amount: "150001" }, "key-2")
      assert.strictEqual(r.status, 409)
      assert.deepInclude(errorOf(r), { code: "idempotency_conflict", param: "Idempotency-Key" })
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.6 same key while the original is in flight -> 409 idempotency_conflict", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const slow = recording("simulator", (req) => Effect.zipRight(Deferred.await(gate), Simulator.make().createPayment(req)))
    return Effect.gen(function*() {
      const first = yield* Effect.fork(create(keys.demoTest, promptpay, "key-3"))
      yield* Effect.yieldNow()
      while (slow.calls.length === 0) yield* Effect.yieldNow()
      const second = yield* create(keys.demoTest, promptpay, "key-3")
      assert.strictEqual(second.status, 409)
      assert.include(errorOf(second).message, "in flight")
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual((yield* Fiber.join(first)).status, 201)
      // The 409 was not stored: once the original completes, the key replays it.
      assert.isTrue((yield* create(keys.demoTest, promptpay, "key-3")).replayed)
    }).pipe(Effect.provide(layer({ providers: [slow.provider] })))
  })

  it.effect("4.9.7 a 5xx releases the key, so a retry reaches a fresh handler", () => {
    let broken = true
    const flaky = recording("simulator", () => (broken ? Effect.die(new Error("provider adapter bug")) : undefined))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-5xx" }
      const first = yield* create(keys.demoTest, body, "key-4")
      assert.strictEqual(first.status, 500)
      assert.deepInclude(errorOf(first), { code: "internal_error" })
      assert.notInclude(first.body, "provider adapter bug")
      broken = false
      const retry = yield* create(keys.demoTest, body, "key-4")
      assert.strictEqual(retry.status, 201)
      assert.isFalse(retry.replayed)
    }).pipe(Effect.provide(layer({ providers: [flaky.provider] })))
  })

  it.effect("4.9.7 a failed final commit is a 5xx that releases the key and the merchant_reference", () => {
    let failNextInsert = true
    const flaky = storeWith((store) => ({
      commit: (writes) =>
        insertOf(writes) !== undefined && failNextInsert
          ? Effect.sync(() => (failNextInsert = false)).pipe(Effect.zipRight(Effect.fail(new StorageError.StorageFailure({ message: "disk full" }))))
          : store.commit(writes)
    }))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-commit" }
      const first = yield* create(keys.demoTest, body, "key-commit")
      assert.strictEqual(first.status, 500)
      assert.notInclude(first.body, "disk full")
      const retry = yield* create(keys.demoTest, body, "key-commit")
      assert.strictEqual(retry.status, 201)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer({ storage: flaky })))
  })

  it.effect("7 a provider that never answers is cut off after providerTimeout: 422 routing_unavailable", () => {
    const hanging = recording("simulator", () => Effect.never)
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(create(keys.demoTest, promptpay, "key-hang"))
      yield* TestClock.adjust(Routing.providerTimeout)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      const done = yield* Fiber.poll(fiber)
      assert.isTrue(done._tag === "Some", "the create is still waiting on the provider")
      const r = yield* Fiber.join(fiber)
      assert.strictEqual(r.status, 422)
      assert.strictEqual(errorOf(r).code, "routing_unavailable")
      assert.lengthOf(hanging.calls, 1)
    }).pipe(Effect.provide(layer({ providers: [hanging.provider] })))
  })

  it.effect("4.9.6 a create that outlived its Idempotency-Key claim answers 409 and writes nothing; the retry that took the key over stands", () => {
    // This request stalls past Idempotency.lockMillis; a retry with the same key takes the key over and
    // creates the intent. The stalled request's final commit is refused whole.
    let retried = false
    let fingerprint = ""
    const racing = storeWith((store) => ({
      begin: (req) => {
        fingerprint = req.idempotency?.fingerprint ?? fingerprint
        return store.begin(req)
      },
      commit: (writes) => {
        const mine = insertOf(writes)
        const completed = writes.find((w) => w._tag === "CompleteIdempotency")
        if (completed === undefined || mine === undefined || retried) return store.commit(writes)
        retried = true
        const later = mine.createdAt + 61_000
        const key = { apiKeyId: completed.key.apiKeyId, key: completed.key.key }
        const winner = { ...mine, id: mine.id.slice(0, -4) + "RTRY" }
        return store.begin({ now: later, idempotency: { ...key, fingerprint, expiresAt: later + 1000, lockedUntil: later + 60_000 } }).pipe(
          Effect.zipRight(store.commit([
            Storage.Write.insert(PaymentIntent.table, winner),
            Storage.Write.completeIdempotency(
              { ...key, lockedUntil: later + 60_000 },
              { status: 201, body: JSON.stringify({ id: winner.id }), requestId: "req_retry" }
            )
          ])),
          Effect.zipRight(store.commit(writes))
        )
      }
    }))
    return Effect.gen(function*() {
      const first = yield* create(keys.demoTest, promptpay, "key-stalled")
      assert.strictEqual(first.status, 409)
      assert.strictEqual(errorOf(first).code, "idempotency_conflict")
      assert.strictEqual(errorOf(first).param, "Idempotency-Key")
      const ids = (yield* listAll(keys.demoTest)).data.map((i) => i.id)
      assert.lengthOf(ids, 1)
      assert.match(ids[0]!, /RTRY$/)
    }).pipe(Effect.provide(layer({ storage: racing })))
  })

  it.effect("4.9 merchant_reference 1: losing the reference to a concurrent create at the final commit is a 409, never a 500", () => {
    // This request's claim lapses while it is at the provider; another create takes the reference
    // and commits first. The store refuses the second intent with a UniqueViolation.
    let winner: string | undefined
    const racing = storeWith((store) => ({
      commit: (writes) => {
        const mine = insertOf(writes)
        if (mine === undefined || winner !== undefined || mine.merchantReference === null) return store.commit(writes)
        winner = mine.id.slice(0, -4) + "WINR"
        const ref = { merchantId: mine.merchantId, environment: mine.environment, resourceType: "payment_intent" as const, reference: mine.merchantReference }
        const later = mine.createdAt + 61_000
        return store.begin({ now: later, reference: { ...ref, fingerprint: mine.fingerprint, resourceId: winner, lockedUntil: later + 60_000 } }).pipe(
          Effect.zipRight(store.commit([
            Storage.Write.insert(PaymentIntent.table, { ...mine, id: winner }),
            Storage.Write.completeReference({ ...ref, resourceId: winner })
          ])),
          Effect.zipRight(store.commit(writes))
        )
      }
    }))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-lapsed" }
      const first = yield* create(keys.demoTest, body, "key-lapsed")
      assert.strictEqual(first.status, 409)
      assert.strictEqual(errorOf(first).code, "idempotency_conflict")
      assert.strictEqual(errorOf(first).param, "merchant_reference")
      // The key was released, not stored: the retry answers with the intent that won (rule 2).
      const retry = yield* create(keys.demoTest, body, "key-lapsed")
      assert.strictEqual(retry.status, 200)
      assert.strictEqual(json(retry).id, winner)
      assert.deepStrictEqual((yield* listAll(keys.demoTest)).data.map((i) => i.id), [winner])
    }).pipe(Effect.provide(layer({ storage: racing })))
  })

  it.effect("D5 a 4xx after the key is claimed is stored and replayed", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.hostedOnly, promptpay, "key-403")
      assert.strictEqual(first.status, 403)
      const again = yield* create(keys.hostedOnly, promptpay, "key-403")
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.3 scope is (API key id, key): equal key strings under different API keys do not collide", () =>
    Effect.gen(function*() {
      const a = json(yield* create(keys.demoTest, promptpay, "shared-key"))
      const b = yield* create(keys.otherTest, { ...promptpay, amount: "999" }, "shared-key")
      assert.strictEqual(b.status, 201)
      assert.notStrictEqual(json(b).id, a.id)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 the key expires 24 hours after the first request", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, promptpay, "key-24h")
      yield* TestClock.adjust("23 hours")
      assert.isTrue((yield* create(keys.demoTest, promptpay, "key-24h")).replayed)
      yield* TestClock.adjust("1 hour")
      const fresh = yield* create(keys.demoTest, { ...promptpay, amount: "777" }, "key-24h")
      assert.strictEqual(fresh.status, 201)
      assert.isFalse(fresh.replayed)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 N simultaneous identical requests with one key create exactly one intent", () =>
    Effect.gen(function*() {
      const results = yield* Effect.all(Array.from({ length: 25 }, () => create(keys.demoTest, promptpay, "race-key")), { concurrency: "unbounded" })
      const ids = new Set(results.filter((r) => r.status === 201).map((r) => json(r).id))
      assert.strictEqual(ids.size, 1)
      for (const r of results) assert.include([201, 409], r.status)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))
})

describe("merchant_reference (4.9)", () => {
  const withRef = { ...promptpay, merchant_reference: "order-1001" }

  /** Every fingerprinted field of 4.9 ref.4 set, in hosted mode (the provider is not called). */
  const full: Body = {
    amount: "250000",
    currency: "THB",
    country: "TH",
    checkout_mode: "hosted",
    merchant_reference: "order-full",
    customer: { name: "Somchai Jaidee", email: "somchai@example.com" },
    payment_method: "th_bank_transfer",
    payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" },
    return_url: "https://shop.example/done",
    device_fingerprint: "fp_device_1",
    metadata: { cart: "c_1" },
    external_reference: "ext-1"
  }

  it.effect("4.9 merchant_reference 2 same merchant_reference and fingerprint returns the original intent (200), with no time limit", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.demoTest, withRef)
      assert.strictEqual(first.status, 201)
      yield* TestClock.adjust("30 days")
      const again = yield* create(keys.demoTest, withRef)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(json(again).id, json(first).id)
      assert.strictEqual(json(again).merchant_reference, "order-1001")
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.2 the original is returned whatever Idempotency-Key the repeat carries", () =>
    Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-keys" }
      const first = json(yield* create(keys.demoTest, body, "key-a"))
      for (const key of ["key-b", undefined]) {
        const r = yield* create(keys.demoTest, body, key)
        assert.strictEqual(r.status, 200, String(key))
        assert.strictEqual(json(r).id, first.id)
      }
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 merchant_reference 3 same merchant_reference with any changed fingerprinted field -> 409 idempotency_conflict", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, withRef)
      const changes: Array<Body> = [
        { amount: "150001" },
        { customer: { name: "Someone Else" } },
        { metadata: { order: "x" } },
        { device_fingerprint: "fp_1" },
        { external_reference: "ext-1" },
        { payment_method: "th_online_banking", payment_method_options: { bank: "SCB" }, customer: { name: "Somchai Jaidee", phone: "+66812345678" } }
      ]
      for (const change of changes) {
        const r = yield* create(keys.demoTest, { ...withRef, ...change })
        assert.strictEqual(r.status, 409, JSON.stringify(change))
        assert.deepInclude(errorOf(r), { code: "idempotency_conflict", param: "merchant_reference" })
      }
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.4 the fingerprint covers amount, currency, country, customer, checkout_mode, payment_method, payment_method_options, return_url, device fingerprint, metadata, external reference", () =>
    Effect.gen(function*() {
      const original = yield* create(keys.demoTest, full)
      assert.strictEqual(original.status, 201, original.body)
      const changes: Record<string, Body> = {
        amount: { amount: "250001" },
        currency: { currency: "USD" },
        country: { country: "VN" },
        customer: { customer: { name: "Somchai Jaidee", email: "other@example.com" } },
        checkout_mode: { checkout_mode: "merchant", return_url: undefined },
        payment_method: { payment_method: "th_online_banking", payment_method_options: { bank: "SCB" } },
        payment_method_options: { payment_method_options: { bank: "SCB", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" } },
        return_url: { return_url: "https://shop.example/other" },
        device_fingerprint: { device_fingerprint: "fp_device_2" },
        metadata: { metadata: { cart: "c_2" } },
        external_reference: { external_reference: "ext-2" }
      }
      for (const [field, change] of Object.entries(changes)) {
        const r = yield* create(keys.demoTest, { ...full, ...change })
        assert.strictEqual(r.status, 409, `${field}: ${r.body}`)
        assert.deepInclude(errorOf(r), { code: "idempotency_conflict", param: "merchant_reference" }, field)
      }
      const same = yield* create(keys.demoTest, full)
      assert.strictEqual(same.status, 200)
      assert.strictEqual(json(same).id, json(original).id)
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.4 defaults and normalised values are fingerprinted canonically, so an equivalent repeat returns the original", () =>
    Effect.gen(function*() {
      const first = yield* create(keys.demoTest, { ...hosted, customer: { email: "Somchai@Example.COM" }, metadata: {}, merchant_reference: "order-canon" })
      assert.strictEqual(first.status, 201)
      const again = yield* create(keys.demoTest, {
        merchant_reference: "order-canon",
        customer: { email: "somchai@example.com" },
        checkout_mode: "hosted",
        country: "TH",
        currency: "THB",
        amount: "150000"
      })
      assert.strictEqual(again.status, 200, again.body)
      assert.strictEqual(json(again).id, json(first).id)
    }).pipe(Effect.provide(layer())))

  it.effect("7 409 duplicate_merchant_reference is never the answer for payment intents", () =>
    Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-dup" }
      yield* create(keys.demoTest, body)
      const r = yield* create(keys.demoTest, { ...body, amount: "160000" })
      assert.strictEqual(r.status, 409)
      assert.strictEqual(errorOf(r).code, "idempotency_conflict")
      assert.notInclude(r.body, "duplicate_merchant_reference")
    }).pipe(Effect.provide(layer())))

  it.effect("D4 uniqueness is per merchant and per environment", () =>
    Effect.gen(function*() {
      const body = { ...hosted, merchant_reference: "order-scope" }
      const test = json(yield* create(keys.demoTest, body))
      const live = yield* create(keys.demoLive, body)
      assert.strictEqual(live.status, 201)
      assert.strictEqual(json(live).environment, "live")
      const other = yield* create(keys.otherTest, body)
      assert.strictEqual(other.status, 201)
      assert.notStrictEqual(json(other).id, test.id)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 ref.3 the same merchant_reference while the original is in flight -> 409 idempotency_conflict, not stored on the repeat's key", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const slow = recording("simulator", (req) => Effect.zipRight(Deferred.await(gate), Simulator.make().createPayment(req)))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-inflight" }
      const first = yield* Effect.fork(create(keys.demoTest, body))
      while (slow.calls.length === 0) yield* Effect.yieldNow()
      const second = yield* create(keys.demoTest, body, "key-repeat")
      assert.strictEqual(second.status, 409)
      assert.deepInclude(errorOf(second), { code: "idempotency_conflict", param: "merchant_reference" })
      yield* Deferred.succeed(gate, undefined)
      const original = yield* Fiber.join(first)
      assert.strictEqual(original.status, 201)
      // The transient 409 released the key: the retry reaches a handler and gets the original.
      const retry = yield* create(keys.demoTest, body, "key-repeat")
      assert.strictEqual(retry.status, 200)
      assert.strictEqual(json(retry).id, json(original).id)
    }).pipe(Effect.provide(layer({ providers: [slow.provider] })))
  })

  it.effect("4.9.7 a 5xx while answering a repeated merchant_reference releases the key, so a retry reaches a fresh handler", () => {
    let failReads = false
    const flaky = storeWith((store) => ({
      get: (table, scope, id) => failReads ? Effect.fail(new StorageError.StorageFailure({ message: "read timed out" })) : store.get(table, scope, id)
    }))
    return Effect.gen(function*() {
      const body = { ...promptpay, merchant_reference: "order-read-5xx" }
      const original = json(yield* create(keys.demoTest, body))
      failReads = true
      const first = yield* create(keys.demoTest, body, "key-read-5xx")
      assert.strictEqual(first.status, 500)
      assert.notInclude(first.body, "read timed out")
      failReads = false
      const retry = yield* create(keys.demoTest, body, "key-read-5xx")
      assert.strictEqual(retry.status, 200, retry.body)
      assert.strictEqual(json(retry).id, original.id)
    }).pipe(Effect.provide(layer({ storage: flaky })))
  })

  it.effect("4.9 N simultaneous creates with one merchant_reference leave exactly one intent", () =>
    Effect.gen(function*() {
      const results = yield* Effect.all(Array.from({ length: 25 }, () => create(keys.demoTest, withRef)), { concurrency: "unbounded" })
      assert.strictEqual(results.filter((r) => r.status === 201).length, 1)
      const ids = new Set(results.filter((r) => r.status < 300).map((r) => json(r).id))
      assert.strictEqual(ids.size, 1)
      const list = yield* listAll(keys.demoTest, { merchant_reference: "order-1001" })
      assert.lengthOf(list.data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9 N simultaneous creates with one merchant_reference and different bodies leave exactly one intent; every other answer is 409", () =>
    Effect.gen(function*() {
      const results = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => create(keys.demoTest, { ...promptpay, amount: String(150000 + i), merchant_reference: "order-race-mixed" })),
        { concurrency: "unbounded" }
      )
      const created = results.filter((r) => r.status === 201)
      assert.lengthOf(created, 1)
      for (const r of results) if (r.status !== 201) assert.deepInclude(errorOf(r), { code: "idempotency_conflict" })
      assert.lengthOf((yield* listAll(keys.demoTest)).data, 1)
    }).pipe(Effect.provide(layer())))
})
