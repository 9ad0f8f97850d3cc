/**
 * D11: a stored provider notice that can never apply ends `unusable`, with the reason, and is
 * counted once; it is never left `received` with its task retrying for ever. An outage is tried
 * again on the task's schedule, and one outlasting `Task.maxAttempts` attempts ends it too. The
 * faults are the store's (the in-memory store with one call failing as a driver would), the
 * notice task and the workers are the real ones.
 */
import { assert, describe, it } from "@effect/vitest"
import { counted, createIntent, intent, notify, paymentEvent, services, stored, work } from "@tender/repo-test-support/provider-notifications"
import { Context, Effect, Layer, Option } from "effect"
import type { Storage as StoragePort } from "../src/index.js"
import { MemoryStorage, Merchants, PaymentIntent, ProviderNotification, Simulator, Storage, StorageError, Task } from "../src/index.js"

type Port = StoragePort.Storage["Type"]

/** The fault the store shows while a test arms it; none while it receives its notice. */
type Fault = "none" | "defect" | "refused read" | "refused commit" | "outage"
const armed: { on: boolean; fault: Fault } = { on: false, fault: "none" }

const failing = (fault: Fault): Effect.Effect<never, StorageError.StorageError> => {
  switch (fault) {
    case "defect":
      return Effect.die(new TypeError("Cannot read properties of undefined (reading 'status')"))
    case "refused read":
      return Effect.fail(new StorageError.StorageFailure({ message: "postgres: find failed", cause: { code: "22P02" } }))
    case "refused commit":
      return Effect.fail(new StorageError.StorageFailure({ message: "postgres: commit failed", cause: { code: "22021" } }))
    default:
      return Effect.fail(new StorageError.StorageUnavailable({ message: "connection refused" }))
  }
}

/**
 * The in-memory store, failing as a driver would while armed: the reads of payment intents (the
 * notice's apply reads its intent), or a commit that updates one. One store for the file: the
 * workers' layers are shared between the suites of a file.
 */
const faulty = Layer.merge(
  Layer.effectContext(Effect.sync(() => {
    const { tasks, ...store } = MemoryStorage.make()
    const port: Port = {
      ...store,
      find: (table, id) =>
        armed.on && armed.fault !== "refused commit" && table.name === PaymentIntent.table.name ? failing(armed.fault) : store.find(table, id),
      commit: (writes) =>
        armed.on && armed.fault === "refused commit" && writes.some((w) => w._tag === "Update" && w.table === PaymentIntent.table)
          ? failing(armed.fault)
          : store.commit(writes)
    }
    return Context.make(Storage.Storage, port).pipe(Context.add(Task.Tasks, tasks))
  })),
  Merchants.layerMemory()
)

/** The apply task of `eventId`'s notice. */
const applyTask = (eventId: string) =>
  Effect.flatMap(Storage.Storage, (s) =>
    s.list(Task.table, {
      merchantId: ProviderNotification.noMerchant,
      environment: "test",
      where: { resourceId: ProviderNotification.recordId(Simulator.code, eventId) },
      limit: 1
    })).pipe(Effect.map((tasks) => tasks[0]!))

/** A payment succeeded notice for a fresh intent, received while the store answers, then `fault` armed. */
const received = (fault: Fault) =>
  Effect.gen(function*() {
    armed.on = false
    const p = yield* createIntent()
    const event = paymentEvent("payment.succeeded", p)
    assert.strictEqual((yield* notify(event)).status, 200)
    armed.fault = fault
    armed.on = true
    return { p, event }
  })

/** The task brought due at once, as if its back-off (up to an hour) had passed, written while the store answers. */
const dueNow = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const on = armed.on
    armed.on = false
    yield* Effect.flatMap(Storage.Storage, (s) => s.commit([Storage.Write.update(Task.table, { ...task, dueAt: 0, version: task.version + 1 }, task.version)]))
    armed.on = on
  })

