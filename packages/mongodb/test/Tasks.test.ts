import { describe, expect, it } from "@effect/vitest"
import { Task } from "@tender/core"
import { Effect, Stream } from "effect"
import type { Collection, Document } from "mongodb"
import { toDocument } from "../src/internal/documents.js"
import * as Tasks from "../src/internal/tasks.js"
import { matches, taskRecord } from "./fake.js"

const t0 = Date.UTC(2026, 10, 22)
const task = (over: Partial<Task.TaskRecord> = {}) => taskRecord(t0, over)
const claimable = (t: Task.TaskRecord, now: number) => matches(toDocument(Task.table, t), Tasks.claimFilter(now))

describe("tasks: claims", () => {
  it("a pending task is claimable once due, never before", () => {
    expect(claimable(task(), t0 - 1)).toBe(false)
    expect(claimable(task(), t0)).toBe(true)
  })

  it("a leased task is claimable only once its lease lapsed (its worker died)", () => {
    const leased = task({ leaseOwner: "w1", leaseUntil: t0 + 30_000 })
    expect(claimable(leased, t0 + 29_999)).toBe(false)
    expect(claimable(leased, t0 + 30_000)).toBe(true)
  })

  it("done and failed tasks are never claimed", () => {
    expect(claimable(task({ status: "done" }), t0 + 10 ** 9)).toBe(false)
    expect(claimable(task({ status: "failed" }), t0 + 10 ** 9)).toBe(false)
  })

  it("the claiming write sets the lease and counts one more attempt and one more version", () => {
    expect(Tasks.claimUpdate({ now: t0, owner: "w1", leaseMillis: 30_000, limit: 5 })).toStrictEqual({
      $set: { lease_owner: "w1", lease_until: new Date(t0 + 30_000), updated_at: new Date(t0) },
      $inc: { attempts: 1, version: 1 }
    })
  })

  it("the document after the claim, without _id; a candidate is taken only while still claimable (another worker may have claimed it first)", () => {
    expect(Tasks.claimOptions).toStrictEqual({ returnDocument: "after", projection: { _id: 0 } })
    const due = task({ id: "task_x" })
    expect(matches(toDocument(Task.table, due), Tasks.candidateFilter("task_x", t0))).toBe(true)
    expect(matches(toDocument(Task.table, { ...due, leaseOwner: "w2", leaseUntil: t0 + 60_000 }), Tasks.candidateFilter("task_x", t0))).toBe(false)
    expect(matches(toDocument(Task.table, due), Tasks.candidateFilter("task_y", t0))).toBe(false)
  })

  it("workers: the next due time is the earlier of the first unleased task's due time (in claim order) and the first lease to end, each read through an index", () => {
    expect(Tasks.firstUnleasedFilter).toStrictEqual({ status: "pending", lease_until: null })
    expect(Tasks.firstUnleasedOptions).toStrictEqual({ sort: { due_at: 1, id: 1 }, projection: { _id: 0, due_at: 1 } })
    // The leased ones: the partial `leased` index's own filter, so the server can use it.
    expect(Tasks.leasedPipeline).toStrictEqual([
      { $match: { status: "pending", lease_until: { $type: "date" } } },
      { $group: { _id: null, next: { $min: { $max: ["$due_at", "$lease_until"] } } } }
    ])
    expect(Tasks.earliest(new Date(t0 + 40_000), new Date(t0 + 65_000))).toBe(t0 + 40_000)
    expect(Tasks.earliest(undefined, new Date(t0 + 65_000))).toBe(t0 + 65_000)
    expect(Tasks.earliest(new Date(t0), undefined)).toBe(t0)
    expect(Tasks.earliest(undefined, undefined)).toBeUndefined()
  })

  it("tasks: the backlog groups pending tasks: due by now (and their earliest due time), webhook deliveries (and the oldest one's creation time)", () => {
    const now = t0 + 5
    expect(Tasks.backlogPipeline(now)[0]).toStrictEqual({ $match: { status: "pending" } })
    const group = (Tasks.backlogPipeline(now)[1] as { $group: Record<string, unknown> }).$group
    expect(group["due"]).toStrictEqual({ $sum: { $cond: [{ $lte: ["$due_at", new Date(now)] }, 1, 0] } })
    expect(group["oldestUndeliveredAt"]).toStrictEqual({ $min: { $cond: [{ $eq: ["$kind", "webhook.deliver"] }, "$created_at", null] } })
    expect(Tasks.backlogOf(undefined)).toStrictEqual({ due: 0, oldestDueAt: undefined, undeliveredWebhooks: 0, oldestUndeliveredAt: undefined })
    expect(Tasks.backlogOf({ due: 2, oldestDueAt: new Date(t0), undeliveredWebhooks: 1, oldestUndeliveredAt: new Date(t0 - 7) }))
      .toStrictEqual({ due: 2, oldestDueAt: t0, undeliveredWebhooks: 1, oldestUndeliveredAt: t0 - 7 })
  })

  it("wake-ups watch inserts due within the wake horizon (a later timer: never), and replacements that leave a task pending, unleased and due by the write (a claim is an update: never)", () => {
    const [stage] = Tasks.wakeupPipeline as ReadonlyArray<{ $match: { $or: ReadonlyArray<Record<string, unknown>> } }>
    expect(stage!.$match.$or[0]).toStrictEqual({
      operationType: "insert",
      "fullDocument.status": "pending",
      "fullDocument.lease_until": null,
      $expr: { $lte: ["$fullDocument.due_at", { $add: ["$fullDocument.updated_at", Task.wakeHorizonMillis] }] }
    })
    expect(stage!.$match.$or[1]).toStrictEqual({
      operationType: "replace",
      "fullDocument.status": "pending",
      "fullDocument.lease_until": null,
      $expr: { $lte: ["$fullDocument.due_at", "$fullDocument.updated_at"] }
    })
    expect(Tasks.wakeupPipeline).toHaveLength(1)
  })

  it("without change streams, wake-ups never come (workers poll)", async () => {
    const queue = Tasks.make({} as Collection<Document>, false)
    const first = await Effect.runPromise(Effect.timeout(Stream.runHead(queue.wakeups), "20 millis").pipe(Effect.either))
    expect(first._tag).toBe("Left")
  })
})
