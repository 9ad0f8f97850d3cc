/**
 * Tender over HTTP on a store a suite is given, for the suites written once and run on every
 * store (webhookFairnessSuite.ts, webhookToolsSuite.ts). Not a test file itself: calling
 * `storeTenders` registers the file's `afterAll` that stops every Tender it started and closes
 * the webhook receivers.
 */
import { assert } from "@effect/vitest"
import type { Merchants, Storage, Task } from "@tender/core"
import { Tender, Workers } from "@tender/core"
import { closeReceivers } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll } from "vitest"
import { checkoutOptions, keys, seed } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import { call, type Key } from "./harness.js"

/** What a suite's `storage()` gives: a fresh store, with its task queue and merchants. */
export type StoreLayer = Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, unknown>

/**
 * `start(webhooks)`: a Tender of the fixtures' seed on a fresh `storage()`, over HTTP. `send`
 * calls it as a merchant (the demo's test key unless told), `ok` asserts a 2xx and gives the
 * body, `work()` runs every due task as a worker would, `runtime` runs anything else in it,
 * `handler` takes any request (the harness's `call`).
 */
export const storeTenders = (
  storage: () => StoreLayer,
  options: { readonly seed?: typeof seed; readonly providers?: Tender.TenderOptions["providers"] } = {}
) => {
  const stops: Array<() => Promise<void>> = []
  afterAll(async () => {
    closeReceivers()
    for (const stop of stops.splice(0)) await stop()
  })

  return async (webhooks: Tender.TenderOptions["webhooks"] = {}) => {
    const runtime = ManagedRuntime.make(
      Layer.orDie(
        Tender.layer({
          seed: options.seed ?? seed,
          hostedCheckout: checkoutOptions,
          webhooks,
          ...(options.providers === undefined ? {} : { providers: options.providers })
        }, storage())
      )
    )
    const web = TenderHttp.toWebHandler(Layer.succeedContext(await runtime.runPromise(Effect.context<TenderHttp.Services>())))
    stops.push(async () => {
      await web.dispose()
      await runtime.dispose()
    })
    const send = (method: string, path: string, body?: unknown, key: Key = keys.demoTest, idempotencyKey?: string) =>
      call(web.handler, method, path, {
        key,
        ...(body === undefined ? {} : { body }),
        ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } })
      })
    const ok = async (method: string, path: string, body?: unknown, key: Key = keys.demoTest) => {
      const r = await send(method, path, body, key)
      assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
      return r.json
    }
    const work = () => runtime.runPromise(Workers.drain({ owner: "test" }))
    return { runtime, send, ok, work, handler: web.handler }
  }
}
