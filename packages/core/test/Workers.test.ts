/**
 * What a worker logs when a task's outcome could not be written because a versioned write lost
 * (`StaleVersion`): that its lease lapsed and another worker took the task over, or that
 * another task changed a record it writes first. The two differ for whoever reads the log: the
 * first is a slow worker, the second two tasks racing on one record.
 */
import { assert, describe, it } from "@effect/vitest"
import { promptpay } from "@tender/repo-test-support"
import { Effect, Layer, Logger, LogLevel, Option, Schema, TestClock } from "effect"
import { PaymentIntent, PaymentIntents, Storage, Task, Workers } from "../src/index.js"
import { keys, layer, login, racingIntent } from "./fixtures.js"

/** A logger keeping the text of every warning (its first part: the kind and id follow it). */
const capturing = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => void lines.push(String(Array.isArray(message) ? message[0] : message)))
  return { lines, layer: Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(LogLevel.Warning)) }
}

/** A confirmed simulator payment and its first task, claimed by `owner`. */
const confirmedWithTask = (owner: string, leaseMillis = 60_000) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpay))
    const created = yield* PaymentIntents.create({ principal, requestId: "req_w" }, params)
    const id = JSON.parse(created.body).id as string
    yield* PaymentIntents.confirm({ principal, requestId: "req_c" }, id)
    const now = yield* TestClock.currentTimeMillis
    const [task] = yield* Effect.flatMap(Task.Tasks, (t) => t.claim({ now, owner, leaseMillis, limit: 10 }))
    return { id, task: task! }
  })

describe("Workers: a task's outcome lost to a newer write", () => {
  it.effect("the lease lapsed and another worker took the task over: the log says so, and the first run writes nothing", () => {
    const log = capturing()
    return Effect.gen(function*() {
      const { task } = yield* confirmedWithTask("a", 1_000)
      yield* TestClock.adjust(1_000)
      const now = yield* TestClock.currentTimeMillis
      const [again] = yield* Effect.flatMap(Task.Tasks, (t) => t.claim({ now, owner: "b", leaseMillis: 60_000, limit: 10 }))
      assert.strictEqual(again?.id, task.id)
      assert.isTrue(yield* Workers.runTask(again!))
      assert.isFalse(yield* Workers.runTask(task))
      assert.deepStrictEqual(log.lines, ["tender: task's lease lapsed and another worker took it over; this run's outcome is dropped"])
    }).pipe(Effect.provide(Layer.merge(layer(), log.layer)))
  })

  it.effect("another task changed the record first (the task's own claim intact): the log says it lost a race, not that it outlived its lease", () => {
    const log = capturing()
    return Effect.gen(function*() {
      const { task } = yield* confirmedWithTask("a")
      assert.isFalse(yield* Workers.runTask(task))
      // Its claim was intact: it gives it back (one write over it) to run again at once.
      const stored = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.find(Task.table, task.id)))
      assert.deepStrictEqual([stored.version, stored.leaseUntil], [task.version + 1, null])
      assert.deepStrictEqual(log.lines, [
        "tender: task lost a race: another task changed a record it writes first; this outcome is dropped and the task runs again at once"
      ])
    }).pipe(Effect.provide(Layer.mergeAll(racingIntent.pipe(Layer.provideMerge(layer())), log.layer)))
  })
})
