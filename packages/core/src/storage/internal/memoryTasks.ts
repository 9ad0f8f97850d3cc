/**
 * The task queue of the in-memory store (`MemoryStorage`): the `Tasks` service over the rows of
 * `Task.table`, kept in step with every write to that table by `inserted` and `updated`.
 */
import { Effect, Stream } from "effect"
import type { StreamEmit } from "effect"
import * as Task from "../Task.js"
import * as TaskFairness from "../TaskFairness.js"
import type { Rows } from "./memoryRows.js"

interface Entry {
  readonly at: number
  readonly id: string
}

/** Entries by (when claimable, id), kept sorted by binary search. */
const sortedIndex = (list: ReadonlyArray<Entry>, at: number, id: string) => {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const e = list[mid]!
    if (e.at < at || (e.at === at && e.id < id)) lo = mid + 1
    else hi = mid
  }
  return lo
}
const add = (list: Array<Entry>, at: number, id: string) => list.splice(sortedIndex(list, at, id), 0, { at, id })
const remove = (list: Array<Entry>, at: number, id: string) => {
  const i = sortedIndex(list, at, id)
  if (list[i]?.id === id) list.splice(i, 1)
}

/** Ids kept sorted, for the rings. */
const addId = (ids: Array<string>, id: string) => {
  let lo = 0
  let hi = ids.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ids[mid]! < id) lo = mid + 1
    else hi = mid
  }
  if (ids[lo] !== id) ids.splice(lo, 0, id)
}
const removeId = (ids: Array<string>, id: string) => {
  const i = ids.indexOf(id)
  if (i >= 0) ids.splice(i, 1)
}

/** One lane's pending tasks: by when claimable, and those leased (in flight, or left by a dead worker). */
interface Lane {
  readonly entries: Array<Entry>
  readonly leased: Set<string>
}
/** A merchant's lanes in one pool: a delivery's endpoint; every other task shares one lane, in due order. */
interface Merchant {
  readonly lanes: Map<string, Lane>
  readonly ids: Array<string>
  /** Its tasks leased, of every lane: a delivery's counts against the merchant's bound. */
  readonly leased: Set<string>
}
interface Pool {
  readonly merchants: Map<string, Merchant>
  readonly ids: Array<string>
}

/**
 * The state of one queue: every pending task by (when claimable, id), for `nextDue`; and by pool,
 * merchant and lane, for claims: neither walks the tasks that are done, far in the future, or
 * another lane's.
 */
interface Queue {
  readonly rows: Rows
  readonly queue: Array<Entry>
  readonly pools: Record<Task.Pool, Pool>
  readonly listeners: Set<StreamEmit.Emit<never, never, void, void>>
}

/** When a pending task may next be claimed: its due time, or its lease's end if later. */
const claimableAt = (t: Task.TaskRecord) => Math.max(t.dueAt, t.leaseUntil ?? 0)
const laneKey = (t: Task.TaskRecord) => (Task.poolOf(t) === "webhooks" ? t.targetId! : "")

/** Puts `t` in, or takes it out of (`present` false), the indexes of pending tasks: a task not pending is in none. */
const index = (q: Queue, t: Task.TaskRecord, present: boolean) => {
  if (t.status !== "pending") return
  const at = claimableAt(t)
  const pool = q.pools[Task.poolOf(t)]
  if (present) {
    add(q.queue, at, t.id)
    join(pool, t, at)
  } else {
    remove(q.queue, at, t.id)
    leave(pool, t, at)
  }
}

/** `t`, claimable at `at`, joins its merchant's lane in `pool`, which it opens if need be. */
const join = (pool: Pool, t: Task.TaskRecord, at: number) => {
  let merchant = pool.merchants.get(t.merchantId)
  if (merchant === undefined) {
    merchant = { lanes: new Map(), ids: [], leased: new Set() }
    pool.merchants.set(t.merchantId, merchant)
    addId(pool.ids, t.merchantId)
  }
  const key = laneKey(t)
  let lane = merchant.lanes.get(key)
  if (lane === undefined) {
    lane = { entries: [], leased: new Set() }
    merchant.lanes.set(key, lane)
    addId(merchant.ids, key)
  }
  add(lane.entries, at, t.id)
  if (t.leaseUntil === null) return
  lane.leased.add(t.id)
  merchant.leased.add(t.id)
}

/** `t`, claimable at `at`, leaves its lane in `pool`; a lane, then a merchant, left empty is closed. */
const leave = (pool: Pool, t: Task.TaskRecord, at: number) => {
  const merchant = pool.merchants.get(t.merchantId)
  const key = laneKey(t)
  const lane = merchant?.lanes.get(key)
  if (merchant === undefined || lane === undefined) return
  remove(lane.entries, at, t.id)
  lane.leased.delete(t.id)
  merchant.leased.delete(t.id)
  if (lane.entries.length > 0) return
  merchant.lanes.delete(key)
  removeId(merchant.ids, key)
  if (merchant.lanes.size > 0) return
  pool.merchants.delete(t.merchantId)
  removeId(pool.ids, t.merchantId)
}

/** Tasks among `leased` (a lane's, a merchant's) whose lease holds at `now`; for a merchant, not those held back by a back-off. */
const inFlight = (rows: Rows, leased: Set<string>, now: number, heldBack = true) => {
  let n = 0
  for (const id of leased) {
    const t = rows.byId.get(id) as Task.TaskRecord
    if ((t.leaseUntil ?? 0) > now && (heldBack || t.leaseOwner !== TaskFairness.backoffOwner)) n++
  }
  return n
}

