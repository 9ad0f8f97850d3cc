/**
 * Liveness and readiness for the host's orchestrator (docs/observability.md, "Health"):
 * liveness says the process answers; readiness says this process can do its work now:
 * the store answers and holds the schema this version reads, and the workers it started are
 * running. `@tender/http` serves both outside the merchant API (`GET /healthz`, `/readyz`).
 *
 * @since 0.1.0
 */
import { Clock, Context, Deferred, Duration, Effect, Layer, Ref, SynchronizedRef } from "effect"
import { Storage } from "../storage/Storage.js"
import * as Task from "../storage/Task.js"

/** A health answer: `ok` (HTTP 200) or `unavailable` (503), with each check's word. @since 0.1.0 @category models */
export interface Report {
  readonly status: "ok" | "unavailable"
  readonly checks: Readonly<Record<string, string>>
}

/**
 * Whether this process runs workers: `Workers.layer` reports here while it lives.
 *
 * @since 0.1.0 @category tags
 */
export class WorkerStatus extends Context.Tag("@tender/core/Health/WorkerStatus")<WorkerStatus, {
  /** Worker layers running now, and whether any ever started in this process. */
  readonly state: Effect.Effect<{ readonly running: number; readonly started: boolean }>
  readonly started: Effect.Effect<void>
  readonly stopped: Effect.Effect<void>
}>() {}

/** The in-process worker status (in `Tender.layer`). @since 0.1.0 @category layers */
export const layerWorkerStatus: Layer.Layer<WorkerStatus> = Layer.effect(
  WorkerStatus,
  Effect.map(Ref.make({ running: 0, started: false }), (ref) => ({
    state: Ref.get(ref),
    started: Ref.update(ref, (s) => ({ running: s.running + 1, started: true })),
    stopped: Ref.update(ref, (s) => ({ ...s, running: Math.max(0, s.running - 1) }))
  }))
)

/** Liveness: the process runs and answers. @since 0.1.0 */
export const liveness: Effect.Effect<Report> = Effect.succeed({ status: "ok", checks: {} })

/** @since 0.1.0 @category models */
export interface ReadinessOptions {
  /** How long the store may take to answer before it counts as unreachable. Default 2 s. */
  readonly timeoutMillis?: number | undefined
  /**
   * Require workers in this process. Default: required once a worker layer started here
   * (an API-only process that never runs workers is ready without them).
   */
  readonly requireWorkers?: boolean | undefined
}

/** The id the storage check reads: never a task's (ids are `task_` and 24 base62 characters). */
const probeId = "task_readiness_probe"

/**
 * Readiness: `storage` reads a task by id (reachable, and its schema holds every column this
 * version reads: a store not migrated fails the read) within the timeout; `workers` are
 * `running`, `stopped` (a worker layer ran here and closed) or `not_run_here`, and fail
 * readiness unless running when required.
 *
 * @since 0.1.0
 */
export const readiness = (options: ReadinessOptions = {}): Effect.Effect<Report, never, Storage> =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const reached = yield* storage.find(Task.table, probeId).pipe(
      Effect.timeoutFail({ duration: Duration.millis(options.timeoutMillis ?? 2_000), onTimeout: () => "timeout" as const }),
      Effect.match({ onFailure: (e) => (e === "timeout" ? "timeout" : e._tag === "StorageUnavailable" ? "unreachable" : "failing"), onSuccess: () => "ok" })
    )
    const workers = yield* Effect.serviceOption(WorkerStatus).pipe(
      Effect.flatMap((status) => status._tag === "None" ? Effect.succeed({ running: 0, started: false }) : status.value.state)
    )
    const required = options.requireWorkers ?? workers.started
    const workerCheck = workers.running > 0 ? "running" : workers.started ? "stopped" : "not_run_here"
    const ok = reached === "ok" && (workerCheck === "running" || !required)
    return { status: ok ? "ok" : "unavailable", checks: { storage: reached, workers: workerCheck } } as const
  })

/** @since 0.1.0 @category models */
export interface CachedReadinessOptions extends ReadinessOptions {
  /** How old an answer may be before the next caller checks again. Default 1 000 ms. */
  readonly maxAgeMillis?: number | undefined
}

/**
 * Readiness for a route anyone may call (`GET /readyz` needs no key): each answer is one started
 * at most `maxAgeMillis` ago, so a flood of probes costs the store one read a second. One check
 * runs at a time and every caller meanwhile awaits it; a failed check is kept as long as a good
 * one. Make it once per handler and use the inner effect for every request.
 *
 * @since 0.1.0
 */
export const cachedReadiness = (
  options: CachedReadinessOptions = {}
): Effect.Effect<Effect.Effect<Report, never, Storage>> =>
  Effect.map(SynchronizedRef.make<{ readonly startedAt: number; readonly answer: Deferred.Deferred<Report> } | undefined>(undefined), (last) => {
    const maxAge = options.maxAgeMillis ?? 1_000
    return Effect.flatten(SynchronizedRef.modifyEffect(last, (entry) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (entry !== undefined && (now - entry.startedAt < maxAge || !(yield* Deferred.isDone(entry.answer)))) {
          return [Deferred.await(entry.answer), entry] as const
        }
        const answer = yield* Deferred.make<Report>()
        // In a fiber of its own: a caller that goes away (its connection closed) does not stop the
        // check the others await. It ends by itself within `timeoutMillis`.
        yield* Effect.forkDaemon(Effect.intoDeferred(readiness(options), answer))
        return [Deferred.await(answer), { startedAt: now, answer }] as const
      })))
  })
