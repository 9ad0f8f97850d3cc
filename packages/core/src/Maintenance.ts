/**
 * Housekeeping the host schedules: deleting idempotency keys whose 24 hours are over
 * (4.9.4) and merchant_reference claims abandoned long ago. Completed references are
 * never deleted (4.9: no time limit).
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { Storage } from "./Storage.js"

/** Purge once, now. @since 0.1.0 */
export const purgeExpired = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  return yield* (yield* Storage).purgeExpired(now)
})

/**
 * Purge every `every` (default one hour) for as long as the layer lives, starting at once.
 * A failed run is logged and the next one runs on schedule; it never stops the host.
 *
 * @since 0.1.0 @category layers
 */
export const layerSchedule = (every: Duration.DurationInput = Duration.hours(1)): Layer.Layer<never, never, Storage> =>
  Layer.scopedDiscard(Effect.forkScoped(
    purgeExpired.pipe(
      Effect.tap((r) =>
        r.idempotencyKeys + r.referenceClaims > 0
          ? Effect.logDebug("tender: purged", r.idempotencyKeys, "idempotency keys,", r.referenceClaims, "reference claims")
          : Effect.void
      ),
      Effect.catchAll((e) => Effect.logWarning("tender: purge failed; retrying on schedule", e)),
      Effect.repeat(Schedule.spaced(every))
    )
  ))
