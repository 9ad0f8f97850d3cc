/**
 * Durable work (a transactional outbox): a task is written in the same atomic commit as the
 * state change that causes it; workers claim due tasks under a lease, run them, and complete
 * or reschedule them with a versioned write. A task is never lost (a worker that dies leaves
 * its lease to lapse and the task to be claimed again) and its effect applies at most once
 * (completing it is a guarded write in the same commit as its effect, so a second run's
 * commit is refused). Timers are tasks with a due time.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Schema } from "effect"
import type * as Stream from "effect/Stream"
import * as Telemetry from "../observability/Telemetry.js"
import { IdGenerator } from "../resources/Ids.js"
import type { Environment } from "../resources/Schemas.js"
import type { Write } from "./Storage.js"
import type { StorageError } from "./StorageError.js"
import * as Table from "./Table.js"

/** The id prefix of tasks. @since 0.1.0 */
export const idPrefix = "task_"

/**
 * Every kind of task, a closed union: a worker dispatches on it exhaustively.
 *
 * @since 0.1.0 @category models
 */
export const Kind = Schema.Literal(
  /** Ask the provider whether the payer paid (4.5). */
  "payment_intent.confirm",
  /** Ask the provider for the status of a payment it is still processing. */
  "payment_intent.poll",
  /** Submit the attached receipt to the provider (4.4). */
  "payment_intent.submit_receipt",
  /** Move the intent to `expired` when its payer action expires. */
  "payment_intent.expire",
  /** Tell the provider a payment intent was canceled, so its payer action stops being payable (D10). */
  "payment_intent.cancel",
  /** Cancel a payment a provider may hold for a create whose answer was lost (`ProviderAttempt`). */
  "provider_attempt.cancel",
  /** Send a pending refund to the payment's provider (D10). */
  "refund.send",
  /** Send an approved payout to its provider (D8). */
  "payout_intent.send",
  /** Ask the provider whether the payer of a top-up paid (2.5). */
  "topup_intent.poll",
  /** Submit a top-up's receipt to its provider (`manual_receipt`). */
  "topup_intent.submit_receipt",
  /** Move a top-up to `expired` at its `expires_at`. */
  "topup_intent.expire",
  /** Deliver an event (`resourceId`) to a webhook endpoint (`targetId`) (D7). */
  "webhook.deliver",
  /** Apply a stored provider notification (`resourceId`) to the object it names (D11). */
  "provider_notice.apply"
)
/** @since 0.1.0 @category models */
export type Kind = typeof Kind.Type

/** Where a task stands. @since 0.1.0 @category models */
export const TaskStatus = Schema.Literal("pending", "done", "failed")

/** The stored task. @since 0.1.0 @category models */
export const TaskRecord = Schema.Struct({
  ...Table.scopeFields,
  kind: Kind,
  /** The resource the task acts on. */
  resourceId: Schema.String,
  /** What it acts towards, for kinds that have one: the webhook endpoint of a delivery. */
  targetId: Table.OrNull(Schema.String),
  status: TaskStatus,
  /** When it may run next. */
  dueAt: Table.Millis,
  /** How many times it was claimed. */
  attempts: Table.Integer,
  /** The claim: the worker holding it and until when; a lapsed lease may be claimed again. */
  leaseOwner: Table.OrNull(Schema.String),
  leaseUntil: Table.OrNull(Table.Millis),
  lastError: Table.OrNull(Schema.String),
  /**
   * The W3C `traceparent` of the span that wrote the task, when the host traces: its runs join
   * that trace (docs/observability.md). Null with tracing off.
   */
  traceparent: Table.OrNull(Schema.String),
  ...Table.changeFields
})
/** @since 0.1.0 @category models */
export type TaskRecord = typeof TaskRecord.Type

/**
 * How tasks are stored. One pending delivery per (event, endpoint): a delivery already queued is
 * not queued again (a resend of it while it waits is refused by the store, docs/webhooks.md).
 *
 * @since 0.1.0 @category models
 */
export const table = Table.make({
  name: "tasks",
  idPrefix,
  record: TaskRecord,
  unique: [{ name: "pending_delivery", fields: ["resourceId", "targetId"], where: { kind: "webhook.deliver", status: "pending" } }],
  // Finished tasks, from when they finished; a pending one is work still to do and never purged.
  retention: { from: "updatedAt", keep: { field: "status", value: "pending" } }
})

/**
 * The two pools of work, each run from worker slots of its own (`Workers`): `money`, every task
 * that moves a payment, refund, payout or top-up (provider notices, confirms and polls, sends,
 * expiries, receipts), and `webhooks`, the deliveries of events to endpoints. Deliveries wait on
 * receivers Tender does not control; a slot they hold is never one money work needs.
 *
 * @since 0.1.0 @category models
 */
export type Pool = "money" | "webhooks"

/** The pool a task runs in: a delivery to an endpoint is a webhook's, every other task money's. @since 0.1.0 */
export const poolOf = (task: Pick<TaskRecord, "kind" | "targetId">): Pool => task.kind === "webhook.deliver" && task.targetId !== null ? "webhooks" : "money"

