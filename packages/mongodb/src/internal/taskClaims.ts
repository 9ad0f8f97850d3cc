/**
 * The fair claim of the task queue on MongoDB (`Task.Tasks.claim`, docs/webhooks.md "Fairness"),
 * in bounded reads: every task document carries its pool (`pool`, `Task.poolOf`; a partial index
 * cannot say `kind: { $ne: … }`), and partial indexes on it serve each read:
 *
 * - the merchants with pending work in the pool, in the ring from the request's merchant: a sorted
 *   `$group` on the index's first field, which the server answers with a distinct scan (one key per
 *   merchant), at most `TaskFairness.ringSteps` on either side of the ring point;
 * - money: each merchant's first `limit` claimable tasks, earliest due first (`claim_money`);
 * - deliveries: each merchant's endpoints the same way (`claim_deliveries`), and each endpoint's
 *   first claimable deliveries up to its bound, less those in flight (`in_flight`), and no more of
 *   a merchant's than its own bound less its deliveries in flight (`merchant_in_flight`);
 * - the earliest due tasks of the pool (`pool_due`), after everything the ring found.
 *
 * Candidates are then taken one by one, in the port's order, with a conditional single-document
 * update; one another claimer took first is stepped over, and the candidates are read again while
 * the claim is short and some were lost, so concurrent claimers do not come back short. A failed
 * update ends the claim with what it has leased so far: those are returned, never dropped.
 */
import { Task, TaskFairness } from "@tender/core"
import { Effect } from "effect"
import type { Collection, Document, Filter, FindOneAndUpdateOptions, UpdateFilter } from "mongodb"
import { readRecord } from "./documents.js"
import { fold } from "./errors.js"

/** The document field holding a task's pool. */
export const poolField = "pool"

/** Pending, due by `now`, and not leased, or leased until no later than `now` (its worker died). */
export const claimFilter = (now: number): Filter<Document> => ({
  status: "pending",
  due_at: { $lte: new Date(now) },
  $or: [{ lease_until: null }, { lease_until: { $lte: new Date(now) } }]
})

/** The lease, one more attempt and a new version, in the claiming write itself. */
export const claimUpdate = (req: Task.ClaimRequest): UpdateFilter<Document> => ({
  $set: { lease_owner: req.owner, lease_until: new Date(req.now + req.leaseMillis), updated_at: new Date(req.now) },
  $inc: { attempts: 1, version: 1 }
})

/** The claiming write on one candidate: the document after it, without `_id`. */
export const claimOptions: FindOneAndUpdateOptions = {
  returnDocument: "after",
  projection: { _id: 0 }
}

/** A candidate claimed by id, only while it is still claimable (another worker may have taken it). */
export const candidateFilter = (id: string, now: number): Filter<Document> => ({ id, ...claimFilter(now) })

/** Pending tasks of a pool (each claim index's own filter, so the server can use it). */
export const pending = (pool: Task.Pool): Filter<Document> => ({ status: "pending", pool })

/** Claimable at `now`: due, its lease free or lapsed. */
const claimable = (now: number): Filter<Document> => ({
  due_at: { $lte: new Date(now) },
  $or: [{ lease_until: null }, { lease_until: { $lte: new Date(now) } }]
})

/**
 * The ids of `field` in the ring from `from`, within `scope`: those above it, then from the lowest
 * up to it, `steps` at most on either side. Each is a sorted `$group` on the index's leading
 * fields, which the server answers with a distinct scan.
 */
export const ringPipelines = (pool: Task.Pool, scope: Filter<Document>, field: string, from: string, steps: number) => {
  const side = (range: Document): ReadonlyArray<Document> => [
    { $match: { ...pending(pool), ...scope, [field]: range } },
    { $sort: { ...Object.fromEntries(Object.keys(scope).map((k) => [k, 1])), [field]: 1 } },
    { $group: { _id: `$${field}` } },
    { $sort: { _id: 1 } },
    { $limit: steps }
  ]
  return { up: side({ $gt: from }), down: side({ $lte: from }) }
}

/** A pool's claimable tasks in one scope (a merchant, or one of its endpoints), earliest due first. */
export const candidatesFilter = (pool: Task.Pool, scope: Filter<Document>, now: number): Filter<Document> => ({
  ...pending(pool),
  ...scope,
  ...claimable(now)
})

/**
 * The deliveries whose lease holds at `now` in `scope`: an endpoint's (`{ target_id }`, on
 * `in_flight`) or a merchant's (`{ merchant_id }`, on `merchant_in_flight`), their in-flight count.
 */
export const inFlightFilter = (scope: { readonly target_id: string } | { readonly merchant_id: string }, now: number): Filter<Document> => ({
  ...pending("webhooks"),
  ...scope,
  lease_until: { $type: "date", $gt: new Date(now) },
  // A merchant's room does not count deliveries held back by an endpoint's back-off; an endpoint's does.
  ...("merchant_id" in scope ? { lease_owner: { $nin: [TaskFairness.backoffOwner] } } : {})
})

