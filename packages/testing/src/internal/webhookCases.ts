/**
 * Contract cases for the Events API and the webhook tools: a merchant's events
 * listed by type (several at once) and creation window, page by page, in its scope only; an
 * endpoint's health (`failingSince`, `disabled`) and an attempt's record of what was sent
 * read back whole.
 */
import { assert } from "@effect/vitest"
import { Event, Ids, Storage, WebhookDelivery, WebhookEndpoint } from "@tender/core"
import { Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, freshScope, t0 } from "./fixtures.js"

const { Write } = Storage

const event = (scope: ReturnType<typeof freshScope>, type: Event.EventRecord["type"], at: number) =>
  Event.EventRecord.make({
    id: `evt_${Ids.randomBase62()}`,
    ...scope,
    type,
    resourceType: type.split(".")[0]!,
    resourceId: `dord_${Ids.randomBase62()}`,
    resourceVersion: 1,
    ordinal: 0,
    data: { object: type.split(".")[0]!, nested: { b: 1, a: [1, "x"] } },
    createdAt: at,
    version: 1
  })

export const webhookCases = (it: ContractIt) => {
  it.effect("events: a merchant's events list newest first by several types and a creation window, page by page, never another merchant's or environment's", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const types = ["payment_intent.created", "payment_intent.succeeded", "refund.created"] as const
      // Two events share a time: the id orders them (D6).
      const rows = Array.from({ length: 9 }, (_, i) => event(scope, types[i % 3]!, t0 + Math.floor(i / 2) * 1000))
      const other = event(freshScope(), "payment_intent.created", t0 + 1000)
      const live = event({ ...scope, environment: "live" }, "payment_intent.created", t0 + 1000)
      yield* commit([...rows, other, live].map((e) => Write.insert(Event.table, e)))
      const storage = yield* Storage.Storage
      const wanted = rows
        .filter((e) => e.type !== "payment_intent.succeeded" && e.createdAt >= t0 + 1000 && e.createdAt < t0 + 4000)
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      assert.isAbove(wanted.length, 3)
      const seen: Array<Event.EventRecord> = []
      let after: { createdAt: number; id: string } | undefined
      for (let page = 0; page < 10; page++) {
        const got = yield* storage.list(Event.table, {
          ...scope,
          where: { type: ["payment_intent.created", "refund.created"] },
          createdAfter: t0 + 1000,
          createdBefore: t0 + 4000,
          after,
          limit: 2
        })
        seen.push(...got)
        if (got.length < 2) break
        after = got[got.length - 1]
      }
      assert.deepStrictEqual(seen, wanted)
      assert.isTrue(Option.isNone(yield* storage.get(Event.table, scope, other.id)))
      assert.isTrue(Option.isNone(yield* storage.get(Event.table, scope, live.id)))
    }))

  it.effect("webhook tools: an endpoint's failing-since time and disabled status read back and list with the enabled; an attempt keeps the URL and event type it sent", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const endpoint = (status: "enabled" | "disabled", at: number) =>
        WebhookEndpoint.WebhookEndpointRecord.make({
          id: `we_${Ids.randomBase62()}`,
          ...scope,
          url: "https://hooks.example.com/tender",
          description: null,
          enabledEvents: ["*"],
          secrets: [{ encrypted: "aXY.dGFn.Ym9keQ", expiresAt: null }],
          status,
          failingSince: status === "enabled" ? at - 1 : null,
          createdAt: at,
          updatedAt: at,
          version: 1
        })
      const failing = endpoint("enabled", t0 + 10)
      const disabled = endpoint("disabled", t0 + 20)
      const attempt = WebhookDelivery.AttemptRecord.make({
        id: `wha_${Ids.randomBase62()}`,
        ...scope,
        endpointId: failing.id,
        eventId: `evt_${Ids.randomBase62()}`,
        eventType: "payment_intent.succeeded",
        url: failing.url,
        attempt: 1,
        statusCode: 500,
        durationMillis: 12,
        error: "answered 500",
        createdAt: t0 + 30,
        version: 1
      })
      yield* commit([
        Write.insert(WebhookEndpoint.table, failing),
        Write.insert(WebhookEndpoint.table, disabled),
        Write.insert(WebhookDelivery.attemptTable, attempt)
      ])
      const storage = yield* Storage.Storage
      assert.deepStrictEqual(Option.getOrThrow(yield* storage.get(WebhookEndpoint.table, scope, failing.id)), failing)
      const listed = yield* storage.list(WebhookEndpoint.table, { ...scope, where: { status: ["enabled", "disabled"] }, limit: 10 })
      assert.deepStrictEqual(listed, [disabled, failing])
      assert.deepStrictEqual(yield* storage.list(WebhookDelivery.attemptTable, { ...scope, where: { endpointId: failing.id }, limit: 10 }), [attempt])
      // Recovered: the run of failures ends.
      const recovered = { ...failing, failingSince: null, updatedAt: t0 + 40, version: 2 }
      yield* commit([Write.update(WebhookEndpoint.table, recovered, 1)])
      assert.deepStrictEqual(Option.getOrThrow(yield* storage.get(WebhookEndpoint.table, scope, failing.id)), recovered)
    }))
}
