/**
 * The rules of the Events API and the webhook tools, over HTTP with a real receiver
 * on loopback, written once and run on every store: the in-memory one (WebhookTools.test.ts)
 * and PostgreSQL (packages/postgres/test/WebhookTools.test.ts). Deliveries are verified with
 * the independent `standardwebhooks` package. Not a test file itself.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Tender } from "@tender/core"
import { promptpayFor, type Received, receiver } from "@tender/repo-test-support"
import { Webhook } from "standardwebhooks"
import { keys } from "../../core/test/fixtures.js"
import { assertError, type Key } from "./harness.js"
import { type StoreLayer, storeTenders } from "./storeTenders.js"

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** Deliveries to `path`, each verified with `secret` by the independent library; the events they carry. */
const verified = (received: ReadonlyArray<Received>, path: string, secret: string) =>
  received.filter((r) => r.path === path).map((r) => {
    const event = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string; type: string; data: { object: any } }
    assert.strictEqual(r.headers["webhook-id"], event.id)
    return event
  })

/**
 * Register the cases under `describe(name)`; `storage()` gives a fresh store for each case (its
 * own tables on PostgreSQL), so each case sees only the events it made.
 */
export const webhookToolsSuite = (name: string, storage: () => StoreLayer) => {
  const tender = storeTenders(storage)

  /** Tender over HTTP on a fresh store; `work()` runs every due task as a worker would. */
  const start = async (webhooks: Tender.TenderOptions["webhooks"] = {}) => {
    // A failing endpoint is left alone 5 s by default; the cases make it short.
    const { send, ok, work } = await tender({ endpointBackoffMillis: 1, ...webhooks })
    const intent = async () => {
      const created = await ok("POST", "/payment_intents", promptpayFor("150000"))
      // Distinct milliseconds, so creation windows can tell intents apart.
      await sleep(3)
      return created as { id: string; created_at: string }
    }
    const register = async (url: string, enabled_events?: ReadonlyArray<string>) =>
      (await ok("POST", "/webhook_endpoints", { url, ...(enabled_events === undefined ? {} : { enabled_events }) })) as { id: string; secret: string }
    return { send, ok, work, intent, register }
  }

  /** A fresh Tender with an endpoint on a new receiver at `path`, subscribed to `payment_intent.created`. */
  const subscribed = async (path: string) => {
    const t = await start()
    const r = await receiver()
    return { t, r, endpoint: await t.register(r.url(path), ["payment_intent.created"]) }
  }

  describe(`events and webhook tools: ${name}`, () => {
    it("events: GET /events lists the merchant's events newest first as D7 envelopes, filtered by one type or several (comma-separated or repeated) and created_after/created_before, paged with next_cursor", async () => {
      const t = await start()
      const first = await t.intent()
      const second = await t.intent()
      const all = await t.ok("GET", "/events")
      assert.deepStrictEqual(Object.keys(all).sort(), ["data", "has_more", "next_cursor"])
      // Newest first; a change's events share its time, so within one intent the id orders them (D6).
      assert.deepStrictEqual(all.data.map((e: any) => e.data.object.id), [second.id, second.id, first.id, first.id])
      assert.sameMembers(all.data.slice(0, 2).map((e: any) => e.type), ["payment_intent.created", "payment_intent.requires_action"])
      for (const e of all.data) {
        assert.deepStrictEqual(Object.keys(e), ["object", "id", "type", "environment", "created_at", "data"])
        assert.strictEqual(e.object, "event")
        assert.strictEqual(e.environment, "test")
        assert.deepStrictEqual(await t.ok("GET", `/events/${e.id}`), e)
      }
      const ids = (page: any) => page.data.map((e: any) => e.id)
      const created = await t.ok("GET", "/events?type=payment_intent.created")
      assert.deepStrictEqual(created.data.map((e: any) => e.data.object.id), [second.id, first.id])
      assert.deepStrictEqual(ids(await t.ok("GET", "/events?type=payment_intent.created,payment_intent.requires_action")), ids(all))
      assert.deepStrictEqual(ids(await t.ok("GET", "/events?type=payment_intent.created&type=payment_intent.requires_action")), ids(all))
      assert.deepStrictEqual(ids(await t.ok("GET", "/events?type=refund.created")), [])
      const since = encodeURIComponent(second.created_at)
      assert.deepStrictEqual((await t.ok("GET", `/events?created_after=${since}`)).data.map((e: any) => e.data.object.id), [second.id, second.id])
      assert.deepStrictEqual((await t.ok("GET", `/events?created_before=${since}`)).data.map((e: any) => e.data.object.id), [first.id, first.id])
      // D6: pages of 3 then 1, the same events in the same order.
      const page1 = await t.ok("GET", "/events?limit=3")
      assert.isTrue(page1.has_more)
      const page2 = await t.ok("GET", `/events?limit=3&cursor=${page1.next_cursor}`)
      assert.isFalse(page2.has_more)
      assert.isNull(page2.next_cursor)
      assert.deepStrictEqual([...ids(page1), ...ids(page2)], ids(all))
      assertError(await t.send("GET", "/events?type=payment_intent.nope"), 400, "validation_failed", "type")
    })

    it("events: another merchant's or environment's events are neither listed nor retrievable (404)", async () => {
      const t = await start()
      await t.intent()
      const [event] = (await t.ok("GET", "/events")).data
      assert.isDefined(event)
      assert.deepStrictEqual((await t.ok("GET", "/events", undefined, keys.otherTest)).data, [])
      assert.deepStrictEqual((await t.ok("GET", "/events", undefined, keys.demoLive)).data, [])
      assertError(await t.send("GET", `/events/${event.id}`, undefined, keys.otherTest), 404, "resource_not_found", "id")
      assertError(await t.send("GET", `/events/${event.id}`, undefined, keys.demoLive), 404, "resource_not_found", "id")
      assertError(await t.send("GET", `/events/evt_${"Z".repeat(24)}`), 404, "resource_not_found", "id")
    })

    it("webhook tools: another merchant's or environment's endpoint answers exactly as an unknown id on attempts, resend, rotate_secret and enable, a revoked key is 401, and the endpoint is unchanged", async () => {
      const t = await start()
      const endpoint = await t.register("http://127.0.0.1:9/owner")
      await t.intent()
      const [event] = (await t.ok("GET", "/events")).data
      const before = await t.ok("GET", `/webhook_endpoints/${endpoint.id}`)
      const unknown = `we_${"Z".repeat(24)}`
      const routes = (id: string) =>
        [
          ["GET", `/webhook_endpoints/${id}/attempts`, undefined],
          ["POST", `/webhook_endpoints/${id}/resend`, { event: event.id }],
          ["POST", `/webhook_endpoints/${id}/rotate_secret`, {}],
          ["POST", `/webhook_endpoints/${id}/enable`, {}]
        ] as const
      const revoked: Key = keys.revoked
      for (const key of [keys.otherTest, keys.demoLive]) {
        for (const [[method, path, body], [, unknownPath]] of routes(endpoint.id).map((r, i) => [r, routes(unknown)[i]!] as const)) {
          const theirs = assertError(await t.send(method, path, body, key), 404, "resource_not_found", "id")
          const nobodys = assertError(await t.send(method, unknownPath, body, key), 404, "resource_not_found", "id")
          assert.strictEqual(theirs.message.replace(endpoint.id, unknown), nobodys.message)
        }
      }
      for (const [method, path, body] of routes(endpoint.id)) assertError(await t.send(method, path, body, revoked), 401, "invalid_api_key")
      assert.deepStrictEqual(await t.ok("GET", `/webhook_endpoints/${endpoint.id}`), before)
      assert.deepStrictEqual((await t.ok("GET", `/webhook_endpoints/${endpoint.id}/attempts`)).data, [])
    })

    it("webhook attempts: GET /webhook_endpoints/{id}/attempts lists every attempt with its event and type, the URL, the status, the time taken and the error, newest first, by event too", async () => {
      const { t, r, endpoint } = await subscribed("/flaky")
      const intent = await t.intent()
      await t.work()
      const [event] = (await t.ok("GET", "/events?type=payment_intent.created")).data
      // The first attempt failed (500); a resend delivers it.
      await t.ok("POST", `/webhook_endpoints/${endpoint.id}/resend`, { event: event.id })
      await t.work()
      const log = await t.ok("GET", `/webhook_endpoints/${endpoint.id}/attempts`)
      assert.lengthOf(log.data, 2)
      const [second, first] = log.data
      for (const a of log.data) {
        assert.deepStrictEqual(Object.keys(a), [
          "object",
          "id",
          "webhook_endpoint",
          "event",
          "event_type",
          "url",
          "attempt",
          "status_code",
          "duration_ms",
          "error",
          "created_at"
        ])
        assert.strictEqual(a.object, "webhook_attempt")
        assert.match(a.id, /^wha_[0-9A-Za-z]{24}$/)
        assert.strictEqual(a.webhook_endpoint, endpoint.id)
        assert.strictEqual(a.event, event.id)
        assert.strictEqual(a.event_type, "payment_intent.created")
        assert.strictEqual(a.url, r.url("/flaky"))
        assert.isAtLeast(a.duration_ms, 0)
      }
      assert.deepStrictEqual([first.status_code, first.error], [500, "answered 500"])
      assert.deepStrictEqual([second.status_code, second.error], [200, null])
      assert.isAtLeast(Date.parse(second.created_at), Date.parse(first.created_at))
      assert.strictEqual(verified(r.received, "/flaky", endpoint.secret)[0]!.data.object.id, intent.id)
      assert.deepStrictEqual((await t.ok("GET", `/webhook_endpoints/${endpoint.id}/attempts?event=${event.id}&limit=1`)).data, [second])
      assert.deepStrictEqual((await t.ok("GET", `/webhook_endpoints/${endpoint.id}/attempts?event=evt_${"Z".repeat(24)}`)).data, [])
      assertError(await t.send("GET", `/webhook_endpoints/${endpoint.id}/attempts`, undefined, keys.otherTest), 404, "resource_not_found", "id")
    })

    it("webhook resend: one event is sent again under its webhook-id; an event of a type the endpoint is not subscribed to, or another merchant's, is refused", async () => {
      const { t, r, endpoint } = await subscribed("/once")
      await t.intent()
      await t.work()
      const [created] = (await t.ok("GET", "/events?type=payment_intent.created")).data
      const [action] = (await t.ok("GET", "/events?type=payment_intent.requires_action")).data
      const answer = await t.ok("POST", `/webhook_endpoints/${endpoint.id}/resend`, { event: created.id })
      assert.deepStrictEqual(answer, { object: "webhook_resend", webhook_endpoint: endpoint.id, queued: 1 })
      await t.work()
      const events = verified(r.received, "/once", endpoint.secret)
      assert.deepStrictEqual(events.map((e) => e.id), [created.id, created.id])
      assertError(await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { event: action.id }), 400, "validation_failed", "event")
      const other = await t.ok("POST", "/webhook_endpoints", { url: r.url("/other") }, keys.otherTest)
      assertError(await t.send("POST", `/webhook_endpoints/${other.id}/resend`, { event: created.id }, keys.otherTest), 404, "resource_not_found", "event")
      assertError(await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, {}), 400, "validation_failed", "event")
    })

    it("webhook resend: every event since a time that the endpoint is subscribed to is queued and delivered, the answer says how many", async () => {
      const { t, r, endpoint } = await subscribed("/recover")
      await t.intent()
      const second = await t.intent()
      const third = await t.intent()
      await t.work()
      const before = r.received.length
      const answer = await t.ok("POST", `/webhook_endpoints/${endpoint.id}/resend`, { since: second.created_at })
      // Two intents since then, each with created and requires_action: only created is subscribed.
      assert.deepStrictEqual(answer, { object: "webhook_resend", webhook_endpoint: endpoint.id, queued: 2 })
      await t.work()
      const again = verified(r.received.slice(before), "/recover", endpoint.secret)
      assert.sameMembers(again.map((e) => e.data.object.id), [second.id, third.id])
      assert.isTrue(again.every((e) => e.type === "payment_intent.created"))
      const bounded = await t.ok("POST", `/webhook_endpoints/${endpoint.id}/resend`, { since: second.created_at, until: third.created_at })
      assert.strictEqual(bounded.queued, 1)
    })

    it("D1 webhook resend: a body with neither event nor since is 400 validation_failed asking for one (not 'not both'); until at or before since is 400 validation_failed, param until; nothing is queued", async () => {
      const { t, r, endpoint } = await subscribed("/rules")
      const first = await t.intent()
      await t.work()
      const before = r.received.length
      const empty = assertError(await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, {}), 400, "validation_failed", "event")
      assert.notInclude(empty.message, "not both")
      assert.include(empty.message, "since")
      const both = assertError(
        await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { event: "evt_000000000000000000000000", since: first.created_at }),
        400,
        "validation_failed",
        "event"
      )
      assert.include(both.message, "not both")
      const later = new Date(Date.parse(first.created_at) + 60_000).toISOString()
      assertError(
        await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { since: later, until: first.created_at }),
        400,
        "validation_failed",
        "until"
      )
      assertError(
        await t.send("POST", `/webhook_endpoints/${endpoint.id}/resend`, { since: first.created_at, until: first.created_at }),
        400,
        "validation_failed",
        "until"
      )
      await t.work()
      assert.strictEqual(r.received.length, before)
    })

    it("webhook rotation: during the window every delivery carries two v1 signatures and a standardwebhooks receiver verifies it with either secret; after it, only the new one signs", async () => {
      const { t, r, endpoint } = await subscribed("/rotating")
      const rotatedAt = Date.now()
      const rotated = await t.ok("POST", `/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 1 })
      assert.match(rotated.secret, /^whsec_/)
      assert.notStrictEqual(rotated.secret, endpoint.secret)
      assert.strictEqual(rotated.id, endpoint.id)
      assert.approximately(Date.parse(rotated.previous_secret_expires_at) - rotatedAt, 1000, 500)
      // The secret is shown once: never in a read.
      assert.notProperty(await t.ok("GET", `/webhook_endpoints/${endpoint.id}`), "secret")
      await t.intent()
      await t.work()
      const during = r.received.filter((x) => x.path === "/rotating")
      assert.lengthOf(during, 1)
      assert.deepStrictEqual(String(during[0]!.headers["webhook-signature"]).split(" ").map((s) => s.slice(0, 3)), ["v1,", "v1,"])
      assert.lengthOf(verified(during, "/rotating", endpoint.secret), 1)
      assert.lengthOf(verified(during, "/rotating", rotated.secret), 1)
      await sleep(Math.max(0, Date.parse(rotated.previous_secret_expires_at) - Date.now() + 20))
      await t.intent()
      await t.work()
      const after = r.received.filter((x) => x.path === "/rotating").slice(1)
      assert.lengthOf(after, 1)
      assert.lengthOf(String(after[0]!.headers["webhook-signature"]).split(" "), 1)
      assert.lengthOf(verified(after, "/rotating", rotated.secret), 1)
      assert.throws(() => verified(after, "/rotating", endpoint.secret))
      // Without expires_in the window is 24 h; expires_in 0 ends it now.
      const daylong = await t.ok("POST", `/webhook_endpoints/${endpoint.id}/rotate_secret`)
      assert.approximately(Date.parse(daylong.previous_secret_expires_at) - Date.now(), 24 * 3600 * 1000, 60_000)
      const now = await t.ok("POST", `/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 0 })
      assert.isNull(now.previous_secret_expires_at)
      await t.intent()
      await t.work()
      const last = r.received.filter((x) => x.path === "/rotating").slice(2)
      assert.lengthOf(String(last[0]!.headers["webhook-signature"]).split(" "), 1)
      assert.lengthOf(verified(last, "/rotating", now.secret), 1)
    })

    it("webhook auto-disable: an endpoint whose every attempt failed for the stated time is disabled with a webhook_endpoint.disabled event, gets no deliveries while disabled, and enabling it resumes them", async () => {
      const t = await start({ disableAfterMillis: 200 })
      const r = await receiver()
      const down = await t.register(r.url("/down"), ["payment_intent.created"])
      const watcher = await t.register(r.url("/watcher"), ["webhook_endpoint.disabled"])
      await t.intent()
      await t.work()
      assert.strictEqual((await t.ok("GET", `/webhook_endpoints/${down.id}`)).status, "enabled")
      await sleep(250)
      await t.intent()
      await t.work()
      const disabled = await t.ok("GET", `/webhook_endpoints/${down.id}`)
      assert.strictEqual(disabled.status, "disabled")
      const [event] = (await t.ok("GET", "/events?type=webhook_endpoint.disabled")).data
      assert.strictEqual(event.data.object.id, down.id)
      assert.strictEqual(event.data.object.status, "disabled")
      assert.deepStrictEqual(verified(r.received, "/watcher", watcher.secret).map((e) => e.id), [event.id])
      assert.include((await t.ok("GET", "/webhook_endpoints")).data.map((e: any) => `${e.id} ${e.status}`), `${down.id} disabled`)
      // No deliveries while disabled, and no resend until enabled.
      const sent = r.received.filter((x) => x.path === "/down").length
      await t.intent()
      await t.work()
      assert.strictEqual(r.received.filter((x) => x.path === "/down").length, sent)
      assertError(await t.send("POST", `/webhook_endpoints/${down.id}/resend`, { since: event.created_at }), 409, "webhook_endpoint_disabled", "id")
      const enabled = await t.ok("POST", `/webhook_endpoints/${down.id}/enable`)
      assert.strictEqual(enabled.status, "enabled")
      await t.intent()
      await t.work()
      assert.strictEqual(r.received.filter((x) => x.path === "/down").length, sent + 1)
      // Enabled again, it starts a new run of failures: one failure does not disable it.
      assert.strictEqual((await t.ok("GET", `/webhook_endpoints/${down.id}`)).status, "enabled")
    })

    it("webhook auto-disable: a successful attempt ends the run of failures, so an endpoint that recovered is not disabled by a later failure", async () => {
      const t = await start({ disableAfterMillis: 200 })
      const r = await receiver()
      const flaky = await t.register(r.url("/flaky"), ["payment_intent.created"])
      await t.intent()
      await t.work()
      const [first] = (await t.ok("GET", "/events?type=payment_intent.created")).data
      await sleep(250)
      // The resend succeeds (the receiver fails each event's first delivery only)…
      await t.ok("POST", `/webhook_endpoints/${flaky.id}/resend`, { event: first.id })
      await t.work()
      // …so this failure, more than the window after the first, starts a new run instead of disabling.
      await t.intent()
      await t.work()
      const log = (await t.ok("GET", `/webhook_endpoints/${flaky.id}/attempts`)).data.map((a: any) => a.status_code)
      assert.deepStrictEqual(log, [500, 200, 500])
      assert.strictEqual((await t.ok("GET", `/webhook_endpoints/${flaky.id}`)).status, "enabled")
      assert.deepStrictEqual((await t.ok("GET", "/events?type=webhook_endpoint.disabled")).data, [])
    })
  })
}
