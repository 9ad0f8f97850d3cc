/**
 * Workers: the loop that runs durable tasks, as a layer the host runs inside its own
 * process. Any number of processes may run it on one store: claims are leases, so two
 * workers never hold one task, and a task whose worker died is claimed again when its
 * lease lapses. Closing the layer's scope stops claiming and lets the tasks in hand finish
 * (their provider calls are bounded by `Routing.providerTimeout`).
 *
 * @since 0.1.0
 */
import { Cause, Clock, Duration, Effect, Layer, Option, Queue, Stream } from "effect"
import * as PayoutIntents from "../balances/PayoutIntents.js"
import type { Merchants } from "../merchants/Merchants.js"
import * as Health from "../observability/Health.js"
import * as Telemetry from "../observability/Telemetry.js"
import * as PaymentIntentCancel from "../paymentIntents/PaymentIntentCancel.js"
import * as PaymentIntentLifecycle from "../paymentIntents/PaymentIntentLifecycle.js"
import type { ProviderRegistry } from "../providers/Provider.js"
import * as ProviderAttempts from "../providers/ProviderAttempts.js"
import * as ProviderNotifications from "../providers/ProviderNotifications.js"
import * as Refunds from "../refunds/Refunds.js"
import type { IdGenerator } from "../resources/Ids.js"
import { randomBase62 } from "../resources/Ids.js"
import { Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Task from "../storage/Task.js"
import * as TaskFairness from "../storage/TaskFairness.js"
import * as TopupIntents from "../topups/TopupIntents.js"
import type { WebhookConfig } from "../webhooks/WebhookConfig.js"
import * as WebhookDelivery from "../webhooks/WebhookDelivery.js"
import * as Background from "./Background.js"

/** @since 0.1.0 @category models */
export interface WorkerOptions {
  /** How many money tasks (`Task.poolOf`) one process runs at once: slots no delivery takes. Default 8. */
  readonly concurrency?: number | undefined
  /** How many webhook deliveries one process runs at once, in slots of their own. Default 16. */
  readonly deliveryConcurrency?: number | undefined
  /** How many deliveries one endpoint may have in flight at once, across processes. Default `Task.inFlightPerEndpoint` (2). */
  readonly perEndpoint?: number | undefined
  /**
   * How many deliveries one merchant may have in flight at once, across processes. Default half of
   * `deliveryConcurrency` (`TaskFairness.merchantShare`): one merchant's hanging endpoints never hold the whole pool.
   */
  readonly perMerchant?: number | undefined
  /** How long a claim holds before another worker may take the task. Default 60 s: longer than any task runs. */
  readonly leaseMillis?: number | undefined
  /**
   * The longest an idle worker waits before looking again, whatever the wake-ups say. Default 5 s,
   * and never more than `Task.wakeHorizonMillis`: a timer due later than that wakes nobody when
   * written, so this look is what finds it.
   */
  readonly pollMillis?: number | undefined
  /** Names this process on the tasks it claims. Default a random id. */
  readonly owner?: string | undefined
}

/** The services a task may use. @since 0.1.0 @category models */
export type Requirements =
  | Storage
  | Task.Tasks
  | ProviderRegistry
  | Merchants
  | IdGenerator
  | WebhookDelivery.WebhookSender
  | WebhookConfig

/**
 * Run one task to its outcome. Exhaustive over the task kinds: a new kind does not compile
 * until it is dispatched here.
 *
 * @since 0.1.0
 */
export const dispatch = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Requirements> => {
  switch (task.kind) {
    case "payment_intent.confirm":
    case "payment_intent.poll":
    case "payment_intent.expire":
    case "payment_intent.submit_receipt":
      return PaymentIntentLifecycle.run(task)
    case "payment_intent.cancel":
      return PaymentIntentCancel.run(task)
    case "provider_attempt.cancel":
      return ProviderAttempts.run(task)
    case "refund.send":
      return Refunds.send(task)
    case "payout_intent.send":
      return PayoutIntents.send(task)
    case "topup_intent.poll":
    case "topup_intent.submit_receipt":
    case "topup_intent.expire":
      return TopupIntents.run(task)
    case "webhook.deliver":
      return WebhookDelivery.run(task)
    case "provider_notice.apply":
      return ProviderNotifications.run(task)
  }
}

/** The writes that settle a task's outcome with its own versioned update. */
const writesOf = (task: Task.TaskRecord, outcome: Task.Outcome, now: number): ReadonlyArray<Write> => {
  switch (outcome._tag) {
    case "Done":
      return [...outcome.writes, Write.update(Task.table, Task.completed(task, now), task.version)]
    case "Retry":
      return [...(outcome.writes ?? []), Write.update(Task.table, Task.rescheduled(task, now, outcome.dueAt, outcome.error), task.version)]
    case "GiveUp":
      return [...(outcome.writes ?? []), Write.update(Task.table, Task.failed(task, now, outcome.error), task.version)]
    case "Defer":
      return [Write.update(
        Task.table,
        outcome.hold === true
          ? { ...Task.released(task, now), dueAt: outcome.dueAt, leaseOwner: TaskFairness.backoffOwner, leaseUntil: outcome.dueAt }
          : { ...Task.released(task, now), dueAt: outcome.dueAt },
        task.version
      )]
  }
}

/**
 * After a `StaleVersion` on a task's commit, read from the task's own record: it moved on (the
 * lease lapsed, another worker claimed the task and its run stands: nothing to do), or it did not
 * and a record the outcome changes was changed first by another task racing on it. Then the
 * outcome is dropped and the task is given back due at once, the lost race not counted as an
 * attempt: it decides afresh on what the winner wrote, rather than when its lease lapses.
 */
const afterStale = (task: Task.TaskRecord, now: number) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const stored = yield* storage.find(Task.table, task.id)
    if (Option.isSome(stored) && stored.value.version !== task.version) {
      return yield* Effect.logWarning("tender: task's lease lapsed and another worker took it over; this run's outcome is dropped", task.kind, task.id)
    }
    yield* storage.commit([Write.update(Task.table, { ...Task.released(task, now), dueAt: now }, task.version)])
    yield* Effect.logWarning(
      "tender: task lost a race: another task changed a record it writes first; this outcome is dropped and the task runs again at once",
      task.kind,
      task.id
    )
  }).pipe(
    Effect.catchAll(() =>
      Effect.logWarning("tender: task's outcome was not written: a record it writes changed under it; it runs again when its lease lapses", task.kind, task.id)
    )
  )

