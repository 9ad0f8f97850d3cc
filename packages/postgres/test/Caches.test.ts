/**
 * Caches across processes (docs/performance.md, "Caches across processes"): two demo
 * servers on one PostgreSQL database each cache credentials and the host's word on routes, with
 * their entries' age bound set to a minute, so only the change notification (LISTEN/NOTIFY) can
 * explain a change seen within the notification bound. This test process is a third process on
 * the same tables: it revokes a key and takes a route out of service, as a host's own process would.
 * Since migration 0015 the servers also cache each merchant's enabled webhook endpoints: an
 * endpoint deleted through one server, or disabled by an operator's `UPDATE` from this process,
 * gets nothing from a payment the other server creates once the notification is in.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Merchants, RouteHealth } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { basic, closeReceivers, demoKey, promptpayFor, receiver } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, assert, beforeAll, it } from "vitest"
import { client, freshPrefix, runSql, url } from "./database.js"
import { start as startDemo, stopDemos } from "./demoServer.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
/** docs/performance.md, "Caches across processes": every process sees a change within 5 seconds (the default maxAge), by the notification in milliseconds. */
const notificationBoundMillis = 5_000
/**
 * How long a queued delivery may take to reach the receiver: the workers' polling and sending, not
 * a cache bound, and slow on a loaded machine. The set of receivers only grows, so waiting longer
 * for an exact set still fails if an endpoint that should get nothing gets something.
 */
const deliveryWaitMillis = 30_000

const start = () => startDemo({ DATABASE_URL: url, TENDER_TABLE_PREFIX: prefix, TENDER_DIRECTORY_CACHE_MAX_AGE_MS: "60000" })

const auth = (key: { publicKey: string; secretKey: string }) => "Basic " + Buffer.from(`${key.publicKey}:${key.secretKey}`).toString("base64")

const list = (base: string, key: { publicKey: string; secretKey: string }) =>
  fetch(`${base}/payment_intents?limit=1`, { headers: { authorization: auth(key) } }).then(async (res) => (await res.arrayBuffer(), res.status))

const create = (base: string, key: { publicKey: string; secretKey: string }) =>
  fetch(`${base}/payment_intents`, {
    method: "POST",
    headers: { authorization: auth(key), "content-type": "application/json" },
    body: JSON.stringify(promptpayFor("150000"))
  }).then(async (res) => ({ status: res.status, body: await res.json() as { error?: { code?: string } } }))

/** Poll `probe` until it answers `want`; the milliseconds it took, or a failure past `bound`. */
const within = async <A>(bound: number, want: A, probe: () => Promise<A>): Promise<number> => {
  const started = Date.now()
  let last: A | undefined
  while (Date.now() - started <= bound) {
    last = await probe()
    if (last === want) return Date.now() - started
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`still ${String(last)} after ${bound} ms, wanted ${String(want)}`)
}

