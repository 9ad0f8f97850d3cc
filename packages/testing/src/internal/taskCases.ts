/**
 * Contract cases for durable tasks (the transactional outbox) and events (D7): claims under
 * a lease, lapse and re-claim after a crash, versioned completion, reschedule, concurrent
 * claimers, and events stored once per change in the order written.
 *
 * Claims see every due task of the store, so each case works in a time window of its own,
 * later than every earlier case's, and first completes whatever an earlier case left due.
 */
import { assert } from "@effect/vitest"
import { Asset, Event, Ids, Storage, Task, WebhookDelivery, WebhookEndpoint } from "@tender/core"
import { Effect, Fiber, Option, Queue, Stream } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, freshScope, t0 } from "./fixtures.js"

const { Write } = Storage
const day = 24 * 60 * 60 * 1000
let window = 0

/** A time window no earlier case used, with everything due before it completed. @internal */
export const freshWindow = Effect.gen(function*() {
  const start = t0 + 1000 * day + (window++) * 10 * day
  const tasks = yield* Task.Tasks
  const storage = yield* Storage.Storage
  const left = yield* tasks.claim({ now: start, owner: "sweeper", leaseMillis: 1, limit: 100_000 })
  yield* Effect.forEach(left, (t) => storage.commit([Write.update(Task.table, Task.completed(t, start), t.version)]), { discard: true })
  return start
})

export const newTask = (scope: ReturnType<typeof freshScope>, dueAt: number, now = dueAt) =>
  Task.TaskRecord.make({
    id: `${Task.idPrefix}${Ids.randomBase62()}`,
    ...scope,
    kind: "payment_intent.expire",
    resourceId: `dord_${Ids.randomBase62()}`,
    status: "pending",
    dueAt,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    version: 1
  })

const claim = (now: number, owner: string, limit = 100, leaseMillis = 60_000) =>
  Effect.flatMap(Task.Tasks, (tasks) => tasks.claim({ now, owner, leaseMillis, limit }))
const read = (task: Task.TaskRecord) => Effect.flatMap(Storage.Storage, (s) => s.get(Task.table, task, task.id)).pipe(Effect.map(Option.getOrThrow))

export const event = (scope: ReturnType<typeof freshScope>, resourceId: string, resourceVersion: number, ordinal: number, at: number) =>
  Event.EventRecord.make({
    id: `evt_${Ids.randomBase62()}`,
    ...scope,
    type: resourceVersion === 1 && ordinal === 0 ? "payment_intent.created" : "payment_intent.succeeded",
    resourceType: "payment_intent",
    resourceId,
    resourceVersion,
    ordinal,
    data: { object: "payment_intent", id: resourceId, nested: { b: 1, a: [1, "x"] } },
    createdAt: at,
    version: 1
  })

