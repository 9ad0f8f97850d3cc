/**
 * The storage contract suite: the cases every storage adapter must pass, written once.
 * An adapter's test file runs it in two lines:
 *
 * ```ts
 * import { StorageContract } from "@tender/testing"
 * StorageContract.suite("postgres", PgStorage.layer({ tablePrefix: "t_" }).pipe(Layer.provide(client)))
 * ```
 *
 * It is not a `*.test.ts` file itself, so third-party adapters can import and run it.
 *
 * @since 0.1.0
 */
import { describe, layer } from "@effect/vitest"
import type { Merchants, Storage, Task } from "@tender/core"
import type { Layer } from "effect"
import { cases as balanceCases } from "./internal/balanceCases.js"
import { deliveryCases } from "./internal/deliveryCases.js"
import { idempotencyCases, purgeCases, referenceCases } from "./internal/idempotencyCases.js"
import { merchantCases } from "./internal/merchantCases.js"
import { cases as paymentIntentCases } from "./internal/paymentIntentCases.js"
import { cases as providerAttemptCases } from "./internal/providerAttemptCases.js"
import { cases as providerNotificationCases } from "./internal/providerNotificationCases.js"
import { cases as readCases } from "./internal/readCases.js"
import { cases as refundCases } from "./internal/refundCases.js"
import { retentionCases } from "./internal/retentionCases.js"
import { taskCases } from "./internal/taskCases.js"
import { cases as topupIntentCases } from "./internal/topupIntentCases.js"
import { unscopedCases } from "./internal/unscopedCases.js"
import { webhookCases } from "./internal/webhookCases.js"

/** @since 0.1.0 @category models */
export interface SuiteOptions {
  /** How many requests race in the concurrency cases. Default 16. */
  readonly concurrency?: number
  /** Per-case timeout in ms. Default 30,000. */
  readonly timeout?: number
}

/**
 * Register the contract cases for an adapter under `describe(name)`. The layer is built
 * once for the whole suite; every case makes its own merchants, ids and keys.
 *
 * @since 0.1.0 @category suites
 */
export const suite = <E>(
  name: string,
  storage: Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, E>,
  options: SuiteOptions = {}
): void => {
  const concurrency = options.concurrency ?? 16
  describe(`storage contract: ${name}`, () => {
    // Live services: adapters may time out or pool connections on the real clock.
    layer(storage, { excludeTestServices: true, timeout: options.timeout ?? 30_000 })((it) => {
      describe("payment intents", () => paymentIntentCases(it))
      describe("the rule of reads", () => readCases(it))
      describe("idempotency keys", () => idempotencyCases(it, concurrency))
      describe("merchant_reference", () => referenceCases(it, concurrency))
      describe("purging expired claims", () => purgeCases(it))
      describe("merchants and API keys", () => merchantCases(it, concurrency))
      describe("unscoped tables: findBy, walk, Delete", () => unscopedCases(it))
      describe("tasks and events", () => taskCases(it, concurrency))
      describe("webhook deliveries among the tasks", () => deliveryCases(it, concurrency))
      describe("top-up intents", () => topupIntentCases(it))
      describe("refunds", () => refundCases(it, concurrency))
      describe("balances", () => balanceCases(it, concurrency))
      describe("provider notifications", () => providerNotificationCases(it, concurrency))
      describe("provider attempts", () => providerAttemptCases(it, concurrency))
      describe("events and webhook tools", () => webhookCases(it))
      // Last: a purge deletes every due row of the store, whichever case wrote it.
      describe("retention", () => retentionCases(it))
    })
  })
}