/**
 * The store refused a task's writes other than by an outage (a `StorageFailure`: a value it does
 * not keep, a constraint): the same writes would be refused on every run. A provider notice ends
 * `unusable` instead (`ProviderNotifications.refused`); any other task is rescheduled with
 * back-off and the error, so `Task.maxAttempts` bounds it, rather than claimed again each time its
 * lease lapses for ever. If that commit fails too, the lease lapses and the task runs again.
 */
const whenRefused = (task: Task.TaskRecord, error: StorageError, now: number) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    yield* Effect.logError("tender: the store refused a task's writes", task.kind, task.id, error)
    const instead: Task.Outcome = task.kind === "provider_notice.apply"
      ? yield* ProviderNotifications.refused(task, error)
      : Task.retry(task, now, `the store refused the task's writes (${error._tag})`)
    yield* storage.commit(writesOf(task, instead, now))
    if (instead._tag === "Done" && instead.after !== undefined) yield* instead.after
  }).pipe(Effect.catchAll((e) => Effect.logWarning("tender: task commit failed; it will run again", task.kind, task.id, e)))

/**
 * Run a claimed task and commit its outcome with the task's completion (or its new due time):
 * one versioned write over the claim, so a worker whose lease lapsed and whose task another
 * worker claimed commits nothing (`StaleVersion`). Returns whether the commit applied.
 *
 * @since 0.1.0
 */
