/**
 * One call to a vendor, as every adapter makes it (`ProviderKit.vendor` is its public face):
 * bounded by a timeout, and what the vendor's SDK threw sorted by one rule into a fault of the
 * vendor's side (`ProviderUnavailable`, counted against the route's health) or an answer that
 * refuses the request (`Rejected`, which an adapter turns into a `Failed`). The rule and why
 * are in docs/provider-adapters.md, "The adapter kit".
 */
import { Data, Effect } from "effect"
import { ProviderUnavailable } from "../Provider.js"
import { type Failure, failure, type FailureCodes, failureFor } from "./providerFailures.js"

/** `ProviderKit.VendorError`. */
export interface VendorError {
  /** The HTTP status the vendor answered with; absent when no answer came (a timeout, a refused or dropped connection). */
  readonly status?: number | undefined
  /** The vendor's own codes for a refusal, most telling first (a decline code, an error code); never shown (D1). */
  readonly codes?: ReadonlyArray<string | null | undefined> | undefined
  /** The vendor's name of the error's kind, for the reason (never its message: it may echo request data). */
  readonly type?: string | undefined
}

/** `ProviderKit.Rejected`. */
export class Rejected extends Data.TaggedError("VendorRejected")<
  Failure & {
    /** What the SDK threw (the adapter may read more of it, such as the payment Stripe's error carries). */
    readonly error: unknown
  }
> {}

/**
 * The 4xx statuses that are the vendor's (or the configuration's) fault, whatever the request
 * (`ProviderKit.isFaultStatus` says which and why).
 */
const faultStatuses: ReadonlySet<number> = new Set([401, 403, 404, 408, 409, 429])

/** `ProviderKit.isFaultStatus`. */
export const isFaultStatus = (status: number): boolean => status < 400 || status >= 500 || faultStatuses.has(status)

/**
 * Whether the vendor may have acted on a request answered with fault `status`: after a 5xx, or
 * a 409 (the first request under the key may still succeed), it may; a 401, 403, 404, 408 or
 * 429 says it did nothing.
 */
const ambiguousStatus = (status: number): boolean => status >= 500 || status === 409 || status < 400

/** Node's codes (and the texts SDKs keep of them) of a connection that was never made: nothing reached the vendor. */
const neverSentCodes = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|CERT|certificate/

/** `ProviderKit.neverSent`; depth-bounded, as an SDK's error may wrap itself. */
export const neverSent = (thrown: unknown, depth = 0): boolean => {
  if (typeof thrown !== "object" || thrown === null || depth > 4) return false
  const error = thrown as { readonly code?: unknown; readonly message?: unknown; readonly cause?: unknown; readonly detail?: unknown }
  if (typeof error.code === "string" && neverSentCodes.test(error.code)) return true
  if (typeof error.message === "string" && neverSentCodes.test(error.message)) return true
  return neverSent(error.cause, depth + 1) || neverSent(error.detail, depth + 1)
}

/** `ProviderKit.VendorSpec`. */
export interface VendorSpec {
  /** The provider code (`ProviderUnavailable.provider`). */
  readonly provider: string
  /** The vendor's name, for reasons (`Stripe`). */
  readonly name: string
  /** The bound of one call, the SDK's own retries included, in ms (default 15 000, within the 20 s a provider call is given). */
  readonly timeoutMillis?: number | undefined
  /** The vendor's codes for each of Tender's failure codes it tells apart (`failureFor`). */
  readonly declines: FailureCodes
  /** Reads an error the SDK threw; `undefined` when it is not an answer of the vendor's (a network error). */
  readonly errorOf: (thrown: unknown) => VendorError | undefined
}

/** `ProviderKit.defaultTimeoutMillis`. */
export const defaultTimeoutMillis = 15_000

/** Sorts what the SDK threw by the one rule. */
export const classify = (spec: VendorSpec) => (thrown: unknown): ProviderUnavailable | Rejected => {
  const read = spec.errorOf(thrown)
  const kind = read?.type === undefined ? "" : ` (${read.type})`
  const status = read?.status
  if (status === undefined) {
    return new ProviderUnavailable({ provider: spec.provider, reason: `no answer from ${spec.name}${kind}`, ambiguous: !neverSent(thrown) })
  }
  if (isFaultStatus(status)) {
    return new ProviderUnavailable({ provider: spec.provider, reason: `${spec.name} answered ${status}${kind}`, ambiguous: ambiguousStatus(status) })
  }
  // A refusal without a code of the vendor's is of the request (its amount, its method), not the payer's means.
  const codes = (read?.codes ?? []).filter((c) => c != null && c !== "")
  return new Rejected({ ...(codes.length === 0 ? failure("provider_rejected") : failureFor(spec.declines, codes)), error: thrown })
}

/** One call to the vendor, bounded by `timeoutMillis`, its error sorted by `classify`. */
export const vendorCall = (spec: VendorSpec) => {
  const sort = classify(spec)
  const bound = spec.timeoutMillis ?? defaultTimeoutMillis
  const timedOut = () => new ProviderUnavailable({ provider: spec.provider, reason: `no answer from ${spec.name} within ${bound} ms`, ambiguous: true })
  return <A>(f: (signal: AbortSignal) => Promise<A>): Effect.Effect<A, ProviderUnavailable | Rejected> =>
    Effect.timeoutFail(Effect.tryPromise({ try: f, catch: sort }), { duration: bound, onTimeout: timedOut })
}
