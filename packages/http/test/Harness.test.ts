/**
 * The test harness itself: a loop of requests to the in-memory handler lets the worker's event
 * loop turn. Such a request settles in promise jobs alone; without the turn `call` takes, a
 * fuzzer's thousands of requests keep the worker from reading Vitest's answers, whose 60 s
 * timer then fails the run although every test passed (docs/test-environment.md).
 */
import { assert, describe, it } from "@effect/vitest"
import { keys } from "../../core/test/fixtures.js"
import { app, call } from "./harness.js"

describe("the HTTP test harness", () => {
  it("a loop of in-memory requests reaches the event loop: a timer due during it fires before the loop ends", async () => {
    const h = app()
    let fired = false
    setTimeout(() => (fired = true), 0)
    // Enough requests that the timer is due long before the last one.
    for (let i = 0; i < 50; i++) await call(h, "GET", "/payment_intents?limit=1", { key: keys.demoTest })
    assert.isTrue(fired, "the event loop never turned during 50 requests")
  })
})
