/**
 * Housekeeping the host schedules (docs/retention.md): deleting idempotency keys whose 24 hours
 * are over (4.9.4), merchant_reference claims abandoned long ago, and the records past their
 * retention: events (kept 30 days by default, what docs/webhooks.md promises merchants),
 * finished tasks and webhook delivery attempts. Completed references are never deleted (4.9: no
 * time limit), nor pending tasks. Deletes go in bounded batches, so purging a million rows
 * never holds a request up for long.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import * as Event from "../events/Event.js"
import type { PurgeOptions, PurgeResult } from "../storage/Storage.js"
import { Storage } from "../storage/Storage.js"
import type { Table } from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import * as WebhookDelivery from "../webhooks/WebhookDelivery.js"
import * as Background from "./Background.js"

/**
 * How long records are kept and how the purge runs. Every field has a default; a retention of
 * `Duration.infinity` keeps that kind for ever.
 *
 * @since 0.1.0 @category models
 */
export interface RetentionOptions {
  /** How often the scheduled purge runs (`layerSchedule`). Default 1 hour. */
  readonly every?: Duration.DurationInput | undefined
  /** How long events are kept after they are created. Default 30 days: the least merchants are promised. */
  readonly events?: Duration.DurationInput | undefined
  /** How long a finished (`done` or `failed`) task is kept after it finished. Default 7 days. */
  readonly finishedTasks?: Duration.DurationInput | undefined
  /** How long a webhook delivery attempt is kept after it was made. Default 30 days, as its event. */
  readonly webhookAttempts?: Duration.DurationInput | undefined
  /** At most this many rows of each kind per batch (one short transaction each). Default 1,000. */
  readonly batchSize?: number | undefined
  /**
   * A pause between batches, leaving the database to requests. Default 100 milliseconds: with
   * 10 ms a get's p99 tripled while the purge ran (`npm run bench:scale`, which writes docs/scale.md).
   */
  readonly pause?: Duration.DurationInput | undefined
}

/** The defaults of `RetentionOptions`. @since 0.1.0 @category constants */
export const defaults = {
  every: Duration.hours(1),
  events: Duration.days(30),
  finishedTasks: Duration.days(7),
  webhookAttempts: Duration.days(30),
  batchSize: 1000,
  pause: Duration.millis(100)
} as const

/**
 * The kinds a retention option names, each the table whose `Table.retention` says which of its
 * records are due: a new purged kind is its table's retention, an option and an entry here.
 */
const retained = {
  events: Event.table,
  tasks: Task.table,
  webhookAttempts: WebhookDelivery.attemptTable
} as const satisfies Record<string, Table<any>>

/** The option of each retained kind. */
const optionOf = { events: "events", tasks: "finishedTasks", webhookAttempts: "webhookAttempts" } as const

/** What a purge deleted, by kind. @since 0.1.0 @category models */
export type RetentionResult = { readonly [K in "idempotencyKeys" | "referenceClaims" | keyof typeof retained]: number }

const kinds = ["idempotencyKeys", "referenceClaims", ...(Object.keys(retained) as Array<keyof typeof retained>)] as const
const nothing = Object.fromEntries(kinds.map((k) => [k, 0])) as RetentionResult
const add = (a: RetentionResult, b: RetentionResult): RetentionResult => Object.fromEntries(kinds.map((k) => [k, a[k] + b[k]])) as RetentionResult

/**
 * One purge batch at `now` under `options`: each retained kind's table with the instant its
 * records are due before (none for a kind kept for ever), and at most `batchSize` of each.
 *
 * @since 0.1.0
 */
export const batchOf = (now: number, options: RetentionOptions = {}, batchSize = options.batchSize ?? defaults.batchSize): PurgeOptions => ({
  limit: batchSize,
  cutoffs: (Object.keys(retained) as Array<keyof typeof retained>).flatMap((kind) => {
    const before = cutoff(now, options[optionOf[kind]] ?? defaults[optionOf[kind]])
    return before === undefined ? [] : [{ table: retained[kind], before }]
  })
})