/** @internal */
export const taskCases = (it: ContractIt, concurrency: number) => {
  it.effect("tasks: a task written in a commit is claimed once due, never before, with a lease, one more attempt and a new version", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const task = newTask(freshScope(), start + 1000, start)
      yield* commit([Write.insert(Task.table, task)])
      assert.deepStrictEqual(yield* claim(start + 999, "a"), [])
      const [claimed, ...rest] = yield* claim(start + 1000, "a", 100, 30_000)
      assert.lengthOf(rest, 0)
      assert.deepStrictEqual(claimed, { ...task, leaseOwner: "a", leaseUntil: start + 31_000, attempts: 1, updatedAt: start + 1000, version: 2 })
      assert.deepStrictEqual(yield* read(task), claimed)
    }))

  it.effect("tasks: a claimed task is not claimed again while its lease holds; when the lease lapses (its worker died) it is", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const task = newTask(freshScope(), start)
      yield* commit([Write.insert(Task.table, task)])
      yield* claim(start, "crashed", 100, 30_000)
      assert.deepStrictEqual(yield* claim(start + 29_999, "b"), [])
      assert.strictEqual(yield* Effect.flatMap(Task.Tasks, (t) => t.nextDue), start + 30_000)
      const [again] = yield* claim(start + 30_000, "b")
      assert.strictEqual(again?.id, task.id)
      assert.strictEqual(again?.attempts, 2)
      assert.strictEqual(again?.leaseOwner, "b")
    }))

  it.effect("tasks: completion is a versioned write over the claim: a worker that outlived its lease writes nothing, its effect included", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const task = newTask(scope, start)
      yield* commit([Write.insert(Task.table, task)])
      const [byA] = yield* claim(start, "a", 100, 1000)
      const [byB] = yield* claim(start + 1000, "b", 100, 1000)
      assert.isDefined(byA)
      assert.isDefined(byB)
      const effectOfA = event(scope, task.resourceId, 2, 0, start + 1001)
      const lost = yield* Effect.flip(
        commit([Write.insert(Event.table, effectOfA), Write.update(Task.table, Task.completed(byA!, start + 1001), byA!.version)])
      )
      assert.strictEqual(lost._tag, "StaleVersion")
      assert.deepStrictEqual(yield* Event.forResource(scope, task.resourceId), [])
      // B's run stands, once.
      const effectOfB = event(scope, task.resourceId, 2, 0, start + 1002)
      yield* commit([Write.insert(Event.table, effectOfB), Write.update(Task.table, Task.completed(byB!, start + 1002), byB!.version)])
      assert.deepStrictEqual(yield* Event.forResource(scope, task.resourceId), [effectOfB])
      assert.strictEqual((yield* read(task)).status, "done")
      const twice = yield* Effect.flip(commit([Write.update(Task.table, Task.completed(byB!, start + 1003), byB!.version)]))
      assert.strictEqual(twice._tag, "StaleVersion")
      // A done task is never claimed again.
      assert.deepStrictEqual(yield* claim(start + 100 * day, "c"), [])
    }))

  it.effect("tasks: a rescheduled task frees its lease and falls due again at its new time", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const task = newTask(freshScope(), start)
      yield* commit([Write.insert(Task.table, task)])
      const [claimed] = yield* claim(start, "a")
      yield* commit([Write.update(Task.table, Task.rescheduled(claimed!, start + 10, start + 5000, "provider unavailable"), claimed!.version)])
      const stored = yield* read(task)
      assert.strictEqual(stored.leaseUntil, null)
      assert.strictEqual(stored.lastError, "provider unavailable")
      assert.strictEqual(yield* Effect.flatMap(Task.Tasks, (t) => t.nextDue), start + 5000)
      assert.deepStrictEqual(yield* claim(start + 4999, "b"), [])
      const [again] = yield* claim(start + 5000, "b")
      assert.strictEqual(again?.attempts, 2)
    }))

  it.effect(
    "tasks: a commit that leaves work for idle workers wakes them through the store (a task due now, a timer due within the wake horizon, an existing task made due now), whoever wrote it; a timer due later wakes nobody",
    () =>
      Effect.gen(function*() {
        const start = yield* freshWindow
        const scope = freshScope()
        const woken = yield* Queue.unbounded<void>()
        const listening = yield* Effect.fork(Stream.runForEach((yield* Task.Tasks).wakeups, () => Queue.offer(woken, undefined)))
        // A store's listener starts asynchronously (a LISTEN, a change stream): write tasks due now until one wakes it.
        yield* commit([Write.insert(Task.table, newTask(scope, start, start))])
        for (let i = 0; i < 100 && (yield* Queue.size(woken)) === 0; i++) {
          yield* Effect.sleep("50 millis")
          if (i % 10 === 9) yield* commit([Write.insert(Task.table, newTask(scope, start, start))])
        }
        assert.isAbove(yield* Queue.size(woken), 0, "a task inserted due now woke nobody")
        // Wake-ups of the warm-up that are still on their way, then none left.
        yield* Effect.sleep("200 millis")
        yield* Queue.takeAll(woken)
        const wakes = (what: string) =>
          Queue.take(woken).pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`${what} woke nobody`) }),
            Effect.orDie
          )
        // A timer due past the horizon, then one within it: the first wake-up is the second's, and it is the only one.
        const timer = newTask(scope, start + day, start + 1)
        yield* commit([Write.insert(Task.table, timer)])
        yield* commit([Write.insert(Task.table, newTask(scope, start + 1 + Task.wakeHorizonMillis, start + 1))])
        yield* wakes("a timer due within the wake horizon")
        yield* Effect.sleep("200 millis")
        assert.strictEqual(yield* Queue.size(woken), 0, "a timer due past the wake horizon woke the workers")
        yield* commit([Write.insert(Task.table, newTask(scope, start + 2, start + 2))])
        yield* wakes("a task inserted due now")
        const dueNow: Task.TaskRecord = { ...timer, dueAt: start + 3, updatedAt: start + 3, version: timer.version + 1 }
        yield* commit([Write.update(Task.table, dueNow, timer.version)])
        yield* wakes("a timer brought forward to now")
        yield* Fiber.interrupt(listening)
      }),
    30_000
  )

  it.effect("tasks: the next due time is the first moment a pending task can be claimed: an unleased task's due time or a lease's end, whichever is first", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const nextDue = Effect.flatMap(Task.Tasks, (t) => t.nextDue)
      const held = newTask(scope, start)
      yield* commit([Write.insert(Task.table, held), Write.insert(Task.table, newTask(scope, start + 10_000, start))])
      yield* claim(start, "a", 100, 30_000)
      // Held until start + 30 s; the other is due at 10 s.
      assert.strictEqual(yield* nextDue, start + 10_000)
      yield* claim(start + 10_000, "b", 100, 60_000)
      // Both held now: the first lease to end.
      assert.strictEqual(yield* nextDue, start + 30_000)
      yield* commit([Write.insert(Task.table, newTask(scope, start + 20_000, start + 10_000))])
      assert.strictEqual(yield* nextDue, start + 20_000)
    }))

  it.effect(`tasks: ${concurrency} workers claiming at once never hold one task twice, and claim every due task`, () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const tasks = Array.from({ length: concurrency * 3 }, (_, i) => newTask(scope, start + i))
      yield* commit(tasks.map((t) => Write.insert(Task.table, t)))
      const batches = yield* Effect.all(
        Array.from({ length: concurrency }, (_, i) => claim(start + 10 * day, `w${i}`, 4)),
        { concurrency: "unbounded" }
      )
      const ids = batches.flat().map((t) => t.id)
      assert.strictEqual(new Set(ids).size, ids.length, "a task was claimed twice")
      const rest = yield* claim(start + 10 * day, "last", 1000)
      assert.sameMembers([...ids, ...rest.map((t) => t.id)], tasks.map((t) => t.id))
      // Claimed earliest due first.
      assert.deepStrictEqual((yield* claim(start + 10 * day, "none")).length, 0)
    }))

  it.effect("tasks: the backlog counts pending tasks due (leased ones too) with the earliest due time, and pending webhook deliveries with the oldest one's creation time; done and future tasks are not due; a task's traceparent reads back", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const at = start + 1000
      const backlog = Effect.flatMap(Task.Tasks, (tasks) => tasks.backlog(at))
      const base = yield* backlog
      const delivery = (dueAt: number, createdAt: number) => ({ ...newTask(scope, dueAt, createdAt), kind: "webhook.deliver" as const, targetId: "we_x" })
      // Its writer's trace context reads back as written (Task.TaskRecord.traceparent).
      const leased = { ...newTask(scope, start + 200), traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }
      const done = { ...delivery(start + 10, start + 5), status: "done" as const }
      yield* commit([
        Write.insert(Task.table, newTask(scope, start + 100)),
        Write.insert(Task.table, leased),
        Write.insert(Task.table, newTask(scope, start + 10 * day)),
        Write.insert(Task.table, delivery(start + 300, start + 50)),
        Write.insert(Task.table, done)
      ])
      yield* claim(start + 200, "holder", 100)
      assert.strictEqual((yield* read(leased)).traceparent, leased.traceparent)
      const after = yield* backlog
      assert.strictEqual(after.due, base.due + 3)
      assert.strictEqual(after.oldestDueAt, Math.min(base.oldestDueAt ?? Infinity, start + 100))
      assert.strictEqual(after.undeliveredWebhooks, base.undeliveredWebhooks + 1)
      assert.strictEqual(after.oldestUndeliveredAt, Math.min(base.oldestUndeliveredAt ?? Infinity, start + 50))
    }))

  it.effect("4.4 an asset's bytes read back byte for byte, at 5 MiB exactly, scoped to its merchant and environment", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const bytes = new Uint8Array(Asset.maxBytes)
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
      const asset = Asset.AssetRecord.make({
        id: `asst_${Ids.randomBase62()}`,
        ...scope,
        contentType: "image/png",
        size: bytes.length,
        sha256: "0".repeat(64),
        bytes,
        createdAt: t0,
        version: 1
      })
      yield* commit([Write.insert(Asset.table, asset)])
      const back = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.get(Asset.table, scope, asset.id)))
      assert.strictEqual(back.bytes.length, bytes.length)
      assert.isTrue(Buffer.from(back.bytes).equals(Buffer.from(bytes)))
      assert.deepStrictEqual({ ...back, bytes: null }, { ...asset, bytes: null })
      assert.isTrue(Option.isNone(yield* Effect.flatMap(Storage.Storage, (s) => s.get(Asset.table, { ...scope, environment: "live" }, asset.id))))
    }))

  it.effect("D7 webhook endpoints and delivery attempts read back whole: arrays, nested secrets, nulls", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const endpoint = WebhookEndpoint.WebhookEndpointRecord.make({
        id: `we_${Ids.randomBase62()}`,
        ...scope,
        url: "https://hooks.example.com/tender?x=1",
        description: null,
        enabledEvents: ["payment_intent.succeeded", "payment_intent.failed"],
        secrets: [{ encrypted: "aXY.dGFn.Ym9keQ", expiresAt: null }, { encrypted: "b2xk.dGFn.b2xk", expiresAt: t0 + 5 }],
        status: "enabled",
        createdAt: t0,
        updatedAt: t0,
        version: 1
      })
      const attempt = WebhookDelivery.AttemptRecord.make({
        id: `wha_${Ids.randomBase62()}`,
        ...scope,
        endpointId: endpoint.id,
        eventId: `evt_${Ids.randomBase62()}`,
        attempt: 3,
        statusCode: null,
        durationMillis: 5000,
        error: "no answer within 5000 ms",
        createdAt: t0 + 1,
        version: 1
      })
      yield* commit([Write.insert(WebhookEndpoint.table, endpoint), Write.insert(WebhookDelivery.attemptTable, attempt)])
      const storage = yield* Storage.Storage
      assert.deepStrictEqual(Option.getOrThrow(yield* storage.get(WebhookEndpoint.table, scope, endpoint.id)), endpoint)
      assert.deepStrictEqual(yield* WebhookDelivery.attempts(scope, { endpointId: endpoint.id }), [attempt])
      assert.deepStrictEqual(yield* WebhookDelivery.attempts(scope, { eventId: attempt.eventId }), [attempt])
      const deleted = { ...endpoint, status: "deleted" as const, updatedAt: t0 + 2, version: 2 }
      yield* commit([Write.update(WebhookEndpoint.table, deleted, 1)])
      assert.deepStrictEqual(yield* storage.list(WebhookEndpoint.table, { ...scope, where: { status: "enabled" }, limit: 10 }), [])
    }))

  it.effect("D7 events of a resource read back whole, in the order written; one (resource, version, ordinal) is written once", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const resourceId = `dord_${Ids.randomBase62()}`
      const created = event(scope, resourceId, 1, 0, t0)
      const requiresAction = { ...event(scope, resourceId, 1, 1, t0), type: "payment_intent.requires_action" as const }
      const succeeded = event(scope, resourceId, 2, 0, t0 + 5)
      yield* commit([Write.insert(Event.table, succeeded)])
      yield* commit([Write.insert(Event.table, created), Write.insert(Event.table, requiresAction)])
      assert.deepStrictEqual(yield* Event.forResource(scope, resourceId), [created, requiresAction, succeeded])
      const twice = yield* Effect.flip(commit([Write.insert(Event.table, { ...succeeded, id: `evt_${Ids.randomBase62()}` })]))
      assert.strictEqual(twice._tag, "UniqueViolation")
      // Another merchant sees none of them.
      assert.deepStrictEqual(yield* Event.forResource(freshScope(), resourceId), [])
      // Newest first in a merchant's list, filtered by type.
      const listed = yield* Event.list(scope, { types: ["payment_intent.created", "payment_intent.succeeded"], limit: 10 })
      assert.deepStrictEqual(listed.map((e) => e.id), [succeeded.id, created.id])
    }))
}
