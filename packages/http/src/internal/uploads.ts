/**
 * The bound on uploads worked on at once (`MountOptions.maxConcurrentUploads`). A 5 MiB file is
 * read whole, hashed, encoded and written in one statement: two hundred at once held 1.3 GiB and
 * every pool connection, and a plain GET waited seconds behind them. Past the bound an upload is
 * refused at once (503 `service_unavailable`, with the `Retry-After` every 503 gets), before its
 * body is read, rather than queued: a queue would hold the sockets and slow every upload alike.
 */
import { Errors } from "@tender/core"
import { Effect, Option } from "effect"
import * as Upload from "../Upload.js"
import type * as Routes from "./routes.js"

/** Whether a request is a multipart upload to a route that takes a file. */
export const isUpload = (route: Routes.Route | undefined, contentType: string | undefined): boolean =>
  route?.uploads === true && Upload.isMultipartType(contentType)

/** The refusal past the bound: an answer, not a failure of the server (logged at debug level only). */
export const busy = () =>
  new Errors.ServiceUnavailable({
    message: "Too many uploads are in progress; send this one again after the Retry-After delay."
  })

/** `app` run while fewer than `max` uploads are; past that, `refused` at once. */
export const bound = (max: number) => {
  const permits = Effect.unsafeMakeSemaphore(max)
  return <A, E, R, E2, R2>(app: Effect.Effect<A, E, R>, refused: Effect.Effect<A, E2, R2>): Effect.Effect<A, E | E2, R | R2> =>
    Effect.flatMap(permits.withPermitsIfAvailable(1)(app), Option.match({ onNone: () => refused, onSome: Effect.succeed }))
}
