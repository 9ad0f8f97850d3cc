/**
 * Fairness between merchants' webhooks and the resend bound (docs/webhooks.md, "Fairness" and
 * "Sending events again"), over HTTP with a real receiver on loopback, written once and run on
 * the in-memory store (WebhookFairness.test.ts) and PostgreSQL
 * (packages/postgres/test/WebhookFairness.test.ts). Not a test file itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { Event, Storage, type Tender } from "@tender/core"
import { promptpayFor, receiver } from "@tender/repo-test-support"
import { Effect } from "effect"
import { keys } from "../../core/test/fixtures.js"
import { assertError } from "./harness.js"
import { type StoreLayer, storeTenders } from "./storeTenders.js"

/** Register the cases under `describe(name)`; `storage()` gives a fresh store for each case. */
export const webhookFairnessSuite = (name: string, storage: () => StoreLayer) => {
  const tender = storeTenders(storage)

  const start = async (webhooks: Tender.TenderOptions["webhooks"] = {}) => {
    const { runtime, send, ok, work } = await tender(webhooks)
    /** `count` events of the demo merchant, written straight to the store, from `since` on. */
    const history = (count: number, since: number) =>
      runtime.runPromise(Effect.gen(function*() {
        const writes: Array<Storage.Write> = []
        for (let i = 0; i < count; i++) {
          const id = `dord_history${String(i).padStart(6, "0")}`
          const changed = { merchantId: "mch_demo", environment: "test" as const, id, version: 1, updatedAt: since + i }
          writes.push(...(yield* Event.writes(changed, "payment_intent", { object: "payment_intent", id }, ["payment_intent.created"])))
        }
        yield* (yield* Storage.Storage).commit(writes)
      }))
    return { send, ok, work, history }
  }

  describe(`webhook fairness and the resend bound: ${name}`, () => {
    it(
      "one merchant's resend flood does not stall another's webhooks: concurrent resends queue each (event, endpoint) once, and the other merchant's new event is delivered in the first round of claims, before the flood drains",
      async () => {
        const t = await start()
        const r = await receiver()
        const since = Date.now() - 60_000
        await t.history(100, since)
        const flooded = await Promise.all(["/flood/a", "/flood/b"].map((path) => t.ok("POST", "/webhook_endpoints", { url: r.url(path) })))
        await t.ok("POST", "/webhook_endpoints", { url: r.url("/other") }, keys.otherTest)
        // Five concurrent resends of the same window to each endpoint: each event is queued once per endpoint.
        const answers = await Promise.all(
          flooded.flatMap((endpoint) =>
            Array.from({ length: 5 }, () => t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { since: new Date(since).toISOString() }))
          )
        )
        for (const a of answers) assert.strictEqual(a.status, 200, a.text)
        const queued = (i: number) => answers.slice(i * 5, i * 5 + 5).reduce((n, a) => n + (a.json.queued as number), 0)
        assert.deepStrictEqual([queued(0), queued(1)], [100, 100])
        // The other merchant's new event, queued after the flood.
        const created = await t.ok("POST", "/payment_intents", promptpayFor("150000"), keys.otherTest)
        await t.work()
        const paths = r.received.map((x) => x.path)
        assert.strictEqual(paths.filter((p) => p.startsWith("/flood/")).length, 200, "the flood is delivered, each event once per endpoint")
        const others = r.received.filter((x) => x.path === "/other")
        assert.isAbove(others.length, 0)
        assert.strictEqual(JSON.parse(others[0]!.body).data.object.id, created.id)
        // Claims take the first of every lane before any lane's second: the other merchant's
        // delivery runs in the first claim (8 tasks, the workers' default concurrency).
        assert.isBelow(paths.indexOf("/other"), 8, `delivered at position ${paths.indexOf("/other")} of ${paths.length}`)
      },
      120_000
    )

    it("webhook resend: an event whose delivery waits for a retry is not queued twice: two racing resends of it send it now, once", async () => {
      const t = await start({ endpointBackoffMillis: 1 })
      const r = await receiver()
      const endpoint = await t.ok("POST", "/webhook_endpoints", { url: r.url("/flaky"), enabled_events: ["payment_intent.created"] })
      await t.ok("POST", "/payment_intents", promptpayFor("150000"))
      await t.work()
      // The first attempt failed (500); its retry waits 5 s.
      assert.strictEqual(r.received.length, 1)
      const [event] = (await t.ok("GET", "/events?type=payment_intent.created")).data
      const answers = await Promise.all([1, 2].map(() => t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { event: event.id })))
      for (const a of answers) assert.strictEqual(a.status, 200, a.text)
      assert.sameMembers(answers.map((a) => a.json.queued), [1, 0])
      await t.work()
      await t.work()
      assert.strictEqual(r.received.length, 2, "sent again once, not twice")
      const attempts = (await t.ok("GET", `/webhook_endpoints/${endpoint.id}/attempts`)).data.map((a: any) => a.status_code)
      assert.deepStrictEqual(attempts, [200, 500])
    }, 60_000)

    it(
      "webhook resend: past the endpoint's hourly bound a resend is 429 rate_limited (D1 body, param id) with Retry-After, queues nothing, and is not stored on its Idempotency-Key",
      async () => {
        const t = await start({ resendsPerHour: 12 })
        const r = await receiver()
        const since = Date.now() - 60_000
        await t.history(10, since)
        const endpoint = await t.ok("POST", "/webhook_endpoints", { url: r.url("/bounded") })
        const window = { since: new Date(since).toISOString() }
        assert.strictEqual((await t.ok("POST", `/webhook_endpoints/${endpoint.id}/resend`, window)).queued, 10)
        await t.work()
        assert.strictEqual(r.received.length, 10)
        const again = await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, window, keys.demoTest, "resend-key-1")
        assertError(again, 429, "rate_limited", "id")
        const retryAfter = Number(again.headers.get("retry-after"))
        assert.isTrue(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600, `Retry-After ${again.headers.get("retry-after")}`)
        await t.work()
        assert.strictEqual(r.received.length, 10, "nothing was queued")
        // Still within the bound: a resend of one event is queued (2 left of 12), under the same
        // Idempotency-Key, which the 429 did not keep (a kept answer would make this a 409).
        const [latest] = (await t.ok("GET", "/events?limit=1")).data
        const one = await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { event: latest.id }, keys.demoTest, "resend-key-1")
        assert.strictEqual(one.status, 200, one.text)
        assert.strictEqual(one.json.queued, 1)
        // A resend larger than the whole bound can never pass: 400, not a 429 to wait out.
        const small = await start({ resendsPerHour: 5 })
        await small.history(10, since)
        const bounded = await small.ok("POST", "/webhook_endpoints", { url: r.url("/small") })
        assertError(await small.send("POST", `/webhook_endpoints/${bounded.id}/resend`, window), 400, "validation_failed", "since")
      },
      60_000
    )
  })
}