/** The workers run once with the fault armed: the notice ends unusable with `detail`, its task done. */
const endsUnusable = (eventId: string, detail: string) =>
  Effect.gen(function*() {
    yield* work
    armed.on = false
    const record = Option.getOrThrow(yield* stored(eventId))
    assert.deepStrictEqual([record.status, record.detail], ["unusable", detail])
    assert.strictEqual((yield* applyTask(eventId)).status, "done")
  })

describe("D11 provider notices that cannot apply", () => {
  it.layer(services(faulty))((it) => {
    it.effect("D11 a notice whose apply meets a defect ends unusable at its first attempt, with the reason; counted once, its task done", () =>
      Effect.gen(function*() {
        const before = yield* counted("PaymentSucceeded", "unusable")
        const { event, p } = yield* received("defect")
        yield* work
        armed.on = false
        const record = Option.getOrThrow(yield* stored(event.id))
        assert.strictEqual(record.status, "unusable")
        assert.include(record.detail, "defect (TypeError: Cannot read properties of undefined")
        const task = yield* applyTask(event.id)
        assert.deepStrictEqual([task.status, task.attempts], ["done", 1])
        assert.strictEqual((yield* counted("PaymentSucceeded", "unusable")) - before, 1)
        // It changed nothing, and a resend changes nothing either.
        assert.strictEqual((yield* intent(p.id)).status, "requires_action")
        assert.strictEqual((yield* notify(event)).status, 200)
        yield* work
        assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).version, record.version)
        assert.strictEqual((yield* counted("PaymentSucceeded", "unusable")) - before, 1)
      }))

    it.effect("D11 a notice whose apply the store refuses (not an outage) ends unusable at once, naming the store's error", () =>
      Effect.gen(function*() {
        const { event } = yield* received("refused read")
        yield* endsUnusable(event.id, "the store refused it (StorageFailure: postgres: find failed)")
      }))

    it.effect("D11 a notice whose writes the store refuses ends unusable instead of being claimed again each time its lease lapses", () =>
      Effect.gen(function*() {
        const { event, p } = yield* received("refused commit")
        yield* endsUnusable(event.id, "the store refused its writes (StorageFailure: postgres: commit failed)")
        assert.strictEqual((yield* intent(p.id)).status, "requires_action")
      }))

    it.effect("D11 an outage while applying is retried on the task's schedule, and the notice applies once it passes", () =>
      Effect.gen(function*() {
        const { event, p } = yield* received("outage")
        yield* work
        armed.on = false
        // Still received, its task waiting its back-off with the reason, not ended.
        assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "received")
        const waiting = yield* applyTask(event.id)
        assert.deepStrictEqual([waiting.status, waiting.attempts], ["pending", 1])
        assert.include(waiting.lastError, "the store was unavailable (StorageUnavailable: connection refused)")
        yield* dueNow(waiting)
        yield* work
        assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "applied")
        assert.strictEqual((yield* intent(p.id)).status, "succeeded")
      }))

    it.effect("D11 an outage outlasting Task.maxAttempts attempts ends the notice unusable, never received with its task failed", () =>
      Effect.gen(function*() {
        const before = yield* counted("PaymentSucceeded", "unusable")
        const { event } = yield* received("outage")
        for (let i = 0; i < Task.maxAttempts + 5; i++) {
          yield* work
          const task = yield* applyTask(event.id)
          if (task.status !== "pending") break
          assert.strictEqual(Option.getOrThrow(yield* stored(event.id)).status, "received")
          yield* dueNow(task)
        }
        armed.on = false
        const record = Option.getOrThrow(yield* stored(event.id))
        assert.deepStrictEqual(
          [record.status, record.detail],
          ["unusable", `still failing after ${Task.maxAttempts} attempts: the store was unavailable (StorageUnavailable: connection refused)`]
        )
        const task = yield* applyTask(event.id)
        assert.deepStrictEqual([task.status, task.attempts], ["done", Task.maxAttempts])
        assert.strictEqual((yield* counted("PaymentSucceeded", "unusable")) - before, 1)
      }))
  })
})
