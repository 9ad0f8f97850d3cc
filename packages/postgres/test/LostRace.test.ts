/**
 * A task that lost a race (`StaleVersion` on its commit: another task changed a record it writes
 * first) runs again at once on PostgreSQL, not when its 60 s lease lapses
 * (docs/payment-lifecycle.md, "Workers"). The race is made deterministic: the store's commit
 * lets another write move the intent on just before the task's own commit.
 */
import { assert, it } from "@effect/vitest"
import { PaymentIntent, PaymentIntents, Storage, Task, Tender, Workers } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { promptpay } from "@tender/repo-test-support"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { asDemo, checkoutOptions, keys, login, quiet, racingIntent, seed } from "../../core/test/fixtures.js"
import { dropTables, freshPrefix, runSql, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

describeOnPostgres("Workers on PostgreSQL: a task that lost a race", () => {
  it.live("runs again at once: its claim is given back due now, and the next drain runs it to its outcome within its lease", () => {
    const prefix = freshPrefix()
    const services = racingIntent.pipe(
      Layer.provideMerge(
        Tender.layer({ seed, hostedCheckout: checkoutOptions }, PgStorage.layerFromUrl({ url, tablePrefix: prefix, maxConnections: 3, directoryCache: false }))
      )
    )
    return Effect.gen(function*() {
      const principal = yield* login(keys.demoTest)
      const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpay))
      const id = JSON.parse((yield* PaymentIntents.create({ principal, requestId: "req_w" }, params)).body).id as string
      yield* PaymentIntents.confirm({ principal, requestId: "req_c" }, id)
      const now = yield* Clock.currentTimeMillis
      const [task] = yield* Effect.flatMap(Task.Tasks, (t) => t.claim({ now, owner: "a", leaseMillis: 60_000, limit: 10 }))
      assert.strictEqual(task?.kind, "payment_intent.confirm")
      assert.isFalse(yield* Workers.runTask(task!))
      const stored = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.find(Task.table, task!.id)))
      assert.deepStrictEqual([stored.status, stored.leaseUntil, stored.attempts], ["pending", null, 0])
      // Well within the 60 s lease the first claim took.
      assert.isAtLeast(yield* Workers.drain({ owner: "b" }), 1)
      assert.strictEqual((yield* asDemo(PaymentIntents.retrieve)(id)).status, "succeeded")
    }).pipe(
      Effect.provide(Layer.merge(services, quiet)),
      Effect.ensuring(Effect.promise(() => runSql(dropTables(prefix))))
    )
  }, 30_000)
})
