/**
 * D11 on PostgreSQL: the shared suite of the rules (@tender/repo-test-support), and what only a
 * shared database shows: two Tender instances (each with its own pool, as two processes)
 * receiving one notification at once act once, and a process that stored a notification and
 * died before answering loses nothing.
 */
import { assert, it } from "@effect/vitest"
import { Event, PaymentIntent, ProviderNotification, Simulator, Storage, Task } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { createIntent, notify, paymentEvent, services, stored, suite, work } from "@tender/repo-test-support/provider-notifications"
import { Effect, Layer, Option } from "effect"
import { afterAll } from "vitest"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
afterAll(() => (skipReason === undefined ? runSql(dropTables(prefix)) : undefined))

/** One Tender instance on the shared tables: a pool of its own, as another process has. */
const instance = () => services(PgStorage.layerFromUrl({ url, tablePrefix: prefix, maxConnections: 4 }))

describeOnPostgres("D11 on PostgreSQL", () => {
  suite("postgres", instance())

  it.effect("D11 two Tender instances on one PostgreSQL receiving the same notification at once act once", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* Layer.build(instance())
      const b = yield* Layer.build(instance())
      const p = yield* Effect.provide(createIntent(), a)
      const event = paymentEvent("payment.succeeded", p)
      const answers = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => Effect.provide(notify(event), i % 2 === 0 ? a : b)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(answers.map((x) => JSON.stringify(x))).size, 1)
      yield* Effect.all([Effect.provide(work, a), Effect.provide(work, b)], { concurrency: "unbounded" })
      const check = Effect.gen(function*() {
        const storage = yield* Storage.Storage
        const id = ProviderNotification.recordId(Simulator.code, event.id)
        const tasks = yield* storage.list(Task.table, {
          merchantId: ProviderNotification.noMerchant,
          environment: "test",
          where: { resourceId: id },
          limit: 10
        })
        const events = yield* Event.forResource({ merchantId: "mch_d11", environment: "test" }, p.id)
        const intent = Option.getOrThrow(yield* storage.find(PaymentIntent.table, p.id))
        return { tasks: tasks.length, succeeded: events.filter((e) => e.type === "payment_intent.succeeded").length, status: intent.status }
      })
      assert.deepStrictEqual(yield* Effect.provide(check, b), { tasks: 1, succeeded: 1, status: "succeeded" })
    })), { timeout: 60_000 })

  it.effect(
    "47.2 a NUL in the failure message a provider quotes (PostgreSQL refuses it, 22021) is stored as U+FFFD, as in memory: the notice applies and the intent fails with the message",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const tender = yield* Layer.build(instance())
        const p = yield* Effect.provide(createIntent(), tender)
        const event = paymentEvent("payment.failed", p, { failure_code: "payment_declined", failure_message: "declined\u0000by the bank" })
        assert.strictEqual((yield* Effect.provide(notify(event), tender)).status, 200)
        yield* Effect.provide(work, tender)
        const record = Option.getOrThrow(yield* Effect.provide(stored(event.id), tender))
        assert.strictEqual(record.status, "applied")
        const intent = Option.getOrThrow(yield* Effect.provide(Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, p.id)), tender))
        assert.strictEqual(intent.status, "failed")
        assert.strictEqual(intent.failureMessage, "declined\ufffdby the bank")
      })),
    { timeout: 60_000 }
  )

  it.effect(
    "D11 a process that stored a notification and died before answering loses nothing: its task runs after restart, the retry answers the same",
    () =>
      Effect.gen(function*() {
        const event = yield* Effect.scoped(Effect.gen(function*() {
          const crashed = yield* Layer.build(instance())
          const p = yield* Effect.provide(createIntent(), crashed)
          const e = paymentEvent("payment.succeeded", p)
          // Stored with its task; the answer never reaches the provider and no worker ran.
          yield* Effect.provide(notify(e), crashed)
          return { e, p }
        }))
        yield* Effect.scoped(Effect.gen(function*() {
          const restarted = yield* Layer.build(instance())
          yield* Effect.provide(work, restarted)
          const retry = yield* Effect.provide(notify(event.e), restarted)
          yield* Effect.provide(work, restarted)
          assert.strictEqual(retry.status, 200)
          const record = Option.getOrThrow(yield* Effect.provide(stored(event.e.id), restarted))
          assert.deepStrictEqual([record.status, record.version], ["applied", 2])
          const events = yield* Effect.provide(Event.forResource({ merchantId: "mch_d11", environment: "test" }, event.p.id), restarted)
          assert.deepStrictEqual(events.filter((x) => x.type === "payment_intent.succeeded").length, 1)
        }))
      }),
    { timeout: 60_000 }
  )
})
