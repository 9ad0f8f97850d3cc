/**
 * Webhook deliveries woken by LISTEN/NOTIFY alone (docs/payment-lifecycle.md, "Workers";
 * docs/postgres.md, "Task wake-ups"): the workers run under a test clock that never moves, so no
 * poll and no planned timer can fire; a delivery is sent only because something woke its pool.
 * The webhooks pool's claims are observed (the store's own `Tasks`, each claim's answer noted) to
 * know when the pool has gone idle, so the write that follows can only be run through the wake its
 * commit sends. The in-memory store's wake-ups are in packages/core/test/Wakeups.test.ts.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert } from "@effect/vitest"
import { PaymentIntent, PaymentIntents, Task, Tender, WebhookEndpoint, Workers } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { closeReceivers, promptpayFor, receiver } from "@tender/repo-test-support"
import { Context, Effect, Layer, Logger, ManagedRuntime, Schema, TestContext } from "effect"
import { afterAll, it } from "vitest"
import { checkoutOptions, keys, login, seed } from "../../core/test/fixtures.js"
import { dropTables, freshPrefix, runSql, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefixes: Array<string> = []
const stops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const stop of stops.splice(0)) await stop()
  closeReceivers()
  await runSql(Effect.forEach(prefixes, dropTables))
})

/** Real time passing, for the store and the receiver to answer: the test clock stays where it is. */
const pause = (millis: number) => new Promise((ok) => setTimeout(ok, millis))

/** Until `done` holds, looking every 20 ms of real time; false if it never did within 30 s. */
const eventually = async (done: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 1_500; i++) {
    if (await done()) return true
    await pause(20)
  }
  return done()
}

/** Every claim of the webhooks pool, in order: how many tasks it took. */
const observed = (claims: Array<number>) => (tasks: Context.Tag.Service<Task.Tasks>): Context.Tag.Service<Task.Tasks> => ({
  ...tasks,
  claim: (req) => Effect.tap(tasks.claim(req), (claimed) => Effect.sync(() => void (req.pool === "webhooks" && claims.push(claimed.length))))
})

const start = async (workers: Workers.WorkerOptions) => {
  const tablePrefix = freshPrefix()
  prefixes.push(tablePrefix)
  const claims: Array<number> = []
  const store = Layer.effectContext(
    Effect.map(Effect.context<Task.Tasks>(), (ctx) => Context.add(ctx, Task.Tasks, observed(claims)(Context.get(ctx, Task.Tasks))))
  ).pipe(Layer.provideMerge(PgStorage.layerFromUrl({ url, tablePrefix, maxConnections: 4 })))
  const services = Workers.layer(workers).pipe(
    Layer.provideMerge(Layer.orDie(Tender.layer({ seed, hostedCheckout: checkoutOptions }, store))),
    Layer.provideMerge(Logger.replace(Logger.defaultLogger, Logger.none)),
    // The clock never moves: the workers' sleeps (the poll, the next due task) never end.
    Layer.provideMerge(TestContext.TestContext)
  )
  const runtime = ManagedRuntime.make(services)
  stops.push(() => runtime.dispose())
  // Built now: the workers start with it.
  await runtime.runtime()
  // The merchant's requests run in the same runtime, so on the same stopped clock: what they write
  // is due at the workers' now. Each gives the id of what it created.
  const created = (answer: { readonly status: number; readonly body: string }) => {
    assert.isBelow(answer.status, 300, answer.body)
    return JSON.parse(answer.body).id as string
  }
  const endpoint = (url: string) =>
    runtime.runPromise(Effect.gen(function*() {
      const params = yield* Effect.orDie(Schema.decodeUnknown(WebhookEndpoint.CreateParams)({ url, enabled_events: ["payment_intent.created"] }))
      return created(yield* WebhookEndpoint.create({ principal: yield* login(keys.demoTest), requestId: "req_wake" }, params))
    }))
  const intent = (amount: string) =>
    runtime.runPromise(Effect.gen(function*() {
      const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpayFor(amount)))
      return created(yield* PaymentIntents.create({ principal: yield* login(keys.demoTest), requestId: "req_wake" }, params))
    }))
  const count = (query: (sql: SqlClient) => Effect.Effect<ReadonlyArray<{ readonly n: string }>, unknown>) =>
    runSql(Effect.map(Effect.flatMap(SqlClient, query), (rows) => Number(rows[0]?.n ?? 0)))
  /** The wake-up connection has run its LISTEN: from here on a commit's NOTIFY reaches the workers. */
  const listening = async () =>
    (await count((sql) => sql`SELECT count(*)::text AS n FROM pg_stat_activity WHERE query = ${`LISTEN "${tablePrefix}tasks"`}`)) > 0
  /** No delivery is pending (each one sent is done), and the webhooks pool's last claim found nothing: it is idle. */
  const idle = async () =>
    claims[claims.length - 1] === 0 &&
    (await count((sql) => sql`SELECT count(*)::text AS n FROM ${sql(`${tablePrefix}tasks`)} WHERE kind = 'webhook.deliver' AND status = 'pending'`)) === 0
  return { endpoint, intent, listening, idle }
}

describeOnPostgres("task wake-ups on PostgreSQL: webhook deliveries", () => {
  it("with the clock stopped, an event written after the webhooks pool went idle is delivered: its commit's NOTIFY woke the pool", async () => {
    const t = await start({})
    const r = await receiver()
    assert.isTrue(await eventually(t.listening), "the wake-up connection never listened")
    await t.endpoint(r.url("/b"))
    // A first event, run by whatever wakes the pool first (the listener's first look, or the NOTIFY).
    await t.intent("150000")
    assert.isTrue(await eventually(() => r.received.length === 1), "the first event was not delivered")
    // Then idle: its delivery is done and the claim that followed its end found nothing more.
    assert.isTrue(await eventually(t.idle), "the webhooks pool never went idle")
    // Room for a claim already under way when the pool was seen idle to end: the write that follows
    // must find the pool asleep, or a look it was taking anyway could run it without any wake-up.
    await pause(100)
    const created = await t.intent("150001")
    assert.isTrue(await eventually(() => r.received.length === 2), "the second event was not delivered: no wake-up reached the idle pool")
    assert.strictEqual(JSON.parse(r.received[1]!.body).data.object.id, created)
  }, 60_000)

  it(
    "with the clock stopped and the pool's one slot busy, an event written meanwhile is delivered once the slot frees: the wake is not lost while busy",
    async () => {
      const t = await start({ deliveryConcurrency: 1, perMerchant: 1 })
      const r = await receiver()
      assert.isTrue(await eventually(t.listening), "the wake-up connection never listened")
      // The only slot is held by a delivery to an endpoint that answers after 2.5 s of real time.
      await t.endpoint(r.url("/slow"))
      await t.intent("150000")
      assert.isTrue(await eventually(() => r.received.length === 1), "the first event was not sent")
      const second = await t.intent("150001")
      assert.isTrue(await eventually(() => r.received.some((x) => JSON.parse(x.body).data.object.id === second)), "the event written while busy was never sent")
    },
    60_000
  )
})
