/**
 * D7's retries with the sender's endpoint back-off (docs/webhooks.md, "No storm"): an endpoint
 * that fails is left alone 5 s, doubling per consecutive failure; attempts that were in flight
 * beside a failure are the same outage, not more failures.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, TestClock } from "effect"
import { WebhookDelivery, WebhookTransport } from "../src/index.js"

const request = { url: "https://hooks.example.com/x", headers: {}, body: "{}", timeoutMillis: 1000, allowPrivateAddresses: false }

/** A transport whose answers wait for `release`, then answer 500. */
const failingAfter = (release: Deferred.Deferred<void>) =>
  Layer.succeed(WebhookTransport.WebhookTransport, {
    send: () => Effect.as(Deferred.await(release), { _tag: "Answered", status: 500 } as const)
  })

describe("webhook sender back-off (D7)", () => {
  it.effect("D7 four deliveries failing together back off once (5 s), not four times (40 s); the next failure doubles it", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const sender = yield* WebhookDelivery.WebhookSender.pipe(
        Effect.provide(WebhookDelivery.layerSender({ perEndpoint: 4 }).pipe(Layer.provide(failingAfter(release))))
      )
      const sends = yield* Effect.forkAll(Array.from({ length: 4 }, () => sender.send("we_1", request)))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(sends)
      assert.strictEqual(sender.blockedUntil("we_1", 0), 5_000)
      yield* TestClock.adjust("5 seconds")
      assert.isUndefined(sender.blockedUntil("we_1", 5_000))
      yield* sender.send("we_1", request)
      assert.strictEqual(sender.blockedUntil("we_1", 5_000), 15_000)
    }))
})
