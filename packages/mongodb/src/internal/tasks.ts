/**
 * The task queue (`Tasks`) on MongoDB. A claim reads its candidates round the lanes
 * (`candidatesPipeline`), then takes each with a conditional `findOneAndUpdate` (still pending,
 * due, its lease free or lapsed): it sets the lease and counts the attempt in the same
 * single-document write, so two workers never hold one task; it goes on up to the limit.
 * Wake-ups come from a change stream on the tasks collection (`wakeupPipeline`).
 */
import { Task } from "@tender/core"
import { Effect, Option, Stream } from "effect"
import type { Collection, Document, Filter, FindOneAndUpdateOptions, UpdateFilter } from "mongodb"
import { readRecord } from "./documents.js"
import { fold } from "./errors.js"

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

/**
 * The candidates of a claim, round the lanes (`Task.laneOf`): the claimable tasks, earliest due
 * first (the `claim` index), grouped by lane (a delivery's endpoint, else the task itself), each
 * lane's first `limit` numbered, then the first of every lane before any lane's second; ties by
 * due time and id. Read a few times `limit`, so a worker racing another still finds its own.
 */
export const candidatesPipeline = (now: number, limit: number): ReadonlyArray<Document> => [
  { $match: claimFilter(now) },
  { $sort: { due_at: 1, id: 1 } },
  {
    $group: {
      _id: { $cond: [{ $and: [{ $eq: ["$kind", "webhook.deliver"] }, { $ne: [{ $ifNull: ["$target_id", null] }, null] }] }, "$target_id", "$id"] },
      tasks: { $push: { id: "$id", due_at: "$due_at" } }
    }
  },
  { $project: { tasks: { $slice: ["$tasks", limit] } } },
  { $unwind: { path: "$tasks", includeArrayIndex: "rank" } },
  { $sort: { rank: 1, "tasks.due_at": 1, "tasks.id": 1 } },
  { $limit: limit * 4 },
  { $project: { _id: 0, id: "$tasks.id" } }
]

/**
 * When the earliest pending task may be claimed (`Tasks.nextDue`): the due time of the first task
 * nobody holds, or the end of a lease, whichever comes first. In two reads, each served by an
 * index, so a worker, which asks after every wake-up, never walks every pending task (there are as
 * many as open payment intents): the first unleased task in the claim order (the `claim` index),
 * and the leased ones, only the tasks being worked on (the partial `leased` index).
 */
export const firstUnleasedFilter: Filter<Document> = { status: "pending", lease_until: null }
export const firstUnleasedOptions = { sort: { due_at: 1, id: 1 }, projection: { _id: 0, due_at: 1 } } as const
export const leasedPipeline: ReadonlyArray<Document> = [
  { $match: { status: "pending", lease_until: { $type: "date" } } },
  { $group: { _id: null, next: { $min: { $max: ["$due_at", "$lease_until"] } } } }
]

/** A stored time as milliseconds; undefined when there is none. */
const millis = (v: unknown): number | undefined => (v instanceof Date ? v.getTime() : typeof v === "number" ? v : undefined)

/** The earlier of the two reads' times; undefined when neither found a task. */
export const earliest = (...values: ReadonlyArray<unknown>): number | undefined => {
  const times = values.map(millis).filter((v) => v !== undefined)
  return times.length === 0 ? undefined : Math.min(...times)
}

/** The backlog at `now` (`Tasks.backlog`): due tasks and pending deliveries, with their oldest times. */
export const backlogPipeline = (now: number): ReadonlyArray<Document> => {
  const due = { $lte: ["$due_at", new Date(now)] }
  const webhook = { $eq: ["$kind", "webhook.deliver"] }
  return [
    { $match: { status: "pending" } },
    {
      $group: {
        _id: null,
        due: { $sum: { $cond: [due, 1, 0] } },
        oldestDueAt: { $min: { $cond: [due, "$due_at", null] } },
        undeliveredWebhooks: { $sum: { $cond: [webhook, 1, 0] } },
        oldestUndeliveredAt: { $min: { $cond: [webhook, "$created_at", null] } }
      }
    }
  ]
}

/** A backlog row as the port reports it (no pending task: no row). */
export const backlogOf = (row: Document | undefined): Task.Backlog => ({
  due: typeof row?.["due"] === "number" ? row["due"] : 0,
  oldestDueAt: millis(row?.["oldestDueAt"]),
  undeliveredWebhooks: typeof row?.["undeliveredWebhooks"] === "number" ? row["undeliveredWebhooks"] : 0,
  oldestUndeliveredAt: millis(row?.["oldestUndeliveredAt"])
})

/**
 * Change events that may mean new work (`Task.wakesWorkers`): a task inserted, or one replaced
 * (a versioned update, internal/commit.ts) by a pending task free of any lease and due by the time
 * of the write (released, brought forward). A claim is an update, never a replacement: it wakes
 * nobody, and neither does a completion or a reschedule for later.
 */
export const wakeupPipeline: ReadonlyArray<Document> = [{
  $match: {
    $or: [
      { operationType: "insert" },
      {
        operationType: "replace",
        "fullDocument.status": "pending",
        "fullDocument.lease_until": null,
        $expr: { $lte: ["$fullDocument.due_at", "$fullDocument.updated_at"] }
      }
    ]
  }
}]

/** Claimed tasks in the order of the port: due time, then id. */
export const inClaimOrder = (tasks: ReadonlyArray<Task.TaskRecord>): ReadonlyArray<Task.TaskRecord> =>
  [...tasks].sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

const call = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })

/** The task queue on one collection; `changeStreams` says whether the deployment opens them. */
export const make = (tasks: Collection<Document>, changeStreams: boolean) =>
  Task.Tasks.of({
    claim: (req) =>
      Effect.gen(function*() {
        const candidates = yield* call("claim candidates", () => tasks.aggregate([...candidatesPipeline(req.now, req.limit)]).toArray())
        const claimed: Array<Task.TaskRecord> = []
        for (const candidate of candidates) {
          if (claimed.length >= req.limit) break
          const id = candidate["id"] as string
          const doc = yield* call("claim task", () => tasks.findOneAndUpdate(candidateFilter(id, req.now), claimUpdate(req), claimOptions))
          if (doc !== null) claimed.push(yield* readRecord(Task.table, doc))
        }
        return inClaimOrder(claimed)
      }),
    nextDue: call("next due task", () =>
      Promise.all([tasks.findOne(firstUnleasedFilter, firstUnleasedOptions), tasks.aggregate([...leasedPipeline]).toArray()])).pipe(
        Effect.map(([unleased, [leased]]) => earliest(unleased?.["due_at"], leased?.["next"]))
      ),
    backlog: (now) => call("task backlog", () => tasks.aggregate([...backlogPipeline(now)]).toArray()).pipe(Effect.map(([row]) => backlogOf(row))),
    wakeups: changeStreams
      ? Stream.asyncScoped<void>((emit) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            const stream = tasks.watch([...wakeupPipeline])
            stream.on("change", () => void emit.single(undefined))
            // A change stream that fails is logged and ends: workers keep polling `nextDue`.
            stream.on("error", (error) =>
              void emit(Effect.zipRight(
                Effect.logWarning("tender: task wake-ups stopped; polling only", error),
                Effect.fail(Option.none())
              )))
            return stream
          }),
          (stream) => Effect.ignore(call("close change stream", () => stream.close()))
        )
      )
      : Stream.never
  })
