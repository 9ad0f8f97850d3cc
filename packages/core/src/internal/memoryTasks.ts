/**
 * The task queue of the in-memory store (`MemoryStorage`): the `Tasks` service over the rows of
 * `Task.table`, kept in step with every write to that table by `inserted` and `updated`.
 */
import { Effect, Stream } from "effect"
import type { StreamEmit } from "effect"
import * as Task from "../Task.js"
import type { Rows } from "./memoryRows.js"

/** The queue over `rows`, the store's rows of `Task.table`. */
export const make = (rows: Rows) => {
  const listeners = new Set<StreamEmit.Emit<never, never, void, void>>()

  // Pending tasks by (when claimable, id): a claim takes from the front, `nextDue` reads it, and
  // neither walks the tasks that are done or far in the future.
  const queue: Array<{ readonly at: number; readonly id: string }> = []
  /** When a pending task may next be claimed: its due time, or its lease's end if later. */
  const claimableAt = (t: Task.TaskRecord) => Math.max(t.dueAt, t.leaseUntil ?? 0)
  const queueIndex = (at: number, id: string) => {
    let lo = 0
    let hi = queue.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const e = queue[mid]!
      if (e.at < at || (e.at === at && e.id < id)) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const enqueue = (t: Task.TaskRecord) => {
    if (t.status === "pending") queue.splice(queueIndex(claimableAt(t), t.id), 0, { at: claimableAt(t), id: t.id })
  }
  const unqueue = (t: Task.TaskRecord) => {
    const i = queueIndex(claimableAt(t), t.id)
    if (queue[i]?.id === t.id) queue.splice(i, 1)
  }

  /**
   * The tasks a claim takes, in the order of the port: each lane's first claimable task, then each
   * lane's second, and so on, earliest due first within a round. The queue is walked from its front
   * (earliest due) while claimable; the walk stops early once `limit` lanes have their first task,
   * as nothing after it could come before them.
   */
  const roundTheLanes = (req: Task.ClaimRequest): ReadonlyArray<Task.TaskRecord> => {
    const seen = new Map<string, number>()
    const picked: Array<{ readonly rank: number; readonly task: Task.TaskRecord }> = []
    let firsts = 0
    for (const entry of queue) {
      if (entry.at > req.now || firsts >= req.limit) break
      const task = rows.byId.get(entry.id) as Task.TaskRecord
      const lane = Task.laneOf(task)
      const rank = (seen.get(lane) ?? 0) + 1
      seen.set(lane, rank)
      if (rank === 1) firsts++
      // A lane's task past `limit` can never be among the first `limit` claimed.
      if (rank <= req.limit) picked.push({ rank, task })
    }
    // A stable sort: within a round, the queue's order (earliest due, ties by id) stands.
    return picked.sort((a, b) => a.rank - b.rank).slice(0, req.limit).map((p) => p.task)
  }

  const tasks = {
    claim: (req: Task.ClaimRequest) =>
      Effect.sync(() => {
        const out: Array<Task.TaskRecord> = []
        for (const t of roundTheLanes(req)) {
          const claimed: Task.TaskRecord = {
            ...t,
            leaseOwner: req.owner,
            leaseUntil: req.now + req.leaseMillis,
            attempts: t.attempts + 1,
            updatedAt: req.now,
            version: t.version + 1
          }
          rows.byId.set(t.id, claimed)
          rows.place(claimed, true)
          unqueue(t)
          enqueue(claimed)
          out.push(claimed)
        }
        return out
      }),
    nextDue: Effect.sync(() => queue[0]?.at),
    // Walks the pending tasks: sampled on an interval for gauges, never on a request's path.
    backlog: (now: number) =>
      Effect.sync((): Task.Backlog => {
        let due = 0
        let oldestDueAt: number | undefined
        let undeliveredWebhooks = 0
        let oldestUndeliveredAt: number | undefined
        for (const entry of queue) {
          const t = rows.byId.get(entry.id) as Task.TaskRecord
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
      }),
    wakeups: Stream.async<void>((emit) => {
      listeners.add(emit)
      return Effect.sync(() => void listeners.delete(emit))
    })
  }

  return {
    tasks,
    /** A task was inserted: queue it. */
    inserted: enqueue,
    /** A commit wrote work idle workers must look at (`Task.wakesWorkers`): wake them. */
    wake: () => {
      for (const emit of listeners) void emit.single(undefined)
    },
    /** A task was replaced: its place in the queue follows. */
    updated: (before: Task.TaskRecord, after: Task.TaskRecord) => {
      unqueue(before)
      enqueue(after)
    }
  }
}