const dueOrder = { due_at: 1, id: 1 } as const

const call = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })

/** How many times a claim reads candidates again when others took some of its first ones. */
export const maxReads = 3

/** The claim of one pool on the tasks collection. */
export const claimPool = (tasks: Collection<Document>, req: Task.ClaimRequest, pool: Task.Pool) =>
  Effect.gen(function*() {
    const steps = TaskFairness.ringSteps(req.limit)
    const ring = (scope: Filter<Document>, field: string, from: string) =>
      Effect.map(
        call("claim ring", () => {
          const { down, up } = ringPipelines(pool, scope, field, from, steps)
          return Promise.all([tasks.aggregate([...up]).toArray(), from === "" ? Promise.resolve([]) : tasks.aggregate([...down]).toArray()])
        }),
        ([above, below]) => [...above, ...below].map((d) => String(d["_id"]))
      )
    const ids = (filter: Filter<Document>, limit: number) =>
      limit <= 0
        ? Effect.succeed([] as Array<string>)
        : Effect.map(
          call("claim candidates", () => tasks.find(filter, { sort: dueOrder, limit, projection: { _id: 0, id: 1 } }).toArray()),
          (docs) => docs.map((d) => String(d["id"]))
        )
    /** How many more deliveries `scope` may have leased under `bound`: the limit when there is no bound. */
    const room = (scope: { readonly target_id: string } | { readonly merchant_id: string }, bound: number | undefined) =>
      pool === "money" || bound === undefined
        ? Effect.succeed(req.limit)
        : Effect.map(
          call("claim in flight", () => tasks.countDocuments(inFlightFilter(scope, req.now), { limit: bound })),
          (n) => Math.min(req.limit, bound - n)
        )
    const laneIds = (merchant: string, target: string) =>
      Effect.flatMap(room({ target_id: target }, req.perEndpoint), (n) => ids(candidatesFilter(pool, { merchant_id: merchant, target_id: target }, req.now), n))
    const read = Effect.gen(function*() {
      const merchants = yield* ring({}, "merchant_id", req.ring?.merchant ?? "")
      const perMerchant = yield* Effect.forEach(merchants, (merchant) =>
        Effect.flatMap(room({ merchant_id: merchant }, req.perMerchant), (n) =>
          n <= 0
            ? Effect.succeed({ lanes: [] as Array<Array<string>>, room: 0 })
            : pool === "money"
            ? Effect.map(ids(candidatesFilter(pool, { merchant_id: merchant }, req.now), req.limit), (own) => ({ lanes: [own], room: n }))
            : Effect.flatMap(
              ring({ merchant_id: merchant }, "target_id", req.ring?.endpoint ?? ""),
              (targets) => Effect.map(Effect.forEach(targets, (target) => laneIds(merchant, target), { concurrency: 8 }), (lanes) => ({ lanes, room: n }))
            )), { concurrency: 8 })
      const served = perMerchant.map((m) => ({ lanes: m.lanes.filter((l) => l.length > 0), room: m.room })).filter((m) => m.lanes.length > 0)
      const fair = TaskFairness.roundRobin(served.map((m) => m.lanes), req.limit * 2, served.map((m) => m.room))
      // Beyond the ring's steps, money takes the earliest due; deliveries do not (their bound is per endpoint).
      const spare = pool === "money" ? yield* ids(candidatesFilter(pool, {}, req.now), req.limit) : []
      return [...new Set([...fair, ...spare])]
    })
    const claimed: Array<Task.TaskRecord> = []
    for (let reads = 0; reads < maxReads && claimed.length < req.limit; reads++) {
      const candidates = (yield* read).filter((id) => !claimed.some((t) => t.id === id))
      let lost = 0
      for (const id of candidates) {
        if (claimed.length >= req.limit) break
        const taken = yield* Effect.either(call("claim task", () => tasks.findOneAndUpdate(candidateFilter(id, req.now), claimUpdate(req), claimOptions)))
        // A failed update: what is leased already is returned (its lease would otherwise hold it idle).
        if (taken._tag === "Left") {
          if (claimed.length === 0) return yield* Effect.fail(taken.left)
          return claimed
        }
        if (taken.right === null) lost++
        else claimed.push(yield* readRecord(Task.table, taken.right))
      }
      if (lost === 0) break
    }
    return claimed
  })

/**
 * Pending tasks written before documents carried their pool get it, once, at setup (the claim's
 * indexes and reads select on it): a pipeline update, the pool derived as `Task.poolOf` derives it.
 */
export const backfillPools = (tasks: Collection<Document>) =>
  call("give pending tasks their pool", () =>
    tasks.updateMany({ status: "pending", pool: { $exists: false } }, [{
      $set: {
        pool: {
          $cond: [{ $and: [{ $eq: ["$kind", "webhook.deliver"] }, { $ne: [{ $ifNull: ["$target_id", null] }, null] }] }, "webhooks", "money"]
        }
      }
    }]))