/** What a purge call deleted, by the kinds of `RetentionOptions`. @since 0.1.0 */
export const byKind = (purged: PurgeResult): RetentionResult => ({
  idempotencyKeys: purged.idempotencyKeys,
  referenceClaims: purged.referenceClaims,
  ...(Object.fromEntries(
    (Object.keys(retained) as Array<keyof typeof retained>).map((kind) => [kind, purged.records[retained[kind].name] ?? 0])
  ) as Record<keyof typeof retained, number>)
})

/** The instant before which a record kept `retention` is due at `now`; none for a retention without end. */
const cutoff = (now: number, retention: Duration.DurationInput): number | undefined => {
  const d = Duration.decode(retention)
  return Duration.isFinite(d) ? now - Duration.toMillis(d) : undefined
}

/** A wrong option is a programming error of the host: a defect, raised before anything is deleted. */
const checked = (options: RetentionOptions) => {
  const batchSize = options.batchSize ?? defaults.batchSize
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    return Effect.dieMessage(`retention batchSize must be a positive whole number; got ${String(options.batchSize)}`)
  }
  for (const k of ["every", "events", "finishedTasks", "webhookAttempts", "pause"] as const) {
    const value = options[k]
    // Duration reads a negative input as zero: refuse it here instead of purging everything.
    if ((typeof value === "number" && !(value >= 0)) || (typeof value === "string" && value.trim().startsWith("-"))) {
      return Effect.dieMessage(`retention ${k} must not be negative; got ${String(value)}`)
    }
  }
  return Effect.succeed(batchSize)
}

/**
 * Purge once, now, everything due (`RetentionOptions`, defaults otherwise), batch after batch
 * until a batch finds less than a full batch of every kind. What becomes due while it runs waits
 * for the next run, so a run always ends. Returns how many rows of each kind went.
 *
 * @since 0.1.0
 */
export const purge = (options: RetentionOptions = {}) =>
  Effect.gen(function*() {
    const batchSize = yield* checked(options)
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const batch = batchOf(now, options, batchSize)
    const pause = options.pause ?? defaults.pause
    let total = nothing
    for (;;) {
      const r = byKind(yield* storage.purgeExpired(now, batch))
      total = add(total, r)
      if (kinds.every((k) => r[k] < batchSize)) return total
      yield* Effect.sleep(pause)
    }
  })

/** Purge once, now, with the default retention (`purge()`). @since 0.1.0 */
export const purgeExpired = purge()

const isOptions = (x: RetentionOptions | Duration.DurationInput): x is RetentionOptions => typeof x === "object" && !Array.isArray(x) && !Duration.isDuration(x)

/**
 * Purge every `options.every` (default one hour) for as long as the layer lives, starting at
 * once. A duration alone is `{ every }`. A failed run is logged and the next one runs on
 * schedule; it never stops the host.
 *
 * @since 0.1.0 @category layers
 */
export const layerSchedule = (
  options: RetentionOptions | Duration.DurationInput = {}
): Layer.Layer<never, never, Storage> => {
  const o: RetentionOptions = isOptions(options) ? options : { every: options }
  // A wrong option fails the layer, where the host sees it, not the fiber of a later run.
  // Its timers never hold the host's process open (Background).
  return Layer.scopedDiscard(Effect.zipRight(
    checked(o),
    Background.unrefTimers(Effect.forkScoped(
      purge(o).pipe(
        Effect.tap((r) => kinds.some((k) => r[k] > 0) ? Effect.logDebug("tender: purged", kinds.map((k) => `${r[k]} ${k}`).join(", ")) : Effect.void),
        Effect.catchAll((e) => Effect.logWarning("tender: purge failed; retrying on schedule", e)),
        Effect.repeat(Schedule.spaced(o.every ?? defaults.every))
      )
    ))
  ))
}
