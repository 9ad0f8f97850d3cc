/**
 * Contract cases for provider attempts (`ProviderAttempt`, docs/reliability.md "Lost provider
 * answers"): an attempt round-trips every field (its request's keys in order, since the provider
 * compares the body sent again), moves under its version, and one attempt remembered by racing
 * requests is stored once with one cancel task (`ProviderAttempt.remember`).
 */
import { assert } from "@effect/vitest"
import { Ids, type Provider, ProviderAttempt, Storage, Task } from "@tender/core"
import { ProviderUnavailable } from "@tender/core/Provider"
import { Effect, Logger, LogLevel, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, t0 } from "./fixtures.js"

const request = (): Provider.ProviderPaymentRequest => ({
  paymentIntentId: `dord_${Ids.randomBase62()}`,
  environment: "test",
  amount: "999999999999999999",
  currency: "THB",
  country: "TH",
  providerMethod: "promptpay",
  payer: null,
  customer: { name: "สมชาย ใจดี", email: "somchai@example.com" },
  returnUrl: null
})

const find = (id: string) => Effect.flatMap(Storage.Storage, (s) => s.find(ProviderAttempt.table, id))

/** @internal */
export const cases = (it: ContractIt, concurrency: number) => {
  it.effect("D10 storage: a provider attempt round-trips every field, its request's keys in order, and moves under its version", () =>
    Effect.gen(function*() {
      const merchantId = `mer_${Ids.randomBase62(8)}`
      const attempt = ProviderAttempt.make({
        merchantId,
        provider: "stripe",
        providerAccount: "acct_1",
        request: request(),
        now: t0,
        detail: "no answer: timed out"
      })
      yield* commit([Storage.Write.insert(ProviderAttempt.table, attempt)])
      const read = Option.getOrThrow(yield* find(attempt.id))
      assert.deepStrictEqual(read, attempt)
      assert.deepStrictEqual(Object.keys(read.request), Object.keys(attempt.request))
      const paid = { ...read, state: "paid" as const, providerPaymentId: "pi_ทดสอบ", refundId: "rfnd_x", updatedAt: t0 + 1, version: 2 }
      yield* commit([Storage.Write.update(ProviderAttempt.table, paid, 1)])
      assert.deepStrictEqual(Option.getOrThrow(yield* find(attempt.id)), paid)
      const stale = yield* Effect.flip(commit([Storage.Write.update(ProviderAttempt.table, { ...read, state: "canceled" as const, version: 2 }, 1)]))
      assert.strictEqual(stale._tag, "StaleVersion")
    }))

  it.effect("D10 storage: one attempt remembered by racing requests is stored once, with one cancel task", () =>
    Effect.gen(function*() {
      const merchantId = `mer_${Ids.randomBase62(8)}`
      const sent = request()
      const lost = new ProviderUnavailable({ provider: "stripe", reason: "timed out" })
      yield* Effect.all(
        Array.from({ length: concurrency }, () => ProviderAttempt.remember(merchantId, "stripe", null, sent, lost)),
        { concurrency: "unbounded" }
        // The warning each remembered attempt logs is the product's, not this case's output.
      ).pipe(Effect.provide(Ids.layer), Logger.withMinimumLogLevel(LogLevel.None))
      const id = ProviderAttempt.idOf(sent.paymentIntentId, "stripe", null)
      assert.strictEqual(Option.getOrThrow(yield* find(id)).state, "open")
      const tasks = yield* Effect.flatMap(
        Storage.Storage,
        (s) => s.list(Task.table, { merchantId, environment: "test", where: { resourceId: id }, limit: 100 })
      )
      assert.deepStrictEqual(tasks.map((t) => t.kind), ["provider_attempt.cancel"])
    }))
}
