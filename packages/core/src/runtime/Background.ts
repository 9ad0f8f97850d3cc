/**
 * Tender's background fibers (the workers' loop, the purge schedule, the gauges, a lost
 * listener's retries) wait on timers that never hold the host's process open by themselves: a
 * host whose own server failed to listen exits as it would without Tender, and a host that is
 * serving keeps them running (docs/embedding.md, "Shutdown"). Only the live clock's timers change;
 * under a test clock (or a host's own clock) time is what that clock says.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect } from "effect"

const live = Clock.make()

/** The live clock's scheduling, with each timer unref'd. */
const schedule = (task: () => void, duration: Duration.Duration): () => void => {
  const millis = Duration.toMillis(duration)
  // As the live clock: longer than a JS timer can wait is never.
  if (!Number.isFinite(millis) || millis > 2 ** 31 - 1) return () => {}
  const timer = setTimeout(task, Math.max(0, millis))
  timer.unref()
  return () => clearTimeout(timer)
}

/** The live clock whose sleeps do not hold the process open. */
const unrefClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis(),
  unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos(),
  currentTimeMillis: live.currentTimeMillis,
  currentTimeNanos: live.currentTimeNanos,
  sleep: (duration) =>
    Effect.async<void>((resume) => {
      const cancel = schedule(() => resume(Effect.void), duration)
      return Effect.sync(cancel)
    })
}

/**
 * Run `self` (and every fiber it forks) with timers that do not hold the process open, when it
 * runs on the live clock; on any other clock, unchanged.
 *
 * @since 0.1.0
 */
export const unrefTimers = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) => clock.constructor === live.constructor ? Effect.withClock(self, unrefClock) : self)
