/**
 * Contract cases for webhook deliveries among the tasks (docs/webhooks.md, "Fairness"): claims go
 * round the lanes (`Task.laneOf`), so one endpoint's backlog never keeps another endpoint's
 * deliveries, or any other task, out of a claim; and one (event, endpoint) has at most one pending
 * delivery, so a delivery queued already is not queued again.
 */
import { assert } from "@effect/vitest"
import { Ids, Storage, Task, TaskFairness } from "@tender/core"
import { Effect } from "effect"
import type { ContractIt } from "./fixtures.js"
import { commit, freshScope } from "./fixtures.js"
import { freshWindow, newTask } from "./taskCases.js"

const { Write } = Storage

const delivery = (scope: ReturnType<typeof freshScope>, endpointId: string, dueAt: number, eventId = `evt_${Ids.randomBase62()}`) => ({
  ...newTask(scope, dueAt),
  kind: "webhook.deliver" as const,
  resourceId: eventId,
  targetId: endpointId
})

const claim = (now: number, owner: string, limit: number) => Effect.flatMap(Task.Tasks, (tasks) => tasks.claim({ now, owner, leaseMillis: 60_000, limit }))

/** @internal */
export const deliveryCases = (it: ContractIt, concurrency: number) => {
  it.effect(`tasks: ${concurrency} commits racing to queue one delivery of an event to an endpoint: exactly one is stored, the rest are UniqueViolation`, () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const eventId = `evt_${Ids.randomBase62()}`
      const results = yield* Effect.all(
        Array.from({ length: concurrency }, () => Effect.either(commit([Write.insert(Task.table, delivery(scope, "we_race", start, eventId))]))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => r._tag === "Right").length, 1)
      for (const r of results) if (r._tag === "Left") assert.strictEqual(r.left._tag, "UniqueViolation")
      const stored = yield* Effect.flatMap(
        Storage.Storage,
        (s) => s.list(Task.table, { ...scope, where: { resourceId: eventId, targetId: "we_race" }, limit: 100 })
      )
      assert.lengthOf(stored, 1)
    }))

  it.effect("tasks: claims go round the lanes: an endpoint's backlog due first does not keep another endpoint's delivery or another task out of a claim", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const flooding = freshScope()
      const other = freshScope()
      const backlog = Array.from({ length: 12 }, (_, i) => delivery(flooding, "we_flood", start + i))
      const waiting = delivery(other, "we_other", start + 100)
      const expire = newTask(other, start + 101)
      yield* commit([...backlog, waiting, expire].map((t) => Write.insert(Task.table, t)))
      // First round: the first of each lane, earliest due first; then the backlog's second.
      const first = yield* claim(start + 200, "a", 4)
      assert.sameMembers(first.map((t) => t.id), [backlog[0]!.id, waiting.id, expire.id, backlog[1]!.id])
      // The rest of the backlog follows in due order.
      const rest = yield* claim(start + 200, "b", 100)
      assert.sameOrderedMembers(rest.map((t) => t.id), backlog.slice(2).map((t) => t.id))
    }))

  it.effect("tasks: one pending delivery per (event, endpoint): a second is a UniqueViolation; the same event to another endpoint, or again once the first is done, is not", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const first = delivery(scope, "we_a", start)
      yield* commit([Write.insert(Task.table, first)])
      const again = delivery(scope, "we_a", start, first.resourceId)
      const refused = yield* Effect.flip(commit([Write.insert(Task.table, again)]))
      assert.strictEqual(refused._tag, "UniqueViolation")
      yield* commit([Write.insert(Task.table, delivery(scope, "we_b", start, first.resourceId))])
      const [claimed] = (yield* claim(start, "a", 100)).filter((t) => t.id === first.id)
      assert.isDefined(claimed)
      // In flight is still pending: still refused.
      assert.strictEqual((yield* Effect.flip(commit([Write.insert(Task.table, again)])))._tag, "UniqueViolation")
      yield* commit([Write.update(Task.table, Task.completed(claimed!, start + 1), claimed!.version)])
      yield* commit([Write.insert(Task.table, again)])
    }))

  it.effect("tasks: a claim serves merchants round the ring before any merchant twice: one with 9 endpoints or 300 timers due gets no larger share than one with 1", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const big = freshScope()
      const small = freshScope()
      const timers = Array.from({ length: 300 }, (_, i) => newTask(big, start + i))
      const lone = newTask(small, start + 500)
      const hooks = Array.from({ length: 9 }, (_, i) => delivery(big, `we_big${i}`, start + i))
      const single = delivery(small, "we_small", start + 500)
      yield* commit([...timers, lone, ...hooks, single].map((t) => Write.insert(Task.table, t)))
      const money = yield* Effect.flatMap(Task.Tasks, (tasks) => tasks.claim({ now: start + 1000, owner: "a", leaseMillis: 60_000, limit: 2, pool: "money" }))
      assert.sameMembers(money.map((t) => t.merchantId), [big.merchantId, small.merchantId])
      assert.include(money.map((t) => t.id), lone.id)
      const webhooks = yield* Effect.flatMap(
        Task.Tasks,
        (tasks) => tasks.claim({ now: start + 1000, owner: "a", leaseMillis: 60_000, limit: 2, pool: "webhooks" })
      )
      assert.sameMembers(webhooks.map((t) => t.merchantId), [big.merchantId, small.merchantId])
      assert.include(webhooks.map((t) => t.id), single.id)
      // The pools are apart: a money claim takes no delivery, a delivery claim no money task.
      assert.isTrue(money.every((t) => Task.poolOf(t) === "money") && webhooks.every((t) => Task.poolOf(t) === "webhooks"))
    }))

  it.effect("tasks: within a merchant a claim goes round its endpoints, and no endpoint gets more deliveries leased than its bound, counting those in flight", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const hanging = Array.from({ length: 10 }, (_, i) => delivery(scope, "we_hang", start + i))
      const healthy = Array.from({ length: 3 }, (_, i) => delivery(scope, "we_zok", start + 100 + i))
      yield* commit([...hanging, ...healthy].map((t) => Write.insert(Task.table, t)))
      const claim = (limit: number) =>
        Effect.flatMap(
          Task.Tasks,
          (tasks) => tasks.claim({ now: start + 1000, owner: "a", leaseMillis: 60_000, limit, pool: "webhooks", perEndpoint: 2, ring: { endpoint: "we_" } })
        )
      const first = yield* claim(3)
      // Round the endpoints: the hanging one's first, the healthy one's first, then the hanging one's second.
      assert.deepStrictEqual(first.map((t) => t.id), [hanging[0]!.id, healthy[0]!.id, hanging[1]!.id])
      // The hanging endpoint has 2 in flight: none more of it, whatever its backlog.
      const second = yield* claim(10)
      assert.deepStrictEqual(second.map((t) => t.id), [healthy[1]!.id])
    }))

  it.effect("tasks: no merchant gets more deliveries leased than its bound, however many endpoints it has, counting those in flight: another merchant's delivery still finds room", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const big = freshScope()
      const small = freshScope()
      const hooks = Array.from({ length: 9 }, (_, e) => Array.from({ length: 3 }, (_, i) => delivery(big, `we_big${e}`, start + i))).flat()
      const single = delivery(small, "we_small", start + 500)
      yield* commit([...hooks, single].map((t) => Write.insert(Task.table, t)))
      const claim = (now: number) =>
        Effect.flatMap(
          Task.Tasks,
          (tasks) => tasks.claim({ now, owner: "a", leaseMillis: 60_000, limit: 16, pool: "webhooks", perEndpoint: 2, perMerchant: 4 })
        )
      // Before the other merchant's delivery is due: 4 of the 27, though 9 endpoints have room for 18.
      const first = yield* claim(start + 10)
      assert.lengthOf(first, 4)
      assert.isTrue(first.every((t) => t.merchantId === big.merchantId))
      // At its bound, the merchant gets nothing more; the other merchant's delivery is claimed.
      const second = yield* claim(start + 1000)
      assert.deepStrictEqual(second.map((t) => t.id), [single.id])
      // One of its deliveries ends: it has room for one again.
      yield* commit([Write.update(Task.table, Task.completed(first[0]!, start + 1001), first[0]!.version)])
      const third = yield* claim(start + 1002)
      assert.deepStrictEqual(third.map((t) => t.merchantId), [big.merchantId])
      // Leases that lapsed (their worker died) hold nothing: the bound is the merchant's again.
      const fourth = yield* claim(start + 1002 + 60_000)
      assert.lengthOf(fourth.filter((t) => t.merchantId === big.merchantId), 4)
    }))

  it.effect("tasks: deliveries held back while their endpoint backs off fill that endpoint's room until the back-off ends, never their merchant's: its other endpoints keep flowing", () =>
    Effect.gen(function*() {
      const start = yield* freshWindow
      const scope = freshScope()
      const until = start + 5_000
      const held = Array.from(
        { length: 2 },
        (_, i) => ({ ...delivery(scope, "we_backoff", start + i), leaseOwner: TaskFairness.backoffOwner, leaseUntil: until })
      )
      const waiting = delivery(scope, "we_backoff", start + 2)
      const healthy = Array.from({ length: 3 }, (_, i) => delivery(scope, "we_healthy", start + i))
      yield* commit([...held, waiting, ...healthy].map((t) => Write.insert(Task.table, t)))
      const claim = (now: number) =>
        Effect.flatMap(
          Task.Tasks,
          (tasks) => tasks.claim({ now, owner: "a", leaseMillis: 60_000, limit: 16, pool: "webhooks", perEndpoint: 2, perMerchant: 2 })
        )
      // The backing-off endpoint is at its room; the merchant's room of 2 goes to its healthy endpoint.
      const during = yield* claim(start + 10)
      assert.sameMembers(during.map((t) => t.id), healthy.slice(0, 2).map((t) => t.id))
      // Once the back-off ends, the held deliveries are claimed again (the merchant's room is full until then).
      yield* Effect.forEach(during, (t) => commit([Write.update(Task.table, Task.completed(t, start + 20), t.version)]), { discard: true })
      const after = yield* claim(until)
      assert.sameMembers(after.map((t) => t.targetId), ["we_backoff", "we_healthy"])
      assert.include(after.map((t) => t.id), healthy[2]!.id)
    }))
}
