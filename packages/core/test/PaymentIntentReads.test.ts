import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { type Authentication, PaymentIntents, Simulator } from "../src/index.js"
import { type Body, json, type Key, keys, layer, login } from "./fixtures.js"
import { create, hosted, listAll, paramOf, promptpay } from "./paymentIntentHelpers.js"

describe("GET /payment_intents/{id} (core)", () => {
  it.effect("4.2 unknown, other merchant's and other environment's ids are indistinguishable 404s", () =>
    Effect.gen(function*() {
      const id = json(yield* create(keys.demoTest, promptpay)).id as string
      const own = yield* PaymentIntents.retrieve(yield* login(keys.demoTest), id)
      assert.strictEqual(own.id, id)
      assert.strictEqual(own.processing_reason, null)
      const errors = [
        yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.otherTest), id)),
        yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.demoLive), id)),
        yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.demoTest), "dord_" + "x".repeat(24)))
      ]
      for (const e of errors) assert.strictEqual(e._tag, "ResourceNotFound")
      const messages = errors.map((e) => e.message.replace(/"dord_\w+"/, "ID"))
      assert.strictEqual(new Set(messages).size, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("D1 a bad path id format -> 400 validation_failed param id", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(PaymentIntents.retrieve(yield* login(keys.demoTest), "not-an-id"))
      assert.strictEqual(e._tag, "ValidationFailed")
      assert.strictEqual(paramOf(e), "id")
    }).pipe(Effect.provide(layer())))
})

/** The ids `who` lists with `params`, in the list's order. */
const listedIds = (who: Authentication.Principal) => (params: PaymentIntents.ListParams) =>
  Effect.map(PaymentIntents.list(who, params), (l) => l.data.map((d) => d.id))

