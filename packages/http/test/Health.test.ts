/**
 * Health routes and functions on the in-memory store (docs/observability.md, "Health"):
 * outside the merchant API (no authentication, not in `/openapi.json`), under the mount
 * prefix, paths configurable; readiness follows storage and the workers of this process.
 */
import { assert, describe, it } from "@effect/vitest"
import { Health, MemoryStorage, Storage, StorageError, Workers } from "@tender/core"
import { Effect, Exit, Layer, Scope } from "effect"
import { layer } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import { app, call, failingStorage } from "./harness.js"

describe("health: liveness and readiness", () => {
  it("health: GET /healthz and /readyz answer 200 without authentication, no-store, and are not in /openapi.json", async () => {
    const h = app()
    const live = await call(h, "GET", "/healthz")
    assert.strictEqual(live.status, 200)
    assert.deepStrictEqual(live.json, { status: "ok", checks: {} })
    assert.strictEqual(live.headers.get("cache-control"), "no-store")
    const ready = await call(h, "GET", "/readyz")
    assert.strictEqual(ready.status, 200)
    assert.deepStrictEqual(ready.json, { status: "ok", checks: { storage: "ok", workers: "not_run_here" } })
    const doc = (await call(h, "GET", "/openapi.json")).json
    assert.notProperty(doc.paths, "/healthz")
    assert.notProperty(doc.paths, "/readyz")
  })

  it("health: readiness is 503 unavailable when storage is unreachable; liveness stays 200", async () => {
    const h = app(layer({ storage: failingStorage(() => new StorageError.StorageUnavailable({ message: "down" })) }))
    const ready = await call(h, "GET", "/readyz")
    assert.strictEqual(ready.status, 503)
    assert.deepStrictEqual(ready.json, { status: "unavailable", checks: { storage: "unreachable", workers: "not_run_here" } })
    assert.strictEqual((await call(h, "GET", "/healthz")).status, 200)
  })

  it("health: a flood of GET /readyz reads the store once: the answer is at most a second old (Health.cachedReadiness)", async () => {
    let reads = 0
    const store = MemoryStorage.make()
    const counting: Storage.Storage["Type"] = { ...store, find: (table, id) => (reads++, store.find(table, id)) }
    const h = app(layer({ storage: Layer.succeed(Storage.Storage, counting) }))
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => call(h, "GET", "/readyz")))
    for (let i = 0; i < 5; i++) concurrent.push(await call(h, "GET", "/readyz"))
    assert.deepStrictEqual([...new Set(concurrent.map((r) => r.status))], [200])
    assert.strictEqual(reads, 1)
  })

  it("health: paths are configurable and live under the mount prefix; false serves none; the handler exposes liveness and readiness as Promises", async () => {
    const web = TenderHttp.toWebHandler(layer(), { prefix: "/payments", health: { liveness: "/live", readiness: "/ready" } })
    try {
      assert.strictEqual((await web.handler(new Request("http://localhost/payments/live"))).status, 200)
      assert.strictEqual((await web.handler(new Request("http://localhost/payments/ready"))).status, 200)
      assert.strictEqual((await web.handler(new Request("http://localhost/payments/healthz"))).status, 404)
      assert.isTrue(web.owns("/payments/ready"))
      assert.deepStrictEqual(await web.liveness(), { status: "ok", checks: {} })
      assert.strictEqual((await web.readiness()).status, "ok")
    } finally {
      await web.dispose()
    }
    const off = TenderHttp.toWebHandler(layer(), { health: false })
    try {
      assert.strictEqual((await off.handler(new Request("http://localhost/healthz"))).status, 404)
    } finally {
      await off.dispose()
    }
  })

  it.effect("health: readiness reports workers running while Workers.layer lives in this process, and 503 stopped once it is closed", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Workers.layer({ pollMillis: 10 }).pipe(Layer.provideMerge(Layer.merge(layer(), Health.layerWorkerStatus))),
        scope
      )
      const ready = Effect.provide(Health.readiness(), context)
      assert.deepStrictEqual(yield* ready, { status: "ok", checks: { storage: "ok", workers: "running" } })
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* ready, { status: "unavailable", checks: { storage: "ok", workers: "stopped" } })
      assert.strictEqual((yield* Effect.provide(Health.readiness({ requireWorkers: false }), context)).checks["workers"], "stopped")
    }))
})
