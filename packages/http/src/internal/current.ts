/**
 * The request being served, as fiber-local state: read by the error bodies (their
 * `request_id`), the handlers, authentication and the span. Imports nothing of the binding, so
 * the error schemas the API definition is built from can read it.
 */
import { Effect, FiberRef } from "effect"

/**
 * What the request is and learnt on its way: its id (D1 `request_id`, the `Request-Id` header),
 * its route, and the merchant once authenticated (its span names all three). One fiber-local
 * value for all of them: each `Effect.locally` copies the fiber's locals twice, and a request
 * set two.
 */
export interface Seen {
  readonly requestId: string
  /** The route as the middleware resolved it (`Observe.Resolved`), read through `Observe.currentResolved`: typed there, so this module imports nothing of the binding. */
  readonly resolved: unknown
  merchantId: string | undefined
}

/** The current request's `Seen`, set by the whole-API middleware; the merchant filled in by authentication. */
export const CurrentSeen = FiberRef.unsafeMake<Seen | undefined>(undefined)

/** The id of the request being served; empty outside one. */
export const currentRequestId: Effect.Effect<string> = Effect.map(FiberRef.get(CurrentSeen), (seen) => seen?.requestId ?? "")

/** Note the authenticated merchant for the request's span. */
export const sawMerchant = (merchantId: string) =>
  Effect.map(FiberRef.get(CurrentSeen), (seen) => {
    if (seen !== undefined) seen.merchantId = merchantId
  })
