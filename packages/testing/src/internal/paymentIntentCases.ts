/**
 * Contract cases for payment intent rows: round trips, not-found, duplicate ids,
 * versioned updates, every list filter, isolation and keyset pagination.
 */
import { assert } from "@effect/vitest"
import type { PaymentIntent } from "@tender/core"
import { PaymentIntent as PI, Storage } from "@tender/core"
import { Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { expectedPage, freshScope, ids, intent, t0 } from "./fixtures.js"

type Record = PaymentIntent.PaymentIntentRecord
/** A list query of 4.3 with its filters named as the HTTP query names them. */
interface Query extends Omit<Storage.ListQuery<Record>, "where"> {
  readonly country?: string
  readonly currency?: string
  readonly merchantReference?: string
  readonly statuses?: ReadonlyArray<PaymentIntent.Status>
}

const insert = (record: Record) => Effect.flatMap(Storage.Storage, (s) => s.commit([Storage.Write.insert(PI.table, record)]))
const insertAll = (records: ReadonlyArray<Record>) => Effect.forEach(records, insert, { discard: true })
const get = (record: { readonly merchantId: string; readonly environment: "test" | "live"; readonly id: string }) =>
  Effect.flatMap(Storage.Storage, (s) => s.get(PI.table, record, record.id))
const list = ({ country, currency, merchantReference, statuses, ...query }: Query) =>
  Effect.flatMap(Storage.Storage, (s) => s.list(PI.table, { ...query, where: { country, currency, merchantReference, status: statuses } }))

/** What a list must return, computed from the rows by the rules of 4.3 and D6. */
const expected = (rows: ReadonlyArray<Record>, q: Query) =>
  expectedPage(rows, q, (r) =>
    (q.country === undefined || r.country === q.country) &&
    (q.currency === undefined || r.currency === q.currency) &&
    (q.merchantReference === undefined || r.merchantReference === q.merchantReference) &&
    (q.statuses === undefined || q.statuses.includes(r.status)))

/** A record that uses every field, at the edges of what the API accepts. */
const everyField = (scope: ReturnType<typeof freshScope>): Record =>
  intent(scope, {
    amount: "999999999999999999",
    currency: "USDT",
    country: "TH",
    status: "requires_action",
    merchantReference: "order-ทดสอบ-" + "x".repeat(200),
    paymentMethod: "th_bank_transfer",
    nextAction: {
      type: "display_bank_transfer_instructions",
      bank_code: "KBANK",
      bank_name: "Kasikornbank",
      account_number: "0123456789",
      account_name: "Tender Demo Co., Ltd.",
      reference: "REF 0001",
      amount: "999999999999999999",
      currency: "USDT",
      expires_at: "2026-11-22T08:15:30.123Z",
      requires_receipt: true
    },
    processingReason: "asynchronous",
    receipt: { status: "required" },
    customer: { name: "Somchai \"Som\" Jaidee", email: "somchai@example.com", phone: "+66812345678", reference: "cus-1" },
    paymentMethodOptions: { bank: "KBANK", account_name: "Somchai Jaidee", account_number: "0123456789", name_th: "สมชาย ใจดี" },
    returnUrl: "https://shop.example.com/return?order=1&x=%20y",
    deviceFingerprint: "fp\u0000-less but with ünïcode and \\ backslashes".replace("\u0000", ""),
    metadata: { order: "1", note: "ชำระเงิน", empty: "" },
    externalReference: "ext-42",
    providerCode: "simulator",
    providerPaymentId: "sim_pay_1",
    hostedAction: { type: "display_qr_code", qr_data: "000201010212", expires_at: "2026-11-22T08:15:30.123Z" },
    fingerprint: "0123456789abcdef".repeat(4),
    createdAt: t0 + 123,
    updatedAt: t0 + 98_765,
    version: 7
  })

/** @internal */
export const cases = (it: ContractIt) => {
  it.effect("storage: a payment intent round-trips every field, 18-digit amounts and ms timestamps included", () =>
    Effect.gen(function*() {
      const scope = freshScope("live")
      const record = everyField(scope)
      yield* insert(record)
      const read = yield* get(record)
      assert.isTrue(Option.isSome(read))
      const row = Option.getOrThrow(read)
      assert.deepStrictEqual(row, record)
      // The wire form is byte for byte the same: nested objects keep their key order.
      assert.strictEqual(JSON.stringify(PI.toResource(row)), JSON.stringify(PI.toResource(record)))
      assert.strictEqual(JSON.stringify(row.customer), JSON.stringify(record.customer))
    }))

  it.effect("storage: nulls stay null and absent optional fields stay absent", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const record = intent(scope, {
        status: "processing",
        nextAction: null,
        paymentMethod: null,
        providerCode: null,
        processingReason: "asynchronous",
        customer: { email: "a@example.com" }
      })
      yield* insert(record)
      const row = Option.getOrThrow(yield* get(record))
      assert.deepStrictEqual(row, record)
      assert.isNull(row.nextAction)
      assert.isNull(row.merchantReference)
      assert.isNull(row.metadata)
      assert.deepStrictEqual(Object.keys(row.customer), ["email"])
      const qr = intent(scope, { nextAction: { type: "display_qr_code", qr_image_url: "https://qr.example/x.png" } })
      yield* insert(qr)
      const qrRow = Option.getOrThrow(yield* get(qr))
      assert.deepStrictEqual(qrRow.nextAction, { type: "display_qr_code", qr_image_url: "https://qr.example/x.png" })
      assert.notProperty(qrRow.nextAction, "qr_data")
    }))

  it.effect("4.2 an unknown id, another merchant's and another environment's are all not found", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const record = intent(scope)
      yield* insert(record)
      assert.isTrue(Option.isNone(yield* get({ ...scope, id: record.id.slice(0, -1) + (record.id.endsWith("A") ? "B" : "A") })))
      assert.isTrue(Option.isNone(yield* get({ ...freshScope(), id: record.id })))
      assert.isTrue(Option.isNone(yield* get({ ...scope, environment: "live", id: record.id })))
      assert.isTrue(Option.isSome(yield* get(record)))
    }))

  it.effect("storage: a duplicate id is a UniqueViolation and the commit writes nothing", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const first = intent(freshScope())
      yield* insert(first)
      // The same id under another merchant: ids are unique across the whole store.
      const again = intent(freshScope(), { id: first.id, amount: "1" })
      const key = { apiKeyId: `key_${again.merchantId}`, key: "k" }
      assert.strictEqual(
        (yield* storage.begin({ now: t0, idempotency: { ...key, fingerprint: "f", expiresAt: t0 + 1000, lockedUntil: t0 + 500 } }))._tag,
        "Proceed"
      )
      const error = yield* Effect.flip(storage.commit([
        Storage.Write.insert(PI.table, again),
        Storage.Write.completeIdempotency({ ...key, lockedUntil: t0 + 500 }, { status: 201, body: "{}", requestId: "req_x" })
      ]))
      assert.strictEqual(error._tag, "UniqueViolation")
      assert.deepStrictEqual(Option.getOrThrow(yield* get(first)), first)
      // All or nothing: the stored response was not written either, the key is still in flight.
      const retry = yield* storage.begin({ now: t0 + 1, idempotency: { ...key, fingerprint: "f", expiresAt: t0 + 1000, lockedUntil: t0 + 500 } })
      assert.strictEqual(retry._tag, "KeyInFlight")
    }))

  it.effect("4.9 merchant_reference 1: the store refuses a second payment intent with one reference in one scope", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const first = intent(scope, { merchantReference: "order-1" })
      yield* insert(first)
      const error = yield* Effect.flip(insert(intent(scope, { merchantReference: "order-1" })))
      assert.strictEqual(error._tag, "UniqueViolation")
      // The same reference in another environment or merchant, and intents without one, are fine.
      yield* insert(intent({ ...scope, environment: "live" }, { merchantReference: "order-1" }))
      yield* insert(intent(freshScope(), { merchantReference: "order-1" }))
      yield* insertAll([intent(scope), intent(scope)])
      assert.deepStrictEqual(ids(yield* list({ ...scope, limit: 10, merchantReference: "order-1" })), [first.id])
    }))

  it.effect("storage: an update applies only over the expected version; a stale one is StaleVersion and changes nothing", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const record = intent(freshScope())
      yield* insert(record)
      const succeeded: Record = {
        ...record,
        status: "succeeded",
        nextAction: null,
        updatedAt: record.updatedAt + 5000,
        version: 2
      }
      yield* storage.commit([Storage.Write.update(PI.table, succeeded, 1)])
      assert.deepStrictEqual(Option.getOrThrow(yield* get(record)), succeeded)
      const stale = yield* Effect.flip(storage.commit([
        Storage.Write.update(PI.table, { ...record, status: "failed", failureCode: "x", failureMessage: "x", nextAction: null, version: 2 }, 1)
      ]))
      assert.strictEqual(stale._tag, "StaleVersion")
      const missing = yield* Effect.flip(storage.commit([Storage.Write.update(PI.table, intent(freshScope()), 1)]))
      assert.strictEqual(missing._tag, "StaleVersion")
      // All or nothing, whichever part fails: an insert beside a stale update is not written.
      const beside = intent(freshScope())
      const key = { apiKeyId: `key_${beside.merchantId}`, key: "k" }
      yield* storage.begin({ now: t0, idempotency: { ...key, fingerprint: "f", expiresAt: t0 + 1000, lockedUntil: t0 + 500 } })
      const partial = yield* Effect.flip(storage.commit([
        Storage.Write.insert(PI.table, beside),
        Storage.Write.update(PI.table, { ...succeeded, version: 9 }, 1),
        Storage.Write.releaseIdempotency({ ...key, lockedUntil: t0 + 500 })
      ]))
      assert.strictEqual(partial._tag, "StaleVersion")
      assert.isTrue(Option.isNone(yield* get(beside)))
      assert.strictEqual(
        (yield* storage.begin({ now: t0 + 1, idempotency: { ...key, fingerprint: "f", expiresAt: t0 + 1000, lockedUntil: t0 + 500 } }))._tag,
        "KeyInFlight"
      )
      assert.deepStrictEqual(Option.getOrThrow(yield* get(record)), succeeded)
      // The list sees the update too.
      assert.deepStrictEqual(yield* list({ merchantId: record.merchantId, environment: record.environment, limit: 10 }), [succeeded])
    }))

  it.effect("D6 lists are newest first by (created_at, id), ties broken by id descending", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const rows = Array.from({ length: 12 }, (_, i) => intent(scope, { createdAt: t0 + Math.floor(i / 4) * 1000 }))
      yield* insertAll(rows)
      const query = { ...scope, limit: 100 }
      assert.deepStrictEqual(ids(yield* list(query)), ids(expected(rows, query)))
      assert.deepStrictEqual(ids(yield* list({ ...query, limit: 5 })), ids(expected(rows, query)).slice(0, 5))
    }))

  it.effect("4.3 every filter, alone and combined, returns exactly the matching rows", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const statuses = PI.statuses
      const rows = Array.from({ length: 40 }, (_, i) => {
        const status = statuses[i % statuses.length]!
        return intent(scope, {
          createdAt: t0 + i * 1000,
          updatedAt: t0 + i * 1000,
          country: i % 3 === 0 ? "VN" : "TH",
          currency: i % 4 === 0 ? "USD" : "THB",
          merchantReference: i % 10 === 3 ? `order-${i}` : null,
          status,
          nextAction: status === "requires_action" ? { type: "display_qr_code", qr_data: "x" } : null,
          failureCode: status === "failed" ? "declined" : null,
          failureMessage: status === "failed" ? "Declined by the simulator" : null
        })
      })
      yield* insertAll(rows)
      const queries: Array<Query> = [
        { ...scope, limit: 100 },
        { ...scope, limit: 100, country: "VN" },
        { ...scope, limit: 100, currency: "USD" },
        { ...scope, limit: 100, currency: "EUR" },
        { ...scope, limit: 100, statuses: ["failed"] },
        { ...scope, limit: 100, statuses: ["requires_action", "succeeded", "expired"] },
        { ...scope, limit: 100, merchantReference: "order-13" },
        { ...scope, limit: 100, merchantReference: "order-missing" },
        // Inclusive lower bound and exclusive upper bound, exactly at rows' created_at.
        { ...scope, limit: 100, createdAfter: t0 + 10_000 },
        { ...scope, limit: 100, createdBefore: t0 + 10_000 },
        { ...scope, limit: 100, createdAfter: t0 + 10_000, createdBefore: t0 + 20_000 },
        { ...scope, limit: 100, createdAfter: t0 + 10_500, createdBefore: t0 + 10_500 },
        { ...scope, limit: 3, country: "TH", currency: "THB", statuses: ["processing", "failed"], createdAfter: t0 + 5000 },
        { ...scope, limit: 4, statuses: ["succeeded"], after: { createdAt: rows[30]!.createdAt, id: rows[30]!.id } },
        { ...scope, limit: 100, country: "TH", currency: "USD", statuses: ["expired", "processing"], createdBefore: t0 + 35_000 }
      ]
      for (const q of queries) {
        const got = yield* list(q)
        assert.deepStrictEqual(ids(got), ids(expected(rows, q)), JSON.stringify({ ...q, merchantId: undefined }))
      }
      // The matching rows come back whole.
      assert.deepStrictEqual(yield* list({ ...scope, limit: 1, merchantReference: "order-23" }), [rows[23]!])
    }))

  it.effect("4.3 a list sees only its merchant and environment, whatever the filters", () =>
    Effect.gen(function*() {
      const mine = freshScope()
      const other = freshScope()
      const live = { ...mine, environment: "live" as const }
      const all = [mine, other, live].flatMap((scope) =>
        Array.from({ length: 5 }, (_, i) => intent(scope, { createdAt: t0 + i, merchantReference: i === 0 ? "shared" : null }))
      )
      yield* insertAll(all)
      for (const scope of [mine, other, live]) {
        for (const [q, n] of [[{ ...scope, limit: 100 }, 5], [{ ...scope, limit: 100, merchantReference: "shared" }, 1]] as const) {
          const got = yield* list(q)
          assert.strictEqual(got.length, n)
          assert.isTrue(got.every((r) => r.merchantId === scope.merchantId && r.environment === scope.environment))
        }
      }
      // A position taken from another merchant's row widens nothing (D6).
      const theirs = all[7]!
      const got = yield* list({ ...mine, limit: 100, after: { createdAt: theirs.createdAt + 1, id: theirs.id } })
      assert.isTrue(got.every((r) => r.merchantId === mine.merchantId))
    }))

  it.effect("D6 keyset pages visit every row exactly once while rows are inserted concurrently", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      // Ties on created_at, so the id half of the position matters.
      const original = Array.from({ length: 45 }, (_, i) => intent(scope, { createdAt: t0 + 100_000 + Math.floor(i / 3) * 10 }))
      yield* insertAll(original)
      const seen: Array<string> = []
      const olderInserted: Array<Record> = []
      let after: Query["after"] = undefined
      for (let page = 0; page < 100; page++) {
        // Each page is read while newer rows (ahead of the cursor) and older rows (behind it) go in.
        const newer = Array.from({ length: 2 }, (_, k) => intent(scope, { createdAt: t0 + 900_000 + page * 10 + k }))
        // Older rows go in only while the pager is still among the original rows, so it must reach them.
        const older = page < 3 ? [intent(scope, { createdAt: t0 + 50_000 - page })] : []
        olderInserted.push(...older)
        const query: Query = { ...scope, limit: 7, after }
        const read: readonly [ReadonlyArray<Record>, void] = yield* Effect.all([list(query), insertAll([...newer, ...older])], { concurrency: "unbounded" })
        const rows = read[0]
        seen.push(...ids(rows))
        const last: Record | undefined = rows[rows.length - 1]
        if (rows.length < 7 || last === undefined) break
        after = { createdAt: last.createdAt, id: last.id }
      }
      assert.strictEqual(new Set(seen).size, seen.length, "no row is visited twice")
      for (const r of original) assert.include(seen, r.id)
      // Rows inserted behind the cursor are reached later; rows ahead of it never are.
      for (const r of olderInserted) assert.include(seen, r.id)
      assert.isTrue(seen.every((id) => original.some((r) => r.id === id) || olderInserted.some((r) => r.id === id)))
    }))
}
