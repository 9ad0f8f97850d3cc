/**
 * Auto-disable (WebhookHealth): the failure window and its races, on the in-memory
 * store. The rules over HTTP, on memory and PostgreSQL, are in packages/http/test/webhookToolsSuite.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Event, Storage, WebhookEndpoint, WebhookHealth } from "../src/index.js"
import { keys, layer, login, scope } from "./fixtures.js"

const window = 60_000

const register = Effect.gen(function*() {
  const principal = yield* login(keys.demoTest)
  const r = yield* WebhookEndpoint.create({ principal, requestId: "req_health" }, { url: "http://127.0.0.1:9/health" })
  return JSON.parse(r.body).id as string
})
const read = (id: string) => Effect.flatMap(Storage.Storage, (s) => s.get(WebhookEndpoint.table, scope, id)).pipe(Effect.map(Option.getOrThrow))
const disabledEvents = Event.list(scope, { types: ["webhook_endpoint.disabled"], limit: 10 })

describe("webhook auto-disable (WebhookHealth)", () => {
  it.effect("webhook auto-disable: failures inside the window only start the run; the first failure at the window's end disables the endpoint, with its event", () =>
    Effect.gen(function*() {
      const id = yield* register
      yield* WebhookHealth.recordAttempt(yield* read(id), false, 1_000)
      assert.strictEqual((yield* read(id)).failingSince, 1_000)
      yield* WebhookHealth.recordAttempt(yield* read(id), false, 1_000 + window - 1)
      assert.deepStrictEqual([(yield* read(id)).status, (yield* read(id)).failingSince], ["enabled", 1_000])
      yield* WebhookHealth.recordAttempt(yield* read(id), false, 1_000 + window)
      const disabled = yield* read(id)
      assert.deepStrictEqual([disabled.status, disabled.failingSince], ["disabled", null])
      const [event] = yield* disabledEvents
      assert.deepStrictEqual([event?.resourceId, event?.data["status"], event?.createdAt], [id, "disabled", 1_000 + window])
      assert.notProperty(event?.data, "secret")
      // A disabled endpoint's health is not tracked: a late success does not enable it.
      yield* WebhookHealth.recordAttempt(disabled, true, 2_000 + window)
      assert.strictEqual((yield* read(id)).status, "disabled")
    }).pipe(Effect.provide(layer({ webhooks: { disableAfterMillis: window } }))))

  it.effect("webhook auto-disable: sixteen failed attempts racing past the window disable the endpoint once, with exactly one event", () =>
    Effect.gen(function*() {
      const id = yield* register
      yield* WebhookHealth.recordAttempt(yield* read(id), false, 1_000)
      // Every attempt read the endpoint before any of them wrote.
      const seen = yield* read(id)
      yield* Effect.all(Array.from({ length: 16 }, (_, i) => WebhookHealth.recordAttempt(seen, false, 1_000 + window + i)), { concurrency: "unbounded" })
      assert.strictEqual((yield* read(id)).status, "disabled")
      assert.lengthOf(yield* disabledEvents, 1)
    }).pipe(Effect.provide(layer({ webhooks: { disableAfterMillis: window } }))))
})