export const runTask = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const outcome = yield* Effect.exit(dispatch(task))
    const now = yield* Clock.currentTimeMillis
    // Interrupted (the host shutting the workers down, docs/embedding.md): not a failure of the
    // task, so no attempt is spent and nothing is logged as an error; the claim is given back
    // for the next worker, at once rather than when the lease lapses.
    const interrupted = outcome._tag === "Failure" && Cause.isInterruptedOnly(outcome.cause)
    const writes = outcome._tag === "Success"
      ? writesOf(task, outcome.value, now)
      : interrupted
      ? [Write.update(Task.table, Task.released(task, now), task.version)]
      // A fault (a defect, the store failing): try again later, with back-off.
      : [Write.update(Task.table, Task.rescheduled(task, now, Task.retry(task, now, null).dueAt, "task failed; see the host's logs"), task.version)]
    if (outcome._tag === "Failure" && !interrupted) yield* Effect.logError("tender: task failed", task.kind, task.id, outcome.cause)
    const committed = yield* Effect.either(storage.commit(writes))
    if (committed._tag === "Right") {
      if (outcome._tag === "Success" && outcome.value._tag === "Done" && outcome.value.after !== undefined) yield* outcome.value.after
      return true
    }
    if (committed.left._tag === "StaleVersion") {
      yield* afterStale(task, now)
      return false
    }
    if (committed.left._tag === "UniqueViolation") {
      // The change was applied already (its event exists): the task is done, nothing else to write.
      yield* Effect.ignore(storage.commit([Write.update(Task.table, Task.completed(task, now), task.version)]))
      return false
    }
    if (committed.left._tag === "StorageFailure" && outcome._tag === "Success") {
      yield* whenRefused(task, committed.left, now)
      return false
    }
    // The store failed: the lease lapses and the task is claimed again.
    yield* Effect.logWarning("tender: task commit failed; it will run again", task.kind, task.id, committed.left)
    return false
  }).pipe(
    // The run joins the trace of the span that wrote the task (docs/observability.md).
    Telemetry.taskRun(task)
  )

/** The options as the loops read them. */
const settings = (options: WorkerOptions) => {
  const slots = { money: options.concurrency ?? 8, webhooks: options.deliveryConcurrency ?? 16 } satisfies Record<Task.Pool, number>
  return {
    owner: options.owner ?? `worker_${randomBase62(12)}`,
    leaseMillis: options.leaseMillis ?? 60_000,
    perEndpoint: options.perEndpoint ?? Task.inFlightPerEndpoint,
    perMerchant: options.perMerchant ?? TaskFairness.merchantShare(slots.webhooks),
    slots
  }
}

/** A fair claim of up to `limit` tasks of `pool` (`Task.Tasks.claim`); a failed claim claims nothing. */
const claimOf = (s: ReturnType<typeof settings>, pool: Task.Pool, limit: number, after: string | undefined) =>
  Effect.flatMap(Task.Tasks, (tasks) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      tasks.claim({
        now,
        owner: s.owner,
        leaseMillis: s.leaseMillis,
        limit,
        pool,
        perEndpoint: pool === "webhooks" ? s.perEndpoint : undefined,
        perMerchant: pool === "webhooks" ? s.perMerchant : undefined,
        ring: { merchant: after, endpoint: TaskFairness.randomEndpoint() }
      }))).pipe(
      Effect.catchAll((e) => Effect.as(Effect.logWarning("tender: claiming tasks failed", e), []))
    )

/**
 * Claim and run due tasks until none is due, each pool in its own slots. Returns how many ran.
 * Tests call this directly; the layer runs the pools continuously.
 *
 * @since 0.1.0
 */
