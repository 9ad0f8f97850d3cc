/**
 * One merchant's webhook backlog, with receivers that hang, against another merchant's payments
 * (docs/webhooks.md, "Fairness"; docs/payment-lifecycle.md, "Workers"): written once and run with
 * real workers on the in-memory store (BacklogIsolation.test.ts) and PostgreSQL
 * (packages/postgres/test/BacklogIsolation.test.ts). Not a test file itself.
 *
 * Merchant A has 9 endpoints, 4 that never answer, 1 that answers after 2.5 s and 4 that answer
 * at once, creates 300 payment intents and asks for 40 resends (`standBacklog` of test-support,
 * which `npm run bench` stands up too); then merchant B, with one healthy
 * endpoint, creates 5 and confirms one, and the simulator notifies B's payment of another. The
 * delivery timeout is 4 s, so a hanging receiver holds its attempt longer than any bound below:
 * each bound is one a hang would break.
 */
import { assert, describe, it } from "@effect/vitest"
import { PaymentIntent, ProviderNotifications, Simulator, Storage, Task, Tender, Workers } from "@tender/core"
import { closeReceivers, promptpayFor, receiver, standBacklog } from "@tender/repo-test-support"
import { Clock, Effect, Layer, Logger, ManagedRuntime, Option } from "effect"
import { afterAll } from "vitest"
import { checkoutOptions, keys, seed } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import { call, type Key } from "./harness.js"
import type { StoreLayer } from "./storeTenders.js"

/** How long a delivery attempt may wait for an answer: longer than the slow receiver, far longer than every bound. */
const timeoutMillis = 4_000

/** Poll `read` every 20 ms until `done` holds; how long that took, in ms, or Infinity after `withinMillis` x 4. */
const timeUntil = async <A>(read: () => Promise<A>, done: (a: A) => boolean, since: number, withinMillis: number) => {
  while (Date.now() - since <= withinMillis * 4) {
    if (done(await read())) return Date.now() - since
    await new Promise((r) => setTimeout(r, 20))
  }
  return Infinity
}

/** Register the case under `describe(name)`; `storage()` gives a fresh store. */
export const backlogIsolationSuite = (name: string, storage: () => StoreLayer) => {
  const stops: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const stop of stops.splice(0)) await stop()
    closeReceivers()
  })

  const start = async () => {
    const services = Workers.layer({ pollMillis: 200 }).pipe(
      Layer.provideMerge(Layer.orDie(Tender.layer({ seed, hostedCheckout: checkoutOptions, webhooks: { timeoutMillis } }, storage()))),
      // Timeouts of the hanging receivers are logged by design: the test output stays clean.
      Layer.provideMerge(Logger.replace(Logger.defaultLogger, Logger.none))
    )
    const runtime = ManagedRuntime.make(services)
    const web = TenderHttp.toWebHandler(Layer.succeedContext(await runtime.runPromise(Effect.context<TenderHttp.Services>())))
    stops.push(async () => {
      await web.dispose()
      await runtime.dispose()
    })
    const send = (method: string, path: string, body: unknown, key: Key) => call(web.handler, method, path, { key, ...(body === undefined ? {} : { body }) })
    const ok = async (method: string, path: string, body: unknown, key: Key) => {
      const r = await send(method, path, body, key)
      assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
      return r.json
    }
    return { runtime, ok }
  }

  describe(`one merchant's webhook backlog: ${name}`, () => {
    it(
      "4.5 D7 D11 with another merchant's backlog standing (hanging receivers, 300 intents, 40 resends), a merchant's events are each delivered within 2 s of their commit (under the 2.5 s and 4 s A's receivers hold), its confirm succeeds within 1 s and a provider notification is applied within 1 s",
      async () => {
        const r = await receiver()
        const t = await start()
        const b = keys.otherTest
        await standBacklog(t.ok, keys.demoTest, r.url)
        await t.ok("POST", "/webhook_endpoints", { url: r.url("/b") }, b)

        const intentsOfB: Array<{ id: string }> = []
        for (let i = 0; i < 5; i++) intentsOfB.push(await t.ok("POST", "/payment_intents", promptpayFor("150000"), b))
        const confirmedAt = Date.now()
        await t.ok("POST", `/payment_intents/${intentsOfB[0]!.id}/confirm`, undefined, b)
        const confirmTook = await timeUntil(
          () => t.ok("GET", `/payment_intents/${intentsOfB[0]!.id}`, undefined, b),
          (pi) => pi.status === "succeeded",
          confirmedAt,
          1_000
        )

        // The simulator notifies that B's second intent was paid: it is applied by a money worker.
        const paid = intentsOfB[1]!
        const notifiedAt = Date.now()
        await t.runtime.runPromise(Effect.gen(function*() {
          const body = JSON.stringify({
            id: `evt_sim_backlog_${notifiedAt}`,
            type: "payment.succeeded",
            data: { payment_intent: paid.id, provider_payment_id: yield* providerPaymentId(paid.id), amount: "150000", currency: "THB" }
          })
          const signature = Simulator.signNotification({ body, timestamp: Math.floor(notifiedAt / 1000) })
          return yield* ProviderNotifications.receive(Simulator.code, {
            headers: { [Simulator.signatureHeader]: signature },
            body: new TextEncoder().encode(body)
          })
        }))
        const noticeTook = await timeUntil(() => t.ok("GET", `/payment_intents/${paid.id}`, undefined, b), (pi) => pi.status === "succeeded", notifiedAt, 1_000)

        // Every event of B reaches its receiver: created (5), the two payments' later events.
        const eventsOfB = (await t.ok("GET", "/events?limit=100", undefined, b)).data as Array<{ id: string; created_at: string; type: string }>
        const delivered = await timeUntil(
          async () => new Set(r.received.filter((x) => x.path === "/b").map((x) => JSON.parse(x.body).id as string)),
          (ids) => eventsOfB.every((e) => ids.has(e.id)),
          Date.now(),
          2_000
        )
        assert.isFinite(delivered, "some of B's events were never delivered")
        // An event's created_at is taken before its commit: the delay measured is never shorter than the real one.
        const delays = eventsOfB.map((e) => {
          const arrival = r.received.find((x) => x.path === "/b" && JSON.parse(x.body).id === e.id)!
          return { type: e.type, delay: arrival.at - Date.parse(e.created_at) }
        })
        // A's backlog still stands: its receivers that hang hold deliveries, most of them still pending.
        const backlog = await t.runtime.runPromise(Effect.flatMap(Task.Tasks, (q) => Effect.flatMap(Clock.currentTimeMillis, q.backlog)))
        assert.isAbove(backlog.undeliveredWebhooks, 1_000, "A's backlog had drained: the case proves nothing")
        // 2 s, under the 2.5 s of A's slow receiver and the 4 s a hanging one holds an attempt: a delivery of B's that
        // waited for a slot A's receivers held fails it.
        for (const d of delays) assert.isAtMost(d.delay, 2_000, `B's ${d.type} was delivered ${d.delay} ms after its commit`)
        assert.isAtMost(confirmTook, 1_000, `B's confirm took ${confirmTook} ms to succeed`)
        assert.isAtMost(noticeTook, 1_000, `the provider notification took ${noticeTook} ms to apply`)
      },
      120_000
    )
  })
}

/** The provider's payment id of an intent, as stored. */
const providerPaymentId = (id: string) =>
  Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, id)).pipe(
    Effect.map((found) => Option.getOrThrow(found).providerPaymentId ?? "")
  )
