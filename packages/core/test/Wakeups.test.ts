/**
 * Workers wake on what the store says (`Tasks.wakeups`), not on their poll: with the poll
 * interval far longer than any test, a task written by a request runs at once, a timer written
 * while the workers are idle runs once it is due, and a task that lost a race runs again at once.
 * On the in-memory store, under the test clock; PostgreSQL's are in packages/server/test.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpay } from "@tender/repo-test-support"
import { Effect, Layer, Option, Schema, TestClock } from "effect"
import { PaymentIntent, PaymentIntents, Refund, Refunds, Storage, Task, Workers } from "../src/index.js"
import { asDemo, keys, layer, login, quiet, racingIntent, scope } from "./fixtures.js"

const { Write } = Storage

/** Longer than any test: a worker that only polled would never look again. */
const noPolling = Workers.layer({ pollMillis: 365 * 24 * 3_600_000 })

/** Let the forked workers run until `done` holds (the test clock does not move meanwhile). */
const until = <E, R>(read: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2_000; i++) {
      if (yield* read) return true
      yield* Effect.yieldNow()
    }
    return yield* read
  })

const intent = asDemo(PaymentIntents.retrieve)
const refund = asDemo(Refunds.retrieve)

const created = Effect.gen(function*() {
  const principal = yield* login(keys.demoTest)
  const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpay))
  const r = yield* PaymentIntents.create({ principal, requestId: "req_w" }, params)
  return JSON.parse(r.body).id as string
})

const confirmed = (id: string) => Effect.flatMap(login(keys.demoTest), (principal) => PaymentIntents.confirm({ principal, requestId: "req_c" }, id))

describe("Task.wakesWorkers", () => {
  const task = Task.TaskRecord.make({
    id: "task_w",
    ...scope,
    kind: "payment_intent.confirm",
    resourceId: "dord_w",
    status: "pending",
    dueAt: 1_000,
    attempts: 1,
    createdAt: 1_000,
    updatedAt: 1_000,
    version: 2
  })
  it("a task inserted pending wakes them, due now or within the wake horizon; a timer due later does not; a task updated to pending, unleased and due by the write wakes them; a claim, a completion, a reschedule for later and other tables do not", () => {
    assert.isTrue(Task.wakesWorkers(Write.insert(Task.table, task)))
    assert.isTrue(Task.wakesWorkers(Write.insert(Task.table, { ...task, dueAt: task.updatedAt + Task.wakeHorizonMillis })))
    assert.isFalse(Task.wakesWorkers(Write.insert(Task.table, { ...task, dueAt: task.updatedAt + Task.wakeHorizonMillis + 1 })))
    assert.isTrue(Task.wakesWorkers(Write.update(Task.table, { ...task, updatedAt: 2_000 }, 1)))
    assert.isTrue(Task.wakesWorkers(Write.update(Task.table, Task.released({ ...task, leaseOwner: "a", leaseUntil: 9_000 }, 2_000), 2)))
    assert.isFalse(Task.wakesWorkers(Write.update(Task.table, { ...task, leaseOwner: "a", leaseUntil: 9_000 }, 1)))
    assert.isFalse(Task.wakesWorkers(Write.update(Task.table, Task.completed(task, 2_000), 2)))
    assert.isFalse(Task.wakesWorkers(Write.update(Task.table, Task.rescheduled(task, 2_000, 5_000, "later"), 2)))
    assert.isFalse(Task.wakesWorkers(Write.insert(Refund.table, { ...task, id: "rf_w" } as unknown as Refund.RefundRecord)))
  })
})

describe("Workers: with polling turned off, wake-ups alone run the work", () => {
  it.scoped("a confirm and a refund, written by requests while the workers are idle, run at once", () =>
    Effect.gen(function*() {
      const id = yield* created
      yield* confirmed(id)
      assert.isTrue(yield* until(Effect.map(intent(id), (pi) => pi.status === "succeeded")), "the confirm's task did not run")
      const principal = yield* login(keys.demoTest)
      const params = yield* Effect.orDie(Schema.decodeUnknown(Refund.CreateParams)({ payment_intent: id, amount: "100" }))
      const r = yield* Refunds.create({ principal, requestId: "req_r" }, params)
      const refundId = JSON.parse(r.body).id as string
      assert.isTrue(yield* until(Effect.map(refund(refundId), (rf) => rf.status === "succeeded")), "the refund's task did not run")
    }).pipe(Effect.provide(noPolling.pipe(Layer.provideMerge(layer())))))

  it.scoped("a timer written while the workers are idle (a payer action's expiry) runs once it is due", () =>
    Effect.gen(function*() {
      // Idle first: the workers have planned their next look (the poll, a year away) before the timer exists.
      yield* until(Effect.succeed(false))
      const id = yield* created
      yield* until(Effect.succeed(false))
      yield* TestClock.adjust("16 minutes")
      assert.isTrue(yield* until(Effect.map(intent(id), (pi) => pi.status === "expired")), "the expiry timer did not run")
    }).pipe(Effect.provide(noPolling.pipe(Layer.provideMerge(layer())))))
})

describe("Workers: a task that lost a race (StaleVersion on its commit) runs again at once", () => {
  it.effect("its claim is given back due now, the lost race not counted as an attempt, and the next drain runs it to its outcome", () => {
    return Effect.gen(function*() {
      const id = yield* created
      yield* confirmed(id)
      const now = yield* TestClock.currentTimeMillis
      const [task] = yield* Effect.flatMap(Task.Tasks, (t) => t.claim({ now, owner: "a", leaseMillis: 60_000, limit: 10 }))
      assert.isFalse(yield* Workers.runTask(task!))
      const stored = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.find(Task.table, task!.id)))
      assert.deepStrictEqual([stored.status, stored.leaseUntil, stored.dueAt, stored.attempts], ["pending", null, now, 0])
      // No clock moves: the lease (60 s) has not lapsed, and the task runs all the same.
      assert.isAtLeast(yield* Workers.drain({ owner: "b" }), 1)
      assert.strictEqual((yield* intent(id)).status, "succeeded")
    }).pipe(Effect.provide(Layer.mergeAll(racingIntent.pipe(Layer.provideMerge(layer())), quiet)))
  })
})