describeOnPostgres("caches across processes on PostgreSQL", () => {
  let a: { url: string }
  let b: { url: string }
  // This process: the store with its own cache and route health, on the same tables.
  const host = ManagedRuntime.make(
    RouteHealth.layer().pipe(Layer.provideMerge(PgStorage.layer({ tablePrefix: prefix })), Layer.provide(client))
  )
  beforeAll(async () => {
    ;[a, b] = await Promise.all([start(), start()])
  }, 120_000)
  afterAll(async () => {
    closeReceivers()
    await host.dispose()
    await stopDemos("SIGTERM", [prefix])
  })

  it("caches: a key revoked in one process stops working in both servers within the notification bound", async () => {
    const key = await host.runPromise(Merchants.issueKeyPair("mch_demo", "test"))
    // Served, and so cached, by both (read twice each).
    for (const server of [a, b, a, b]) assert.strictEqual(await list(server.url, key), 200)
    await host.runPromise(Effect.flatMap(Merchants.Merchants, (m) => m.revokeApiKey(key.apiKey.id, Date.now())))
    const [tookA, tookB] = await Promise.all([a, b].map((server) => within(notificationBoundMillis, 401, () => list(server.url, key))))
    assert.isBelow(Math.max(tookA!, tookB!), notificationBoundMillis)
    // And it stays refused.
    for (const server of [a, b]) assert.strictEqual(await list(server.url, key), 401)
  }, 30_000)

  it("route availability: a route taken out of service in one process is out of service in the other servers, and back", async () => {
    const key = await host.runPromise(Merchants.issueKeyPair("mch_demo", "test"))
    // Both servers have routed a create (and read the route availability) before.
    for (const server of [a, b]) assert.strictEqual((await create(server.url, key)).status, 201)
    await host.runPromise(Effect.flatMap(RouteHealth.RouteHealth, (h) => h.setRouteAvailable("rt_demo_promptpay", false)))
    const outOfService = async (server: { url: string }) => {
      const r = await create(server.url, key)
      return r.status === 422 && r.body.error?.code === "routing_unavailable"
    }
    await Promise.all([a, b].map((server) => within(notificationBoundMillis, true, () => outOfService(server))))
    await host.runPromise(Effect.flatMap(RouteHealth.RouteHealth, (h) => h.setRouteAvailable("rt_demo_promptpay", true)))
    await Promise.all([a, b].map((server) => within(notificationBoundMillis, 201, async () => (await create(server.url, key)).status)))
  }, 30_000)

  it(
    "webhook endpoints: an endpoint deleted in one server, or disabled by an operator, gets no event from a payment created in the other server after the notification bound; one registered in the first gets them",
    async () => {
      const hooks = await receiver()
      const send = (server: { url: string }, method: string, path: string, body?: unknown) =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: basic(demoKey), ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        }).then(async (res) => ({ status: res.status, body: await res.json() as { id: string } }))
      const register = async (path: string) => {
        const r = await send(a, "POST", "/webhook_endpoints", { url: hooks.url(path) })
        assert.strictEqual(r.status, 201)
        return r.body.id
      }
      const pay = async () => {
        const r = await send(b, "POST", "/payment_intents", promptpayFor("150000"))
        assert.strictEqual(r.status, 201)
        return r.body.id
      }
      /** The endpoints the payment's events were queued for, by its creating commit. */
      const queuedFor = (paymentId: string) =>
        runSql(Effect.flatMap(SqlClient, (sql) =>
          sql<{ target: string }>`SELECT DISTINCT t.target_id AS target FROM ${sql(`${prefix}tasks`)} t
          JOIN ${sql(`${prefix}events`)} e ON e.id = t.resource_id
          WHERE t.kind = 'webhook.deliver' AND e.resource_id = ${paymentId}`)).then((rows) => rows.map((r) => r.target).sort())
      /** The receiver paths that got an event of `paymentId`. */
      const deliveredTo = (paymentId: string) => [...new Set(hooks.received.filter((r) => r.body.includes(paymentId)).map((r) => r.path))].sort()

      const deleted = await register("/deleted")
      const disabled = await register("/disabled")
      // Server b has read (and cached) both endpoints, and its workers deliver to them.
      const before = await pay()
      assert.deepStrictEqual(await queuedFor(before), [deleted, disabled].sort())
      await within(deliveryWaitMillis, "/deleted,/disabled", async () => deliveredTo(before).join(","))

      const added = await register("/added")
      assert.strictEqual((await send(a, "DELETE", `/webhook_endpoints/${deleted}`)).status, 200)
      await runSql(
        Effect.flatMap(
          SqlClient,
          (sql) => sql`UPDATE ${sql(`${prefix}webhook_endpoints`)} SET status = 'disabled', version = version + 1 WHERE id = ${disabled}`
        )
      )
      // Server b's cache keeps entries a minute: only the notifications explain the change.
      let after = ""
      await within(notificationBoundMillis, added, async () => {
        after = await pay()
        return (await queuedFor(after)).join(",")
      })
      // The payment's events reach the endpoint still enabled; by then the others would have had theirs.
      await within(deliveryWaitMillis, "/added", async () => deliveredTo(after).join(","))
      const later = await pay()
      assert.deepStrictEqual(await queuedFor(later), [added])
      await within(deliveryWaitMillis, "/added", async () => deliveredTo(later).join(","))
    },
    150_000
  )
})
