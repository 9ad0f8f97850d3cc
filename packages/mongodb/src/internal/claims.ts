/**
 * Claims: `begin` reserves the idempotency key and the merchant_reference, the filters of what
 * no request can use any more (deleted by `purge.ts`), and the fenced filters a commit uses to
 * complete or release a claim only while this request holds it.
 *
 * Each claim is one document, so each step is a single-document operation, atomic on its own:
 * a conditional upsert claims a key (or reference) that is absent, expired or lapsed, and the
 * unique index refuses a second claim of one that is held (code 11000), which is then read and
 * judged. No transaction is needed: the key is judged (and claimed) before the reference is
 * touched, so a request the key refuses never holds the reference, not even for a moment.
 */
import { Idempotency, type ReplayCache, type Storage, StorageError } from "@tender/core"
import { Effect } from "effect"
import type { Collection, Document, Filter, UpdateFilter } from "mongodb"
import { classify, fold } from "./errors.js"

// -- idempotency keys (4.9.3 to 4.9.7) --

/** A key by its scope (4.9.3). */
export const keyFilter = (k: Storage.IdempotencyKeyId): Filter<Document> => ({ api_key_id: k.apiKeyId, key: k.key })

/**
 * The key as a claim may take it: expired (4.9.4: from then on it is new, whatever the
 * request), or in flight for the same request with its lock lapsed (4.9.6: its holder died).
 * A lapsed claim of a different request is never taken over (4.9.5).
 */
export const keyTakeoverFilter = (c: Storage.IdempotencyClaim, now: number): Filter<Document> => ({
  ...keyFilter(c),
  $or: [
    { expires_at: { $lte: new Date(now) } },
    { fingerprint: c.fingerprint, response: null, locked_until: { $lte: new Date(now) } }
  ]
})

/** The claim as written: new fingerprint, expiry and lock, no response. */
export const keyClaimUpdate = (c: Storage.IdempotencyClaim): UpdateFilter<Document> => ({
  $set: { fingerprint: c.fingerprint, expires_at: new Date(c.expiresAt), locked_until: new Date(c.lockedUntil), response: null }
})

/** A stored response as a key document holds it. */
export const responseDocument = (r: Storage.StoredResponse): Document => ({ status: r.status, body: r.body, request_id: r.requestId })

const toResponse = (doc: Document): Storage.StoredResponse => ({
  status: Number(doc["status"]),
  body: String(doc["body"]),
  requestId: String(doc["request_id"])
})

const millisOf = (value: unknown): number => (value instanceof Date ? value.getTime() : Number(value))

/** What a claim refused by the unique index reads. "retry" when the document changed in between (claim again). */
export type KeyJudgement =
  | { readonly _tag: "KeyConflict" }
  | { readonly _tag: "KeyInFlight" }
  | { readonly _tag: "Replay"; readonly response: Storage.StoredResponse }
  | "retry"

/**
 * Judge the key a claim could not take. An expired key, or a lapsed claim of this request,
 * would have been taken: it changed between the claim and this read, so claim again.
 */
export const judgeKey = (doc: Document | null, c: Storage.IdempotencyClaim, now: number): KeyJudgement => {
  if (doc === null || millisOf(doc["expires_at"]) <= now) return "retry"
  if (doc["fingerprint"] !== c.fingerprint) return { _tag: "KeyConflict" }
  if (doc["response"] !== null && doc["response"] !== undefined) return { _tag: "Replay", response: toResponse(doc["response"]) }
  if (millisOf(doc["locked_until"]) > now) return { _tag: "KeyInFlight" }
  return "retry"
}

/** The key as held by one claim, unanswered: a later claim set another `locked_until`. */
export const heldKeyFilter = (k: Storage.HeldKey): Filter<Document> => ({
  ...keyFilter(k),
  locked_until: new Date(k.lockedUntil),
  response: null
})

// -- merchant_reference (4.9, D4) --

/** A reference by its scope: merchant, environment and resource type (D4). */
export const referenceFilter = (r: Storage.ReferenceId): Filter<Document> => ({
  merchant_id: r.merchantId,
  environment: r.environment,
  resource_type: r.resourceType,
  reference: r.reference
})

/** The reference as a claim may take it: never completed, its lock lapsed (a completed one never lapses, 4.9). */
export const referenceTakeoverFilter = (c: Storage.ReferenceClaim, now: number): Filter<Document> => ({
  ...referenceFilter(c),
  completed: false,
  locked_until: { $lte: new Date(now) }
})

/** The claim as written. `completed: false` comes from the filter's equality when the claim inserts. */
export const referenceClaimUpdate = (c: Storage.ReferenceClaim): UpdateFilter<Document> => ({
  $set: { fingerprint: c.fingerprint, resource_id: c.resourceId, locked_until: new Date(c.lockedUntil) }
})

