/**
 * Contract cases for the retention purge (docs/retention.md): a purge deletes exactly what is
 * due (events, finished tasks and webhook attempts older than their cutoff, expired keys) and
 * nothing else, a bounded purge deletes at most its limit of each kind per call, and
 * `Maintenance.purge` repeats batches until nothing due is left.
 *
 * A purge sees every row of the store, so each case first purges with its own cutoffs (what
 * earlier cases left that is due goes then), and only then writes the rows it counts.
 */
import { assert } from "@effect/vitest"
import { Event, Ids, Maintenance, Storage, type Table, Task, WebhookDelivery } from "@tender/core"
import { Clock, Duration, Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { claim, commit, freshKey, freshScope, held, oddResponse, t0 } from "./fixtures.js"
import { event, newTask } from "./taskCases.js"

const { Write } = Storage
const day = 24 * 60 * 60 * 1000
const exists = (table: Table.Table<any>, id: string) => Effect.flatMap(Storage.Storage, (s) => s.find(table, id)).pipe(Effect.map(Option.isSome))

const attempt = (scope: ReturnType<typeof freshScope>, at: number) =>
  WebhookDelivery.AttemptRecord.make({
    id: `${WebhookDelivery.attemptIdPrefix}${Ids.randomBase62()}`,
    ...scope,
    endpointId: `we_${Ids.randomBase62()}`,
    eventId: `evt_${Ids.randomBase62()}`,
    attempt: 1,
    statusCode: 200,
    durationMillis: 12,
    error: null,
    createdAt: at,
    version: 1
  })

/** A task that finished (`done`, or `failed`) at `at`. */
const finished = (scope: ReturnType<typeof freshScope>, at: number, status: "done" | "failed" = "done") => ({
  ...newTask(scope, at - day, at - day),
  status,
  updatedAt: at,
  version: 2
})

/** Every retained table cut at `at`: each purged by its own `Table.retention`. */
const cutoffs = (at: number, tables: ReadonlyArray<Table.Table<any>> = [Event.table, Task.table, WebhookDelivery.attemptTable]): Storage.PurgeOptions => ({
  cutoffs: tables.map((table) => ({ table, before: at }))
})
const purgeAt = (now: number, options?: Storage.PurgeOptions) =>
  Effect.flatMap(Storage.Storage, (s) => s.purgeExpired(now, options)).pipe(Effect.map(Maintenance.byKind))

/** @internal */
export const retentionCases = (it: ContractIt) => {
  it.effect("retention: a purge deletes the records of each table given past its cutoff, as the table's retention says, and nothing else", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      // Far past every other case's rows; `now` 0 leaves keys and references alone.
      const cut = t0 + 20_000 * day + Math.floor(Math.random() * 1e6)
      yield* storage.purgeExpired(0, cutoffs(cut))
      const scope = freshScope()
      const oldEvent = event(scope, "dord_a", 1, 0, cut - 1)
      const youngEvent = event(scope, "dord_a", 2, 0, cut)
      const oldDone = finished(scope, cut - 1)
      const oldFailed = finished(scope, cut - 5 * day, "failed")
      const youngDone = finished(scope, cut)
      // Pending, and last written long before the cutoff: work still to do is never purged.
      const oldPending = newTask(scope, cut + 100_000 * day, cut - 10 * day)
      const oldAttempt = attempt(scope, cut - 1)
      const youngAttempt = attempt(scope, cut)
      yield* commit([
        ...[oldEvent, youngEvent].map((e) => Write.insert(Event.table, e)),
        ...[oldDone, oldFailed, youngDone, oldPending].map((t) => Write.insert(Task.table, t)),
        ...[oldAttempt, youngAttempt].map((a) => Write.insert(WebhookDelivery.attemptTable, a))
      ])
      // Without cutoffs nothing of these kinds goes.
      const none = yield* purgeAt(0, { limit: 100 })
      assert.deepStrictEqual([none.events, none.tasks, none.webhookAttempts], [0, 0, 0])
      assert.isTrue(yield* exists(Event.table, oldEvent.id))

      // A purge of the tasks alone reads the tasks' retention and touches no other table.
      assert.deepStrictEqual((yield* storage.purgeExpired(0, cutoffs(cut, [Task.table]))).records, { tasks: 2 })
      assert.isTrue(yield* exists(Event.table, oldEvent.id))
      const purged = yield* purgeAt(0, cutoffs(cut))
      assert.deepStrictEqual(purged, { idempotencyKeys: 0, referenceClaims: 0, events: 1, tasks: 0, webhookAttempts: 1 })
      const purgedRows = [[Event.table, oldEvent.id], [Task.table, oldDone.id], [Task.table, oldFailed.id], [
        WebhookDelivery.attemptTable,
        oldAttempt.id
      ]] as const
      const keptRows = [[Event.table, youngEvent.id], [Task.table, youngDone.id], [Task.table, oldPending.id], [
        WebhookDelivery.attemptTable,
        youngAttempt.id
      ]] as const
      for (const [rows, kept] of [[purgedRows, false], [keptRows, true]] as const) {
        for (const [table, id] of rows) assert.strictEqual(yield* exists(table, id), kept, `${id} is ${kept ? "kept" : "purged"}`)
      }
      // The kept rows still list as before.
      assert.deepStrictEqual((yield* storage.list(Event.table, { ...scope, limit: 10 })).map((e) => e.id), [youngEvent.id])
      assert.deepStrictEqual((yield* purgeAt(0, cutoffs(cut))).events, 0)
    }))

  it.effect("retention: a bounded purge deletes at most its limit of each kind per call, and repeated calls finish", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const cut = t0 + 30_000 * day + Math.floor(Math.random() * 1e6)
      // Keys expire 24 hours after their claim: these five are expired at `now`, the sixth is not.
      const now = cut
      yield* storage.purgeExpired(now, cutoffs(cut))
      const scope = freshScope()
      const events = Array.from({ length: 7 }, (_, i) => event(scope, `dord_${i}`, 1, 0, cut - 1 - i))
      const young = event(scope, "dord_young", 1, 0, cut + 1)
      yield* commit([...events, young].map((e) => Write.insert(Event.table, e)))
      const keys = Array.from({ length: 5 }, () => freshKey())
      const claimedAt = now - 24 * 60 * 60 * 1000
      for (const k of keys) {
        yield* storage.begin({ now: claimedAt, idempotency: claim(k, claimedAt) })
        yield* commit([Write.completeIdempotency(held(k, claimedAt), oddResponse())])
      }
      const live = freshKey()
      yield* storage.begin({ now: claimedAt + 1, idempotency: claim(live, claimedAt + 1) })
      yield* commit([Write.completeIdempotency(held(live, claimedAt + 1), oddResponse())])

      const runs: Array<[number, number]> = []
      for (let i = 0; i < 10; i++) {
        const r = yield* purgeAt(now, { ...cutoffs(cut), limit: 3 })
        runs.push([r.events, r.idempotencyKeys])
        if (r.events === 0 && r.idempotencyKeys === 0) break
      }
      assert.deepStrictEqual(runs, [[3, 3], [3, 2], [1, 0], [0, 0]])
      assert.isTrue(yield* exists(Event.table, young.id))
      assert.strictEqual((yield* storage.begin({ now, idempotency: claim(live, claimedAt + 1) }))._tag, "Replay")
      assert.strictEqual((yield* storage.begin({ now, idempotency: claim(keys[0]!, now, "f".repeat(64)) }))._tag, "Proceed")
    }))

  it.effect("retention: Maintenance.purge repeats batches until nothing due is left, keeping what is younger than the retention", () =>
    Effect.gen(function*() {
      // On the live clock: rows are placed around the default 30 days of events before now.
      const options = { batchSize: 2, pause: Duration.zero, finishedTasks: Duration.infinity, webhookAttempts: Duration.infinity }
      yield* Maintenance.purge(options)
      const now = yield* Clock.currentTimeMillis
      const scope = freshScope()
      const old = Array.from({ length: 5 }, (_, i) => event(scope, `dord_${i}`, 1, 0, now - 31 * day - i))
      const young = event(scope, "dord_young", 1, 0, now - 29 * day)
      yield* commit([...old, young].map((e) => Write.insert(Event.table, e)))
      const purged = yield* Maintenance.purge(options)
      assert.strictEqual(purged.events, 5)
      assert.deepStrictEqual((yield* Effect.flatMap(Storage.Storage, (s) => s.list(Event.table, { ...scope, limit: 10 }))).map((e) => e.id), [young.id])
    }))
}