/**
 * The lane a task is claimed in, inside its merchant: a webhook delivery's is its endpoint, every
 * other task is a lane of its own. Claims go round the merchants, then round each merchant's lanes
 * (`Tasks.claim`), so neither a merchant's backlog nor one endpoint's holds back anyone else.
 *
 * @since 0.1.0
 */
export const laneOf = (task: Pick<TaskRecord, "id" | "kind" | "targetId">): string =>
  task.kind === "webhook.deliver" && task.targetId !== null ? task.targetId : task.id

/**
 * The deliveries one endpoint may have in flight at once, as workers claim them: an endpoint that
 * hangs holds at most this many delivery slots, whatever its backlog (docs/webhooks.md, "Fairness").
 *
 * @since 0.1.0
 */
export const inFlightPerEndpoint = 2

/** A new pending task, due at `dueAt`. @since 0.1.0 @category constructors */
export const make = (options: {
  readonly merchantId: string
  readonly environment: Environment
  readonly kind: Kind
  readonly resourceId: string
  readonly targetId?: string | undefined
  readonly dueAt: number
  readonly now: number
}): Effect.Effect<TaskRecord, never, IdGenerator> =>
  Effect.zipWith(IdGenerator.pipe(Effect.flatMap((ids) => ids.make(idPrefix))), Telemetry.traceparent, (id, traceparent) =>
    Table.construct(TaskRecord, {
      id,
      merchantId: options.merchantId,
      environment: options.environment,
      kind: options.kind,
      resourceId: options.resourceId,
      targetId: options.targetId ?? null,
      status: "pending",
      dueAt: options.dueAt,
      attempts: 0,
      traceparent,
      createdAt: options.now,
      updatedAt: options.now,
      version: 1
    }))

/**
 * How far ahead a timer must fall due to need a wake-up: an idle worker looks at `nextDue` at least
 * this often on its own (`WorkerOptions.pollMillis` is capped by it), so a timer due later is found
 * and planned for by that look, and its insert wakes nobody.
 *
 * @since 0.1.0
 */
export const wakeHorizonMillis = 5_000

/**
 * Whether committing `write` must wake idle workers in every process (`Tasks.wakeups`): a task
 * inserted pending and due within `wakeHorizonMillis` of its writing (due now, or a timer so near
 * that no worker's own look would come first), or a task updated to pending, free of any lease and
 * due by the time of the write (released, brought forward). A timer due later (a payer action's
 * expiry, written with every create), a claim, a completion and a worker's own reschedule for
 * later wake nobody: the workers' own looks find them in time.
 *
 * @since 0.1.0
 */
export const wakesWorkers = (write: Write): boolean => {
  if ((write._tag !== "Insert" && write._tag !== "Update") || write.table.name !== table.name) return false
  const task = write.record as TaskRecord
  return task.status === "pending" && task.leaseUntil === null &&
    task.dueAt <= task.updatedAt + (write._tag === "Insert" ? wakeHorizonMillis : 0)
}

/** @since 0.1.0 @category models */
export interface ClaimRequest {
  readonly now: number
  /** Who claims: written on the task, for the host's logs. */
  readonly owner: string
  /** How long the claim holds: the task is claimed again when it lapses. */
  readonly leaseMillis: number
  readonly limit: number
  /** Which pool to claim from (`poolOf`); both when absent, money first. */
  readonly pool?: Pool | undefined
  /**
   * Where this claim's rings start: the first merchant with an id above `merchant` comes first,
   * wrapping round, and in each merchant the first endpoint above `endpoint`. Workers pass the
   * last merchant their previous claim served (so the ring turns in every process, no cursor
   * shared) and a random endpoint id (`TaskFairness.randomEndpoint`: endpoint ids are random).
   * From the lowest id when absent.
   */
  readonly ring?: { readonly merchant?: string | undefined; readonly endpoint?: string | undefined } | undefined
  /**
   * At most this many deliveries of one endpoint (`inFlightPerEndpoint`), and of one merchant (so its
   * endpoints never fill the delivery slots: `TaskFairness.merchantShare`), leased at once, counting
   * those leased before this claim whose lease still holds. Unbounded when absent.
   */
  readonly perEndpoint?: number | undefined
  readonly perMerchant?: number | undefined
}

/**
 * The task queue port, implemented by every storage adapter beside `Storage`.
 *
 * @since 0.1.0 @category tags
 */
