/**
 * Contract cases for stored provider notices (D11): a notice round-trips, and a provider's
 * event id is stored once however many commits race to store it (each with its apply task, as
 * `ProviderNotifications.receive` writes them): the notice's id is derived from (provider, event
 * id), and the pair is unique on its own.
 */
import { assert } from "@effect/vitest"
import { Ids, ProviderNotification, Storage, Task } from "@tender/core"
import { Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, t0 } from "./fixtures.js"

/** Far past every window the task cases claim in: these tasks are never claimed by another case. */
const farDue = Date.UTC(2999, 0, 1)

const notice = (eventId: string): ProviderNotification.ProviderNotice => ({
  _tag: "PaymentSucceeded",
  eventId,
  providerPaymentId: "pay_ทดสอบ_1",
  paymentIntentId: `dord_${Ids.randomBase62()}`,
  amount: "999999999999999999",
  currency: "THB",
  environment: "test"
})

/** The apply task of a stored notice, as `receive` writes it. */
const applyTask = (record: ProviderNotification.NotificationRecord) =>
  Task.TaskRecord.make({
    id: `${Task.idPrefix}${Ids.randomBase62()}`,
    merchantId: record.merchantId,
    environment: record.environment,
    kind: "provider_notice.apply",
    resourceId: record.id,
    status: "pending",
    dueAt: farDue,
    attempts: 0,
    createdAt: t0,
    updatedAt: t0,
    version: 1
  })

/** @internal */
export const cases = (it: ContractIt, concurrency: number) => {
  it.effect("D11 storage: a stored provider notice round-trips every field, its notice's keys in order", () =>
    Effect.gen(function*() {
      const provider = `prov_${Ids.randomBase62(8)}`
      const record = {
        ...ProviderNotification.received(provider, notice("evt_1"), t0),
        status: "mismatch" as const,
        resourceId: "dord_x",
        detail: "ทดสอบ",
        version: 2
      }
      yield* commit([Storage.Write.insert(ProviderNotification.table, record)])
      const read = Option.getOrThrow(yield* Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, record.id)))
      assert.deepStrictEqual(read, record)
      assert.deepStrictEqual(Object.keys(read.notice), Object.keys(record.notice))
    }))

  it.effect("D11 storage: one provider event id stored by racing commits is stored once, with one apply task", () =>
    Effect.gen(function*() {
      const provider = `prov_${Ids.randomBase62(8)}`
      const store = Effect.gen(function*() {
        const s = yield* Storage.Storage
        const record = ProviderNotification.received(provider, notice("evt_race"), t0)
        if (Option.isSome(yield* s.find(ProviderNotification.table, record.id))) return false
        // Let the other racers read first, as a network round trip does on a real store.
        yield* Effect.yieldNow()
        return yield* s.commit([Storage.Write.insert(ProviderNotification.table, record), Storage.Write.insert(Task.table, applyTask(record))]).pipe(
          Effect.as(true),
          Effect.catchTag("UniqueViolation", () => Effect.succeed(false))
        )
      })
      const stored = yield* Effect.all(Array.from({ length: concurrency }, () => store), { concurrency: "unbounded" })
      assert.strictEqual(stored.filter(Boolean).length, 1)
      const id = ProviderNotification.recordId(provider, "evt_race")
      const tasks = yield* Effect.flatMap(Storage.Storage, (s) =>
        s.list(Task.table, { merchantId: ProviderNotification.noMerchant, environment: "test", where: { resourceId: id }, limit: 100 }))
      assert.strictEqual(tasks.length, 1)
    }))

  it.effect("D11 storage: (provider, event id) is unique even under another id", () =>
    Effect.gen(function*() {
      const provider = `prov_${Ids.randomBase62(8)}`
      const first = ProviderNotification.received(provider, notice("evt_twice"), t0)
      yield* commit([Storage.Write.insert(ProviderNotification.table, first)])
      const again = yield* Effect.flip(
        commit([Storage.Write.insert(ProviderNotification.table, { ...first, id: `${ProviderNotification.idPrefix}${Ids.randomBase62()}` })])
      )
      assert.strictEqual(again._tag, "UniqueViolation")
    }))
}
