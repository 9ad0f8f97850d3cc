import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { RouteHealth, Tender } from "../src/index.js"

const route = { id: "rt_stripe_pp", provider: "stripe" }
const services = (routeHealth?: Tender.TenderOptions["routeHealth"]) =>
  Tender.layerMemory({ seed: { merchants: [] }, hostedCheckout: { baseUrl: "https://pay.example.test", secret: "route-health-options-secret" }, routeHealth })

/** Records `failures` against the route, then answers whether it is healthy after each of `waits`. */
const after = (failures: number, waits: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const health = yield* RouteHealth.RouteHealth
    for (let i = 0; i < failures; i++) yield* health.recordFailure(route)
    const seen: Array<boolean> = [yield* health.isHealthy(route)]
    for (const millis of waits) {
      yield* TestClock.adjust(millis)
      seen.push(yield* health.isHealthy(route))
    }
    return seen
  })

describe("Route health: the breaker's host options (docs/discovery-and-routing.md, \"The breaker's options\")", () => {
  it.effect("Route health: by default 3 failures in a row open a route for 30 s", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* after(2, []), [true])
      assert.deepStrictEqual(yield* after(1, [29_999, 1]), [false, false, true])
    }).pipe(Effect.provide(services())))

  it.effect("Route health: Tender.layer's routeHealth sets the failures that open a route and its cool-down", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* after(1, [1_999, 1]), [false, false, true])
    }).pipe(Effect.provide(services({ failureThreshold: 1, cooldownMillis: 2_000 }))))
})
