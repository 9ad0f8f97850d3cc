/**
 * The task queue (`Tasks`) on MongoDB. A claim reads its candidates fairly, in bounded reads
 * (internal/taskClaims.ts), then takes each with a conditional `findOneAndUpdate` (still pending,
 * due, its lease free or lapsed): it sets the lease and counts the attempt in the same
 * single-document write, so two workers never hold one task; it goes on up to the limit.
 * Wake-ups come from a change stream on the tasks collection (`wakeupPipeline`).
 */
import { Task } from "@tender/core"
import { Effect, Stream } from "effect"
import type { Collection, Document, Filter } from "mongodb"
import { fold } from "./errors.js"
import { claimPool } from "./taskClaims.js"
import * as Wakeups from "./wakeups.js"

export { candidateFilter, claimFilter, claimOptions, claimUpdate } from "./taskClaims.js"

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
 * Change events that may mean new work (`Task.wakesWorkers`): a task inserted pending and due
 * within the wake horizon of its writing (a timer due later wakes nobody), or one replaced
 * (a versioned update, internal/commit.ts) by a pending task free of any lease and due by the time
 * of the write (released, brought forward). A claim is an update, never a replacement: it wakes
 * nobody, and neither does a completion or a reschedule for later.
 */
export const wakeupPipeline: ReadonlyArray<Document> = [{
  $match: {
    $or: [
      {
        operationType: "insert",
        "fullDocument.status": "pending",
        "fullDocument.lease_until": null,
        $expr: { $lte: ["$fullDocument.due_at", { $add: ["$fullDocument.updated_at", Task.wakeHorizonMillis] }] }
      },
      {
        operationType: "replace",
        "fullDocument.status": "pending",
        "fullDocument.lease_until": null,
        $expr: { $lte: ["$fullDocument.due_at", "$fullDocument.updated_at"] }
      }
    ]
  }
}]

const call = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })

/** The task queue on one collection; `changeStreams` says whether the deployment opens them. */
export const make = (tasks: Collection<Document>, changeStreams: boolean) =>
  Task.Tasks.of({
    // Fairly, pool by pool (internal/taskClaims.ts); both pools when none is named, money first.
    claim: (req) =>
      req.pool !== undefined
        ? claimPool(tasks, req, req.pool)
        : Effect.flatMap(claimPool(tasks, req, "money"), (money) =>
          money.length >= req.limit
            ? Effect.succeed(money)
            : Effect.map(claimPool(tasks, { ...req, limit: req.limit - money.length }, "webhooks"), (hooks) => [...money, ...hooks])),
    nextDue: call(
      "next due task",
      () => Promise.all([tasks.findOne(firstUnleasedFilter, firstUnleasedOptions), tasks.aggregate([...leasedPipeline]).toArray()])
    ).pipe(
      Effect.map(([unleased, [leased]]) => earliest(unleased?.["due_at"], leased?.["next"]))
    ),
    backlog: (now) => call("task backlog", () => tasks.aggregate([...backlogPipeline(now)]).toArray()).pipe(Effect.map(([row]) => backlogOf(row))),
    wakeups: changeStreams
      ? Wakeups.listen(() => tasks.watch([...wakeupPipeline]))
      : Stream.never
  })
