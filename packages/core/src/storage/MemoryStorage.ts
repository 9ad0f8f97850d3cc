/**
 * The embedded in-memory store: `Storage` and its task queue `Tasks` in process memory, for
 * tests, the demo and hosts that need no database. Data lives as long as the process. The
 * adapter itself is `internal/memoryStorage.ts`.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import * as internal from "./internal/memoryStorage.js"
import { Storage } from "./Storage.js"
import { Tasks } from "./Task.js"

/**
 * A fresh, empty in-memory store. Every operation is one synchronous step, so on Node's
 * single thread each is atomic with respect to every other fiber.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (): Storage["Type"] & { readonly tasks: Tasks["Type"] } => {
  const { tasks, ...storage } = internal.make()
  return { ...Storage.of(storage), tasks: Tasks.of(tasks) }
}

/** The embedded in-memory store, `Storage` and its task queue: data lives as long as the process. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Storage | Tasks> = Layer.effectContext(Effect.sync(() => {
  const { tasks, ...storage } = make()
  return Context.make(Storage, storage).pipe(Context.add(Tasks, tasks))
}))