describe("GET /payment_intents (core)", () => {
  /** Create intents one millisecond apart, so created_at orders them. */
  const seedIntents = (key: Key, bodies: ReadonlyArray<Body>) =>
    Effect.forEach(bodies, (b) => Effect.zipLeft(Effect.map(create(key, b), json), TestClock.adjust("1 millis")))

  const seedOne = (key: Key, body: Body) => Effect.zipLeft(Effect.map(create(key, body), json), TestClock.adjust("1 millis"))
  /** One hosted intent of the demo's test key created at 01:00:00.000Z: listed, or not, with each of the params. */
  const listingTheIntentAtOne = (cases: ReadonlyArray<readonly [PaymentIntents.ListParams, boolean]>) =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hours")
      const a = yield* seedOne(keys.demoTest, hosted)
      const ids = listedIds(yield* login(keys.demoTest))
      for (const [params, listed] of cases) assert.deepStrictEqual(yield* ids(params), listed ? [a.id] : [], JSON.stringify(params))
    })

  it.effect("4.3 most recent first, default limit 25, pages visit every intent exactly once (D6)", () =>
    Effect.gen(function*() {
      const made = yield* seedIntents(keys.demoTest, Array.from({ length: 30 }, () => hosted))
      const who = yield* login(keys.demoTest)
      const first = yield* PaymentIntents.list(who, {})
      assert.lengthOf(first.data, 25)
      assert.isTrue(first.has_more)
      assert.strictEqual(first.data[0]!.id, made[29].id)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* PaymentIntents.list(who, { limit: "7", ...(cursor ? { cursor } : {}) })
        seen.push(...page.data.map((d) => d.id))
        assert.strictEqual(page.next_cursor === null, !page.has_more)
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, made.map((m) => m.id).reverse())
    }).pipe(Effect.provide(layer())))

  it.effect("D6 keyset order is (created_at, id) descending: intents of one millisecond are paged once each", () =>
    Effect.gen(function*() {
      const made = yield* Effect.forEach(Array.from({ length: 10 }, () => hosted), (b) => Effect.map(create(keys.demoTest, b), json))
      const who = yield* login(keys.demoTest)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* PaymentIntents.list(who, { limit: "3", ...(cursor ? { cursor } : {}) })
        seen.push(...page.data.map((d) => d.id))
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, made.map((m) => m.id as string).sort().reverse())
    }).pipe(Effect.provide(layer())))

  it.effect("4.3 every filter narrows: country, currency, status, merchant_reference, created_after (inclusive), created_before (exclusive)", () =>
    Effect.gen(function*() {
      const [a, b, c] = yield* seedIntents(keys.demoTest, [
        { ...promptpay, merchant_reference: "ref-a" },
        { ...promptpay, amount: Simulator.magicAmounts.declineOnCreate, merchant_reference: "ref-b" },
        { ...hosted, merchant_reference: "ref-c" }
      ])
      const who = yield* login(keys.demoTest)
      const ids = listedIds(who)
      assert.deepStrictEqual(yield* ids({ status: "failed" }), [b.id])
      assert.deepStrictEqual(yield* ids({ status: "failed,requires_action" }), [c.id, b.id, a.id])
      assert.deepStrictEqual(yield* ids({ status: ["failed", "succeeded"] }), [b.id])
      assert.deepStrictEqual(yield* ids({ merchant_reference: "ref-a" }), [a.id])
      assert.deepStrictEqual(yield* ids({ country: "VN" }), [])
      assert.deepStrictEqual(yield* ids({ country: "TH", currency: "THB" }), [c.id, b.id, a.id])
      assert.deepStrictEqual(yield* ids({ currency: "USD" }), [])
      assert.deepStrictEqual(yield* ids({ created_after: b.created_at }), [c.id, b.id])
      assert.deepStrictEqual(yield* ids({ created_before: b.created_at }), [a.id])
      assert.deepStrictEqual(yield* ids({ created_after: "1970-01-01T07:00:00.001+07:00", created_before: c.created_at }), [b.id])
    }).pipe(Effect.provide(layer())))

  it.effect("4.3 created_after and created_before take any offset and compare instants", () =>
    listingTheIntentAtOne([
      [{ created_after: "1970-01-01T08:00:00+07:00" }, true],
      [{ created_after: "1970-01-01T08:00:00.001+07:00" }, false],
      [{ created_before: "1970-01-01T01:00:00.001+00:00" }, true],
      [{ created_before: "1969-12-31T20:00:00-05:00" }, false]
    ]).pipe(Effect.provide(layer())))

  it.effect("4.3 created_after (inclusive) and created_before (exclusive) hold at sub-millisecond precision", () =>
    // Created at .000: before .0000001 and not at or after .0005.
    listingTheIntentAtOne([
      [{ created_before: "1970-01-01T01:00:00.0000001Z" }, true],
      [{ created_before: "1970-01-01T01:00:00.000000Z" }, false],
      [{ created_after: "1970-01-01T00:59:59.9995Z" }, true],
      [{ created_after: "1970-01-01T01:00:00.0005Z" }, false],
      [{ created_after: "1970-01-01T01:00:00.000000000Z" }, true]
    ]).pipe(Effect.provide(layer())))

  it.effect("4.3 filters and cursor are independent: a cursor carries position only, filters are sent again", () =>
    Effect.gen(function*() {
      const declined = { ...promptpay, amount: Simulator.magicAmounts.declineOnCreate }
      const made = yield* seedIntents(keys.demoTest, Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? promptpay : declined)))
      const who = yield* login(keys.demoTest)
      const page1 = yield* PaymentIntents.list(who, { limit: "2", status: "failed" })
      assert.deepStrictEqual(page1.data.map((d) => d.id), [made[5].id, made[3].id])
      const withFilter = yield* PaymentIntents.list(who, { status: "failed", cursor: page1.next_cursor! })
      assert.deepStrictEqual(withFilter.data.map((d) => d.id), [made[1].id])
      const withoutFilter = yield* PaymentIntents.list(who, { cursor: page1.next_cursor! })
      assert.deepStrictEqual(withoutFilter.data.map((d) => d.id), [made[2].id, made[1].id, made[0].id])
    }).pipe(Effect.provide(layer())))

  it.effect("D6 a cursor never widens what a caller sees", () =>
    Effect.gen(function*() {
      yield* seedIntents(keys.demoTest, [hosted, hosted, hosted])
      yield* seedIntents(keys.otherTest, [hosted])
      const page = yield* PaymentIntents.list(yield* login(keys.demoTest), { limit: "1" })
      const theirs = yield* PaymentIntents.list(yield* login(keys.otherTest), { cursor: page.next_cursor! })
      for (const d of theirs.data) assert.strictEqual(d.environment, "test")
      assert.isTrue(theirs.data.every((d) => !page.data.some((p) => p.id === d.id)))
      const live = yield* PaymentIntents.list(yield* login(keys.demoLive), { cursor: page.next_cursor! })
      assert.lengthOf(live.data, 0)
      const other = yield* PaymentIntents.list(yield* login(keys.otherTest), {})
      assert.lengthOf(other.data, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("D6 a cursor never widens what a caller sees: another merchant's cursor pages only the caller's own intents", () =>
    Effect.gen(function*() {
      // The other merchant's intents are older than every one of demo's, so a cursor taken
      // from demo's first page lies after all of them in the keyset order.
      const o1 = yield* seedOne(keys.otherTest, hosted)
      const o2 = yield* seedOne(keys.otherTest, hosted)
      for (let i = 0; i < 3; i++) yield* seedOne(keys.demoTest, hosted)
      const demoPage = yield* PaymentIntents.list(yield* login(keys.demoTest), { limit: "1" })
      const cursor = demoPage.next_cursor!
      const theirs = yield* PaymentIntents.list(yield* login(keys.otherTest), { cursor })
      assert.deepStrictEqual(theirs.data.map((d) => d.id), [o2.id, o1.id])
      const live = yield* PaymentIntents.list(yield* login(keys.demoLive), { cursor })
      assert.deepStrictEqual(live.data, [])
    }).pipe(Effect.provide(layer())))

  it.effect("5.4 reads return only the key's merchant and environment", () =>
    Effect.gen(function*() {
      yield* create(keys.demoTest, hosted)
      yield* create(keys.demoTest, hosted)
      yield* create(keys.demoLive, hosted)
      yield* create(keys.otherTest, hosted)
      const seen = (key: Key) => Effect.map(listAll(key), (l) => l.data.map((d) => d.environment))
      assert.deepStrictEqual(yield* seen(keys.demoTest), ["test", "test"])
      assert.deepStrictEqual(yield* seen(keys.demoLive), ["live"])
      assert.deepStrictEqual(yield* seen(keys.otherTest), ["test"])
      assert.deepStrictEqual(yield* seen(keys.hostedOnly), [])
    }).pipe(Effect.provide(layer())))

  it.effect("D6 a cursor that does not decode -> 400 param cursor; unknown status -> 400 param status", () =>
    Effect.gen(function*() {
      const who = yield* login(keys.demoTest)
      for (const cursor of ["!!", "bm90LWpzb24", Buffer.from(JSON.stringify([1, "tuin_x"])).toString("base64url")]) {
        const e = yield* Effect.flip(PaymentIntents.list(who, { cursor }))
        assert.strictEqual(paramOf(e), "cursor", cursor)
      }
      const e = yield* Effect.flip(PaymentIntents.list(who, { status: "requires_action,done" }))
      assert.strictEqual(paramOf(e), "status")
    }).pipe(Effect.provide(layer())))
})