/**
 * The tasks a claim of one pool takes, in the port's order (`TaskFairness.roundRobin`). The walk
 * stops at the first `limit` merchants with something to claim (the first round of the claim
 * fills it), and in a merchant at the first lanes that fill its room: what a claim reads follows
 * its limit, not how many merchants or endpoints there are.
 */
const fairly = (q: Queue, pool: Task.Pool, req: Task.ClaimRequest, limit: number): ReadonlyArray<Task.TaskRecord> => {
  const { rows } = q
  const { ids, merchants } = q.pools[pool]
  const deliveries = pool === "webhooks"
  const perMerchant: Array<Array<Array<string>>> = []
  const rooms: Array<number> = []
  for (const merchantId of TaskFairness.ringOrder(ids, req.ring?.merchant)) {
    if (perMerchant.length >= limit) break
    const merchant = merchants.get(merchantId)!
    const merchantRoom = deliveries && req.perMerchant !== undefined
      ? Math.min(limit, req.perMerchant - inFlight(rows, merchant.leased, req.now, false))
      : limit
    if (merchantRoom <= 0) continue
    const lanes: Array<Array<string>> = []
    for (const key of TaskFairness.ringOrder(merchant.ids, req.ring?.endpoint)) {
      if (lanes.length >= merchantRoom) break
      const lane = merchant.lanes.get(key)!
      const room = deliveries && req.perEndpoint !== undefined ? Math.min(merchantRoom, req.perEndpoint - inFlight(rows, lane.leased, req.now)) : merchantRoom
      const taken: Array<string> = []
      for (const entry of lane.entries) {
        if (taken.length >= room || entry.at > req.now) break
        taken.push(entry.id)
      }
      if (taken.length > 0) lanes.push(taken)
    }
    if (lanes.length === 0) continue
    perMerchant.push(lanes)
    rooms.push(merchantRoom)
  }
  return TaskFairness.roundRobin(perMerchant, limit, rooms).map((id) => rows.byId.get(id) as Task.TaskRecord)
}

/** Leases `picked` to the claim's owner: each row written with its new lease and its place in the queue moved. */
const take = (q: Queue, req: Task.ClaimRequest, picked: ReadonlyArray<Task.TaskRecord>) =>
  picked.map((t) => {
    const claimed: Task.TaskRecord = {
      ...t,
      leaseOwner: req.owner,
      leaseUntil: req.now + req.leaseMillis,
      attempts: t.attempts + 1,
      updatedAt: req.now,
      version: t.version + 1
    }
    q.rows.byId.set(t.id, claimed)
    q.rows.place(claimed, true)
    index(q, t, false)
    index(q, claimed, true)
    return claimed
  })

/** A claim: of its pool, or of money then webhooks, which take what money left of the limit. */
const claim = (q: Queue, req: Task.ClaimRequest) => {
  if (req.pool !== undefined) return take(q, req, fairly(q, req.pool, req, req.limit))
  const money = take(q, req, fairly(q, "money", req, req.limit))
  return [...money, ...take(q, req, fairly(q, "webhooks", req, req.limit - money.length))]
}

// Walks the pending tasks: sampled on an interval for gauges, never on a request's path.
const backlog = (q: Queue, now: number): Task.Backlog => {
  let due = 0
  let oldestDueAt: number | undefined
  let undeliveredWebhooks = 0
  let oldestUndeliveredAt: number | undefined
  for (const entry of q.queue) {
    const t = q.rows.byId.get(entry.id) as Task.TaskRecord
    if (t.dueAt <= now) {
      due++
      oldestDueAt = Math.min(oldestDueAt ?? t.dueAt, t.dueAt)
    }
    if (t.kind === "webhook.deliver") {
      undeliveredWebhooks++
      oldestUndeliveredAt = Math.min(oldestUndeliveredAt ?? t.createdAt, t.createdAt)
    }
  }
  return { due, oldestDueAt, undeliveredWebhooks, oldestUndeliveredAt }
}

/** The queue over `rows`, the store's rows of `Task.table`. */
export const make = (rows: Rows) => {
  const q: Queue = {
    rows,
    queue: [],
    pools: { money: { merchants: new Map(), ids: [] }, webhooks: { merchants: new Map(), ids: [] } },
    listeners: new Set()
  }
  const { listeners } = q

  const tasks = {
    claim: (req: Task.ClaimRequest) => Effect.sync(() => claim(q, req)),
    nextDue: Effect.sync(() => q.queue[0]?.at),
    backlog: (now: number) => Effect.sync(() => backlog(q, now)),
    wakeups: Stream.async<void>((emit) => {
      listeners.add(emit)
      return Effect.sync(() => void listeners.delete(emit))
    })
  }

  return {
    tasks,
    /** A task was inserted: queue it. */
    inserted: (t: Task.TaskRecord) => index(q, t, true),
    /** A commit wrote work idle workers must look at (`Task.wakesWorkers`): wake them. */
    wake: () => {
      for (const emit of listeners) void emit.single(undefined)
    },
    /** A task was replaced: its place in the queue follows. */
    updated: (before: Task.TaskRecord, after: Task.TaskRecord) => {
      index(q, before, false)
      index(q, after, true)
    }
  }
}
