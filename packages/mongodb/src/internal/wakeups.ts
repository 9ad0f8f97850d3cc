/**
 * Task wake-ups on MongoDB (`Tasks.wakeups`; docs/payment-lifecycle.md, "Workers"): a change
 * stream on the tasks collection (`wakeupPipeline`), in any process on the deployment. As on
 * PostgreSQL (packages/postgres internal/wakeups.ts), a stream the server or the driver ends with
 * an error is opened again (100 ms, doubling, at most 5 s apart), never left ended, and a stream
 * that is open again wakes the workers once, for whatever was written while it was down. It is
 * open once the server answered its first batch, which the driver reports as the stream's first
 * resume token (`ChangeStream.RESUME_TOKEN_CHANGED`).
 */
import { Effect, Schedule, Stream } from "effect"
import { ChangeStream } from "mongodb"

/** What the wake-ups use of a change stream: its events and `close`. */
export interface Watched {
  readonly on: (event: string, listener: (value: unknown) => void) => unknown
  readonly removeAllListeners: (event: string) => unknown
  readonly close: () => Promise<void>
}

/** How soon a stream that ended is opened again. */
export const reopenSchedule = Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

/** Wake-ups from the streams `open` makes, for as long as the stream runs; `schedule` spaces the re-openings. */
export const listen = (open: () => Watched, schedule: Schedule.Schedule<unknown, unknown> = reopenSchedule): Stream.Stream<void> =>
  Stream.asyncPush<void, unknown>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const stream = open()
        let opened = false
        stream.on(ChangeStream.RESUME_TOKEN_CHANGED, () => {
          // Open (again): whatever was written before is looked at once.
          if (opened) return
          opened = true
          void emit.single(undefined)
        })
        stream.on(ChangeStream.CHANGE, () => void emit.single(undefined))
        stream.on(ChangeStream.ERROR, (error) => void emit.fail(error))
        stream.on(ChangeStream.CLOSE, () => void emit.fail(new Error("the task change stream closed")))
        return stream
      }),
      (stream) =>
        Effect.sync(() => {
          stream.removeAllListeners(ChangeStream.CLOSE)
          stream.close().catch(() => {})
        })
    )
  ).pipe(
    Stream.tapError((error) => Effect.logDebug("tender: task change stream ended; opening it again", error)),
    Stream.retry(schedule),
    // Retried for ever: no failure reaches the workers.
    Stream.catchAll(() => Stream.empty)
  )
