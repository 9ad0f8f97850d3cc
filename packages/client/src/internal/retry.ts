/**
 * The fetch every request of a `TenderClient` goes through (its typed methods and `client.http`
 * alike): an `Idempotency-Key` for each POST, kept for its retries, a timeout per attempt, and
 * retries with exponential back-off and jitter after Stripe's SDKs (docs/client.md, "Retries").
 */
import { TenderConnectionError } from "../TenderApiError.js"

/** How a client retries. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number
  /** One attempt's limit, headers and body. */
  readonly timeoutMs: number
  /** The first back-off; each next one doubles, up to `maxDelayMs`. */
  readonly initialDelayMs: number
  readonly maxDelayMs: number
  /** A `Retry-After` longer than this is not waited for: the answer goes back to the caller. */
  readonly maxRetryAfterMs: number
  readonly fetch: (request: Request) => Promise<Response>
}

/** The header of 4.9, as the document spells it. */
export const idempotencyHeader = "Idempotency-Key"

/**
 * Whether the answer is worth another attempt with the same request: 429, a 5xx, and a 409
 * that carries `Retry-After`, which Tender sends only when the original request with this key
 * is still in flight (4.9.6) and a retry gets its answer. A 409 without it is final: the key
 * used with a different request (4.9.5), or a resource's state
 * (`payment_intent_unexpected_state`, …), as every other 4xx.
 */
const retryable = (response: Response): boolean =>
  response.status === 429 || response.status >= 500 || (response.status === 409 && response.headers.has("retry-after"))

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null, now: number): number | undefined => {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** The back-off before retry number `retry` (0-based): doubling, capped, between half and all of it. */
export const backoffMs = (policy: Pick<RetryPolicy, "initialDelayMs" | "maxDelayMs">, retry: number): number => {
  const ceiling = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs)
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

/** A fetch that applies `policy` to every request it is given. */
export const retryingFetch = (policy: RetryPolicy) => async (request: Request): Promise<Response> => {
  const headers = new Headers(request.headers)
  if (request.method === "POST" && !headers.has(idempotencyHeader)) headers.set(idempotencyHeader, crypto.randomUUID())
  // Read once, sent again as it was by every attempt.
  const body = request.body === null ? undefined : await request.arrayBuffer()
  const caller = request.signal
  for (let attempt = 1;; attempt++) {
    const retriesLeft = attempt <= policy.maxRetries
    let response: Response
    try {
      response = await policy.fetch(
        new Request(request.url, {
          method: request.method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.any([caller, AbortSignal.timeout(policy.timeoutMs)])
        })
      )
    } catch (cause) {
      // The caller's own abort ends the call as it is; a network failure or a timeout is retried.
      if (caller.aborted) throw cause
      if (!retriesLeft) throw new TenderConnectionError(request.url, attempt, headers.get(idempotencyHeader) ?? undefined, cause)
      await sleep(backoffMs(policy, attempt - 1), caller)
      continue
    }
    if (!retriesLeft || !retryable(response)) return response
    const wait = Math.max(backoffMs(policy, attempt - 1), retryAfterMs(response.headers.get("retry-after"), Date.now()) ?? 0)
    if (wait > policy.maxRetryAfterMs) return response
    await response.body?.cancel()
    await sleep(wait, caller)
  }
}
