/**
 * Interleavings of `begin` that only a database with row locks can produce, made
 * deterministic: a transaction of the test's own stands for another request at one
 * moment (it holds a claim's row, then releases it), and the test waits until the
 * adapter's statements are queued behind it before letting it go.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { layer } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Storage } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, runSql } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const t0 = Date.UTC(2026, 10, 22)
const random = () => randomUUID().replaceAll("-", "").slice(0, 24)
const freshKey = () => ({ apiKeyId: `key_${random()}`, key: randomUUID() })
const claim = (key: Storage.IdempotencyKeyId, now: number): Storage.IdempotencyClaim => ({
  ...key,
  fingerprint: "a".repeat(64),
  expiresAt: now + 24 * 60 * 60 * 1000,
  lockedUntil: now + 60_000
})
const scope = () => ({ merchantId: `mch_${random()}`, environment: "test" as const })
const referenceClaim = (s: ReturnType<typeof scope>, reference: string, now: number): Storage.ReferenceClaim => ({
  ...s,
  resourceType: "payment_intent",
  reference,
  fingerprint: "b".repeat(64),
  resourceId: `dord_${random()}`,
  lockedUntil: now + 60_000
})
const begin = (request: Storage.BeginRequest) => Effect.flatMap(Storage.Storage, (s) => s.begin(request))

describeOnPostgres("PgStorage races", () => {
  const prefix = freshPrefix()
  afterAll(() => runSql(dropTables(prefix)))
  const keys = `${prefix}idempotency_keys`
  const refs = `${prefix}merchant_references`

  /** Backends of this database waiting for a row lock on `table`, oldest first. */
  const lockWaiters = (table: string) =>
    Effect.flatMap(SqlClient, (sql) =>
      sql<{ readonly pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
          AND position(${table} IN query) > 0 ORDER BY query_start`).pipe(Effect.map((rows) => rows.map((r) => r.pid)))

  /** Poll until `n` statements wait behind a lock on `table`. */
  const untilWaiting = (table: string, n: number): Effect.Effect<ReadonlyArray<number>, unknown, SqlClient> =>
    Effect.flatMap(lockWaiters(table), (pids) => pids.length >= n ? Effect.succeed(pids) : Effect.zipRight(Effect.sleep("10 millis"), untilWaiting(table, n)))

  /**
   * Another request's transaction: locks the rows `where` selects in `table`, signals, then
   * (once `go` is completed) runs `then` and commits.
   */
  const holder = (table: string, where: string, params: ReadonlyArray<string>, then: "delete" | "nothing") =>
    Effect.gen(function*() {
      const sql = yield* SqlClient
      const locked = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe(`SELECT 1 FROM ${table} WHERE ${where} FOR UPDATE`, params)
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(go)
        if (then === "delete") yield* sql.unsafe(`DELETE FROM ${table} WHERE ${where}`, params)
      })))
      yield* Deferred.await(locked)
      return { release: Effect.zipRight(Deferred.succeed(go, undefined), Fiber.join(fiber)) }
    })

  /**
   * Two begins of `request()` queued behind `first`'s lock on `table`, then `first` let go: the
   * outcomes of the two, sorted. Exactly one may win what `first` gave back.
   */
  const twoQueuedBehind = (first: { readonly release: Effect.Effect<unknown, unknown> }, table: string, request: () => Storage.BeginRequest) =>
    Effect.gen(function*() {
      const both = yield* Effect.fork(Effect.all([begin(request()), begin(request())], { concurrency: "unbounded" }))
      yield* untilWaiting(table, 2)
      yield* first.release
      return (yield* Fiber.join(both)).map((o) => o._tag).sort()
    })

  // Live services: the polling sleeps on the real clock.
  layer(PgStorage.layer({ tablePrefix: prefix }).pipe(Layer.provideMerge(client)), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("4.9.6 a key released while two retries wait to judge it is claimed by exactly one of them", () =>
      Effect.gen(function*() {
        const key = freshKey()
        assert.strictEqual((yield* begin({ now: t0, idempotency: claim(key, t0) }))._tag, "Proceed")
        // The first request fails with a 5xx and releases its key (4.9.7) just as two retries, having
        // seen it in flight, queue to judge it under a lock.
        const first = yield* holder(keys, "api_key_id = $1 AND key = $2", [key.apiKeyId, key.key], "delete")
        const outcomes = yield* twoQueuedBehind(first, keys, () => ({ now: t0 + 1, idempotency: claim(key, t0 + 1) }))
        assert.deepStrictEqual(outcomes, ["KeyInFlight", "Proceed"])
      }))

    it.effect("4.9 merchant_reference 1: a reference released while two creates wait to judge it is claimed by exactly one of them", () =>
      Effect.gen(function*() {
        const s = scope()
        assert.strictEqual((yield* begin({ now: t0, reference: referenceClaim(s, "order-1", t0) }))._tag, "Proceed")
        const first = yield* holder(
          refs,
          "merchant_id = $1 AND environment = $2 AND resource_type = 'payment_intent' AND reference = $3",
          [s.merchantId, s.environment, "order-1"],
          "delete"
        )
        // Two different creates (each its own key) with the same merchant_reference.
        const outcomes = yield* twoQueuedBehind(first, refs, () => ({
          now: t0 + 1,
          idempotency: claim(freshKey(), t0 + 1),
          reference: referenceClaim(s, "order-1", t0 + 1)
        }))
        assert.deepStrictEqual(outcomes, ["Proceed", "ReferenceTaken"])
      }))

    it.effect("4.9.7 a begin that fails after claiming a fresh key gives the key back, so the retry reaches a fresh handler", () =>
      Effect.gen(function*() {
        const s = scope()
        const held = referenceClaim(s, "order-2", t0)
        assert.strictEqual((yield* begin({ now: t0, reference: held }))._tag, "Proceed")
        const other = yield* holder(
          refs,
          "merchant_id = $1 AND environment = $2 AND resource_type = 'payment_intent' AND reference = $3",
          [s.merchantId, s.environment, "order-2"],
          "nothing"
        )
        // The fresh key is claimed; judging the taken reference then fails (here: cancelled; in
        // production a lock or statement timeout, a deadlock victim, a dropped connection): a 5xx.
        const key = freshKey()
        const failing = yield* Effect.fork(Effect.either(
          begin({ now: t0 + 1, idempotency: claim(key, t0 + 1), reference: referenceClaim(s, "order-2", t0 + 1) })
        ))
        const [pid] = yield* untilWaiting(refs, 1)
        const sql = yield* SqlClient
        yield* sql`SELECT pg_cancel_backend(${pid!})`
        const failed = yield* Fiber.join(failing)
        // Given back before the failure is answered, not after: a client retrying at once finds it gone.
        const left = yield* sql.unsafe(`SELECT 1 FROM ${keys} WHERE api_key_id = $1 AND key = $2`, [key.apiKeyId, key.key])
        yield* other.release
        assert.isTrue(Either.isLeft(failed))
        assert.strictEqual(left.length, 0, "the fresh key is released before the begin answers")
        // 4.9.7: the retry is judged afresh (the reference is still held), not refused as in flight.
        const retry = yield* begin({ now: t0 + 2, idempotency: claim(key, t0 + 2), reference: referenceClaim(s, "order-2", t0 + 2) })
        assert.deepStrictEqual(retry, { _tag: "ReferenceTaken", resourceId: held.resourceId, sameFingerprint: true, inFlight: true })
      }))

    it.effect("4.9.6 a request refused on its key never claims its merchant_reference, not even for a moment", () =>
      Effect.gen(function*() {
        const s = scope()
        const key = freshKey()
        assert.strictEqual((yield* begin({ now: t0, idempotency: claim(key, t0) }))._tag, "Proceed")
        // The first request is completing its key just as its retry (with a merchant_reference) reads it in flight.
        const first = yield* holder(keys, "api_key_id = $1 AND key = $2", [key.apiKeyId, key.key], "nothing")
        const retry = yield* Effect.fork(
          begin({ now: t0 + 1, idempotency: claim(key, t0 + 1), reference: referenceClaim(s, "order-3", t0 + 1) })
        )
        yield* untilWaiting(keys, 1)
        // Meanwhile a different create with that merchant_reference: nothing holds it.
        const other = yield* begin({ now: t0 + 1, idempotency: claim(freshKey(), t0 + 1), reference: referenceClaim(s, "order-3", t0 + 1) })
        yield* first.release
        yield* Fiber.join(retry)
        assert.strictEqual(other._tag, "Proceed")
      }))
  })
})