export class Tasks extends Context.Tag("@tender/core/Tasks")<Tasks, {
  /**
   * Claim up to `limit` pending tasks of `pool` due by `now` whose lease is free or lapsed, fairly:
   * round the merchants with claimable tasks first (in the ring from `ring`), one task each before
   * any merchant's second; what each merchant gets goes round its lanes (`laneOf`) in the same
   * ring (a delivery's endpoint; any other task is a lane of its own, so its tasks go earliest due
   * first), each lane's earliest due task first (ties by id). No endpoint gets more than `perEndpoint`
   * deliveries leased at once, no merchant more than `perMerchant`. Each is returned with its lease
   * set, `attempts` one higher and `version` one higher, in claim order. Two workers never hold one task at once.
   * Reads are bounded by `limit`, never by a merchant's backlog or its number of endpoints
   * (`TaskFairness.ringSteps`).
   */
  readonly claim: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<TaskRecord>, StorageError>
  /** When the earliest pending task falls due (its lease's end, if leased), if any. */
  readonly nextDue: Effect.Effect<number | undefined, StorageError>
  /**
   * Signals that new work may be due, in every process on the store: each commit with a write
   * that `wakesWorkers` emits once it is applied, and a signal that was down emits once it is up
   * again (what was written meanwhile is looked at). Best effort: workers still look at `nextDue`
   * on their own schedule.
   */
  readonly wakeups: Stream.Stream<void>
  /** What is waiting at `now`, for the host's gauges (sampled on an interval, never per request). */
  readonly backlog: (now: number) => Effect.Effect<Backlog, StorageError>
}>() {}

/**
 * The queue's backlog at a time: pending tasks due (leased ones included: they are due and not
 * done), the earliest due time among them, and the pending webhook deliveries with the creation
 * time of the oldest (written with its event, so the event's time).
 *
 * @since 0.1.0 @category models
 */
export interface Backlog {
  readonly due: number
  readonly oldestDueAt: number | undefined
  readonly undeliveredWebhooks: number
  readonly oldestUndeliveredAt: number | undefined
}

/**
 * The delay before the attempt after `attempts` failed ones: 1 s doubling to at most 1 h,
 * with up to 20 % random jitter so failing tasks do not retry in step.
 *
 * @since 0.1.0
 */
export const backoff = (attempts: number, random: number = Math.random()): Duration.Duration => {
  const base = Math.min(3_600_000, 1000 * 2 ** Math.max(0, attempts - 1))
  return Duration.millis(Math.round(base * (1 + 0.2 * random)))
}

/**
 * What running a task decided: the writes to commit with its completion, or a time to run
 * again (with the error that made it wait, if any).
 *
 * @since 0.1.0 @category models
 */
export type Outcome =
  | {
    readonly _tag: "Done"
    readonly writes: ReadonlyArray<Write>
    /** Run once the writes are committed with the task's completion (a count, a log line), never before. */
    readonly after?: Effect.Effect<void> | undefined
  }
  | Retry
  /** Stop trying: the task is marked failed, with `writes` (say, the record of the last attempt). */
  | { readonly _tag: "GiveUp"; readonly error: string; readonly writes?: ReadonlyArray<Write> | undefined }
  /** Not now, not an attempt: run again at `dueAt`; `hold`: leased till then, filling its endpoint's room (`TaskFairness.backoffOwner`). */
  | { readonly _tag: "Defer"; readonly dueAt: number; readonly hold?: boolean | undefined }

/** @since 0.1.0 @category models */
export interface Retry {
  readonly _tag: "Retry"
  readonly dueAt: number
  readonly error: string | null
  /** Written with the new due time (say, the record of the failed attempt). */
  readonly writes?: ReadonlyArray<Write> | undefined
}

/** Run again after the back-off its attempts have earned. @since 0.1.0 @category constructors */
export const retry = (task: TaskRecord, now: number, error: string | null): Retry => ({
  _tag: "Retry",
  dueAt: now + Duration.toMillis(backoff(task.attempts)),
  error
})

/** The task is finished: commit `writes` with its completion. @since 0.1.1 @category constructors */
export const done = (writes: ReadonlyArray<Write> = []): Outcome => ({ _tag: "Done", writes })

/** After this many attempts a task is marked failed and left for the host to inspect. @since 0.1.0 */
export const maxAttempts = 25

/** A claimed task with its lease let go and its version one higher: what every end of a claim writes. */
const unleased = (task: TaskRecord, now: number) => ({ ...task, leaseOwner: null, leaseUntil: null, updatedAt: now, version: task.version + 1 })

/** Complete a claimed task: a versioned write over the claim, so only its holder can complete it. @since 0.1.0 */
export const completed = (task: TaskRecord, now: number): TaskRecord => ({ ...unleased(task, now), status: "done", lastError: null })

/** Reschedule a claimed task to `dueAt`, releasing its lease (or mark it failed after `maxAttempts`). @since 0.1.0 */
export const rescheduled = (task: TaskRecord, now: number, dueAt: number, error: string | null): TaskRecord => ({
  ...unleased(task, now),
  status: error !== null && task.attempts >= maxAttempts ? "failed" : "pending",
  dueAt,
  lastError: error
})

/** Mark a claimed task failed: no more attempts; it stays for the host to inspect. @since 0.1.0 */
export const failed = (task: TaskRecord, now: number, error: string): TaskRecord => ({ ...unleased(task, now), status: "failed", lastError: error })

/** Release a claimed task at once, for another worker (a clean shutdown). @since 0.1.0 */
export const released = (task: TaskRecord, now: number): TaskRecord => ({ ...unleased(task, now), attempts: Math.max(0, task.attempts - 1) })
