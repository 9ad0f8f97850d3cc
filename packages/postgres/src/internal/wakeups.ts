/**
 * Task wake-ups on PostgreSQL (`Tasks.wakeups`; docs/payment-lifecycle.md, "Workers"): a
 * connection of Tender's own listening on `<prefix>tasks`, which every commit with work for idle
 * workers notifies (internal/commit.ts), in any process on the database. The connection is
 * Tender's own `pg.Client`, not `@effect/sql-pg`'s shared listener, so that it never holds the
 * host's process open (its socket is unref'd), reports its loss and is opened again: a loss is
 * retried (100 ms, doubling, at most 5 s apart), and a connection that is up again wakes the
 * workers once, for whatever was written while it was down.
 */
import { Effect, Schedule, Stream } from "effect"
import * as Pg from "pg"
import { unref } from "./directory.js"

/** Listen on `channel` with a connection made from `config`, for as long as the stream runs. */
export const listen = (config: Pg.ClientConfig, channel: string): Stream.Stream<void> =>
  Stream.asyncPush<void, Error>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const client = new Pg.Client(config)
        unref(client)
        client.on("error", (error) => void emit.fail(error))
        client.on("end", () => void emit.fail(new Error("the task wake-up connection ended")))
        client.on("notification", (message) => {
          if (message.channel === channel) emit.single(undefined)
        })
        // Listening: whatever was written before is looked at once.
        client.connect().then(() => client.query(`LISTEN "${channel}"`)).then(
          () => void emit.single(undefined),
          (error: Error) => void emit.fail(error)
        )
        return client
      }),
      (client) =>
        Effect.sync(() => {
          client.removeAllListeners("end")
          client.end().catch(() => {})
        })
    )
  ).pipe(
    Stream.tapError((error) => Effect.logDebug("tender: task wake-up connection lost; listening again", error.message)),
    Stream.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
    // Retried for ever: no failure reaches the workers.
    Stream.catchAll(() => Stream.empty)
  )
