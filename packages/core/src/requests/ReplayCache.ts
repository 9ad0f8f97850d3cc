/**
 * Completed idempotent answers, kept by one process (docs/postgres.md, "Idempotent replays from the
 * process"). A key that holds a response never changes until it expires (4.9.4): only its
 * in-flight holder releases a key, and only an expired one is taken over. So once a storage
 * adapter has read a completed key, the same process may answer the next request with that
 * key from memory, exactly as the store would: the stored response for the same fingerprint
 * (a replay, 4.9.3), 409 for another (4.9.5). Nothing else is kept: an in-flight key, a
 * released one and a fresh claim always go to the store.
 *
 * An entry is served only until `marginMillis` before its key expires, so processes whose
 * clocks disagree by less than that never answer from an entry whose key another process has
 * already taken over. Bounded in entries and in the characters of the bodies it holds; the
 * least recently used entry is dropped first.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { BeginOutcome, BeginRequest, IdempotencyClaim, StoredResponse } from "../storage/Storage.js"

/** @since 0.1.0 @category models */
export interface ReplayCacheOptions {
  /** The most keys kept. Default 10,000. */
  readonly maxEntries?: number | undefined
  /** The most characters of stored bodies kept, all entries together. Default 8 MiB. */
  readonly maxBodyChars?: number | undefined
  /** How long before its key expires an entry stops being served. Default 60,000 ms. */
  readonly marginMillis?: number | undefined
}

/** What the cache can answer without the store. @since 0.1.0 @category models */
export type CachedOutcome = Extract<BeginOutcome, { readonly _tag: "Replay" | "KeyConflict" }>

/** @since 0.1.0 @category models */
export interface ReplayCache {
  /** The answer to `claim` at `now` if its key is known completed, else `undefined` (ask the store). */
  readonly answer: (claim: IdempotencyClaim, now: number) => CachedOutcome | undefined
  /**
   * Keep a completed key as the store just read it for `claim` (whose fingerprint it matched):
   * the key's expiry and its stored response.
   */
  readonly keep: (claim: IdempotencyClaim, expiresAt: number, response: StoredResponse) => void
  /** How many keys are held (for tests). */
  readonly size: () => number
}

interface Entry {
  readonly fingerprint: string
  readonly expiresAt: number
  readonly response: StoredResponse
}

/** @since 0.1.0 @category constructors */
export const make = (options: ReplayCacheOptions = {}): ReplayCache => {
  const maxEntries = Math.max(1, options.maxEntries ?? 10_000)
  const maxChars = Math.max(0, options.maxBodyChars ?? 8 * 1024 * 1024)
  const margin = Math.max(0, options.marginMillis ?? 60_000)
  // A Map keeps insertion order: the first key is the least recently used.
  const entries = new Map<string, Entry>()
  let chars = 0
  const idOf = (claim: IdempotencyClaim) => `${claim.apiKeyId}\u0000${claim.key}`
  const drop = (id: string) => {
    const entry = entries.get(id)
    if (entry === undefined) return
    entries.delete(id)
    chars -= entry.response.body.length
  }
  return {
    answer: (claim, now) => {
      const id = idOf(claim)
      const entry = entries.get(id)
      if (entry === undefined) return undefined
      if (now >= entry.expiresAt - margin) {
        drop(id)
        return undefined
      }
      entries.delete(id)
      entries.set(id, entry)
      return entry.fingerprint === claim.fingerprint ? { _tag: "Replay", response: entry.response } : { _tag: "KeyConflict" }
    },
    keep: (claim, expiresAt, response) => {
      if (response.body.length > maxChars) return
      const id = idOf(claim)
      drop(id)
      entries.set(id, { fingerprint: claim.fingerprint, expiresAt, response })
      chars += response.body.length
      while (entries.size > maxEntries || chars > maxChars) drop(entries.keys().next().value as string)
    },
    size: () => entries.size
  }
}

/**
 * `begin` answered from `cache` when the request's key is known completed, else by `begin`
 * (which keeps what it reads of a completed key through `cache.keep`).
 *
 * @since 0.1.0 @category combinators
 */
export const cachedBegin = <E, R>(
  cache: ReplayCache,
  begin: (request: BeginRequest) => Effect.Effect<BeginOutcome, E, R>
) =>
(request: BeginRequest): Effect.Effect<BeginOutcome, E, R> => {
  const claim = request.idempotency
  const cached = claim === undefined ? undefined : cache.answer(claim, request.now)
  return cached === undefined ? begin(request) : Effect.succeed(cached)
}