/** Judge the reference a claim could not take: taken, or changed in between ("retry"). */
export const judgeReference = (
  doc: Document | null,
  c: Storage.ReferenceClaim,
  now: number
): Extract<Storage.BeginOutcome, { readonly _tag: "ReferenceTaken" }> | "retry" => {
  if (doc === null) return "retry"
  const completed = doc["completed"] === true
  if (!completed && millisOf(doc["locked_until"]) <= now) return "retry"
  return {
    _tag: "ReferenceTaken",
    resourceId: String(doc["resource_id"]),
    sameFingerprint: doc["fingerprint"] === c.fingerprint,
    inFlight: !completed
  }
}

/** The reference as held for one resource. */
export const heldReferenceFilter = (r: Storage.HeldReference): Filter<Document> => ({
  ...referenceFilter(r),
  resource_id: r.resourceId
})

// -- purging --

/** 4.9.4: keys whose 24 hours are over. */
export const expiredKeysFilter = (now: number): Filter<Document> => ({ expires_at: { $lte: new Date(now) } })

/** Uncompleted reference claims whose lock lapsed at least the grace ago; completed ones are kept forever. */
export const lapsedReferencesFilter = (now: number): Filter<Document> => ({
  completed: false,
  locked_until: { $lte: new Date(now - Idempotency.claimGraceMillis) }
})

/**
 * How many times a claim is tried again when its document changed between the refused claim
 * and the read (released, expired, taken over). Each retry needs another request to have
 * changed the document in between, so a handful never runs out in practice.
 */
export const maxClaimAttempts = 8

const call = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })

/**
 * The claims of one adapter instance, on its two collections. Every completed key a begin reads
 * is kept in `replays` (core `ReplayCache`), which answers the next request with that key
 * before a round trip.
 */
export const make = (keys: Collection<Document>, references: Collection<Document>, replays?: ReplayCache.ReplayCache) => {
  /**
   * Claim by a conditional upsert: it updates a document the takeover filter matches, inserts one
   * when none exists, and fails with a duplicate key when one exists that it may not take; that
   * one is read and judged.
   */
  const claimOne = <J>(
    what: string,
    upsert: () => Promise<unknown>,
    read: () => Promise<Document | null>,
    judge: (doc: Document | null) => J | "retry"
  ): Effect.Effect<J | undefined, StorageError.StorageError> =>
    Effect.gen(function*() {
      for (let n = 1; n <= maxClaimAttempts; n++) {
        const claimed = yield* Effect.either(Effect.tryPromise({ try: upsert, catch: (e) => e }))
        if (claimed._tag === "Right") return undefined
        if (classify(claimed.left) !== "unique") return yield* Effect.fail(fold(`claim ${what}`)(claimed.left))
        const judged = judge(yield* call(`read ${what}`, read))
        if (judged !== "retry") return judged
      }
      return yield* Effect.fail(new StorageError.StorageFailure({ message: `mongodb: the ${what} kept changing while it was claimed` }))
    })

  const claimKey = (c: Storage.IdempotencyClaim, now: number) =>
    claimOne(
      "idempotency key",
      () => keys.updateOne(keyTakeoverFilter(c, now), keyClaimUpdate(c), { upsert: true }),
      () => keys.findOne(keyFilter(c), { projection: { _id: 0 } }),
      (doc) => {
        const judged = judgeKey(doc, c, now)
        if (doc !== null && typeof judged === "object" && judged._tag === "Replay") replays?.keep(c, millisOf(doc["expires_at"]), judged.response)
        return judged
      }
    )

  const claimReference = (c: Storage.ReferenceClaim, now: number) =>
    claimOne(
      "merchant_reference",
      () => references.updateOne(referenceTakeoverFilter(c, now), referenceClaimUpdate(c), { upsert: true }),
      () => references.findOne(referenceFilter(c), { projection: { _id: 0 } }),
      (doc) => judgeReference(doc, c, now)
    )

  /** Give back a key this begin claimed, unless something else has happened to it since. */
  const releaseClaimedKey = (c: Storage.IdempotencyClaim) =>
    Effect.ignore(call("release idempotency key", () => keys.deleteOne({ ...heldKeyFilter(c), fingerprint: c.fingerprint })))

  const begin = (req: Storage.BeginRequest): Effect.Effect<Storage.BeginOutcome, StorageError.StorageError> =>
    Effect.gen(function*() {
      const key = req.idempotency
      // Keys are judged before references, always: a key that answers leaves the reference untouched.
      if (key !== undefined) {
        const refused = yield* claimKey(key, req.now)
        if (refused !== undefined) return refused
      }
      if (req.reference === undefined) return { _tag: "Proceed" } as const
      const claimed = claimReference(req.reference, req.now)
      // The begin fails (a 5xx): the key it claimed is given back, so a retry reaches a fresh
      // handler (4.9.7). Best effort: if the store is down, the claim lapses instead.
      const taken = yield* key === undefined ? claimed : Effect.tapError(claimed, () => releaseClaimedKey(key))
      // A taken reference leaves the key claimed, for the caller to settle with a commit.
      return taken ?? ({ _tag: "Proceed" } as const)
    })

  return { begin }
}