export const drain = (options: WorkerOptions = {}): Effect.Effect<number, never, Requirements> =>
  Effect.gen(function*() {
    const s = settings(options)
    let ran = 0
    while (true) {
      const batches = yield* Effect.all([claimOf(s, "money", s.slots.money, undefined), claimOf(s, "webhooks", s.slots.webhooks, undefined)])
      const claimed = batches.flat()
      if (claimed.length === 0) return ran
      // Each task runs to its commit even when the worker is stopped: nothing claimed is left half done.
      yield* Effect.forEach(claimed, (t) => Effect.uninterruptible(runTask(t)), { concurrency: "unbounded", discard: true })
      ran += claimed.length
    }
  })

/**
 * One pool's slots, kept full while it has claimable work: a claim for every free slot, another as
 * soon as a task ends (its slot is free, and a delivery's endpoint may be under its bound again),
 * or when `kick` says new work was written; otherwise it sleeps until the next task falls due, at
 * most `poll`. Claims go round the merchants from the last one this pool served.
 */
const runPool = (s: ReturnType<typeof settings>, pool: Task.Pool, kick: Queue.Queue<void>, poll: number) =>
  Effect.gen(function*() {
    const tasks = yield* Task.Tasks
    const scope = yield* Effect.scope
    const slots = s.slots[pool]
    let running = 0
    let after: string | undefined
    const ended = Effect.zipRight(Effect.sync(() => running--), Queue.offer(kick, undefined))
    const step = Effect.gen(function*() {
      const free = slots - running
      if (free <= 0) return yield* Queue.take(kick)
      const claimed = yield* claimOf(s, pool, free, after)
      for (const task of claimed) {
        running++
        // Uninterruptible: closing the layer waits for the tasks in hand to commit.
        yield* Effect.forkIn(Effect.ensuring(Effect.uninterruptible(runTask(task)), ended), scope)
      }
      if (claimed.length > 0) after = claimed[claimed.length - 1]!.merchantId
      if (claimed.length === free) return
      // Short: nothing else claimable now. What is due but not claimable (an endpoint at its bound,
      // the other pool's work) is no reason to look again before a task ends or new work is written.
      const now = yield* Clock.currentTimeMillis
      const next = yield* Effect.orElseSucceed(tasks.nextDue, () => undefined)
      const wait = next === undefined || next <= now ? poll : Math.min(poll, next - now)
      yield* Effect.raceFirst(Effect.sleep(Duration.millis(wait)), Queue.take(kick))
    })
    return yield* step.pipe(
      Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("tender: worker loop failed", cause)),
      Effect.forever
    )
  })

/**
 * The workers as a layer: two pools of slots, money and webhook deliveries (`Task.poolOf`), each
 * claiming and running due tasks of its own for as long as the layer lives, so a delivery never
 * takes a slot money work needs. Each wakes when new work is written in any process
 * (`Tasks.wakeups`), when one of its tasks ends, when the next task falls due, or at the latest
 * every `pollMillis`. The demo server runs it; a host runs it in every process that should do the
 * work (any number may share one store).
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: WorkerOptions = {}): Layer.Layer<never, never, Requirements> =>
  // Its timers never hold the host's process open (Background).
  Layer.scopedDiscard(Background.unrefTimers(Effect.gen(function*() {
    const tasks = yield* Task.Tasks
    // Readiness reports the workers running while this layer lives (Health.readiness).
    const status = yield* Effect.serviceOption(Health.WorkerStatus)
    if (status._tag === "Some") yield* Effect.acquireRelease(status.value.started, () => status.value.stopped)
    const poll = Math.min(options.pollMillis ?? 5_000, Task.wakeHorizonMillis)
    const s = settings(options)
    const kicks = { money: yield* Queue.sliding<void>(1), webhooks: yield* Queue.sliding<void>(1) }
    yield* tasks.wakeups.pipe(
      Stream.runForEach(() => Effect.zipRight(Queue.offer(kicks.money, undefined), Queue.offer(kicks.webhooks, undefined))),
      Effect.forkScoped
    )
    yield* Effect.forkScoped(runPool(s, "money", kicks.money, poll))
    yield* Effect.forkScoped(runPool(s, "webhooks", kicks.webhooks, poll))
  })))
