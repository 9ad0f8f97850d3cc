/**
 * The in-memory storage adapter. Every operation runs synchronously inside one
 * `Effect.sync`, so on Node's single thread each is atomic with respect to every other
 * fiber: correct under concurrency without locks.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import { StorageError } from "./Errors.js"
import type { PaymentIntentRecord } from "./PaymentIntent.js"
import type { BeginOutcome, Commit, HeldKey, IdempotencyKeyId, ReferenceId, StoredResponse } from "./Storage.js"
import { claimGraceMillis, compareNewestFirst, Storage } from "./Storage.js"

interface KeyRow {
  fingerprint: string
  expiresAt: number
  lockedUntil: number
  response: StoredResponse | null
}

interface ReferenceRow {
  fingerprint: string
  resourceId: string
  lockedUntil: number
  committed: boolean
}

/** Oldest first by (createdAt, id): the reverse of the list order, so inserts append. */
const compareOldestFirst = (a: { readonly createdAt: number; readonly id: string }, b: { readonly createdAt: number; readonly id: string }) =>
  compareNewestFirst(b, a)

/** First index whose row is not older than `probe` (binary search over oldest-first rows). */
const lowerBound = (rows: ReadonlyArray<PaymentIntentRecord>, probe: { readonly createdAt: number; readonly id: string }) => {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareOldestFirst(rows[mid]!, probe) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

const keyOf = (k: IdempotencyKeyId) => `${k.apiKeyId}\u0000${k.key}`
const refOf = (r: ReferenceId) => `${r.merchantId}\u0000${r.environment}\u0000${r.resourceType}\u0000${r.reference}`

/** A fresh, empty in-memory store. @since 0.1.0 @category constructors */
export const make = () => {
  const intents = new Map<string, PaymentIntentRecord>()
  // Per (merchant, environment), oldest first: lists walk it backwards from a binary-searched start.
  const byScope = new Map<string, Array<PaymentIntentRecord>>()
  const scopeOf = (r: { readonly merchantId: string; readonly environment: string }) => `${r.merchantId}\u0000${r.environment}`
  const index = (r: PaymentIntentRecord, replace: boolean) => {
    let rows = byScope.get(scopeOf(r))
    if (rows === undefined) byScope.set(scopeOf(r), rows = [])
    const at = lowerBound(rows, r)
    if (replace && rows[at]?.id === r.id) rows[at] = r
    else rows.splice(at, 0, r)
  }
  const intentsByReference = new Set<string>()
  const intentReferenceOf = (r: PaymentIntentRecord) =>
    r.merchantReference === null ? undefined : `${scopeOf(r)}\u0000${r.merchantReference}`
  const keys = new Map<string, KeyRow>()
  const refs = new Map<string, ReferenceRow>()

  const begin = (req: Parameters<Storage["Type"]["begin"]>[0]): BeginOutcome => {
    const { idempotency, now, reference } = req
    if (idempotency !== undefined) {
      const row = keys.get(keyOf(idempotency))
      if (row !== undefined && row.expiresAt > now) {
        if (row.fingerprint !== idempotency.fingerprint) return { _tag: "KeyConflict" }
        if (row.response !== null) return { _tag: "Replay", response: row.response }
        if (row.lockedUntil > now) return { _tag: "KeyInFlight" }
        // An in-flight claim whose holder died: the retry takes it over.
      }
    }
    let taken: BeginOutcome | undefined
    if (reference !== undefined) {
      const row = refs.get(refOf(reference))
      if (row !== undefined && (row.committed || row.lockedUntil > now)) {
        taken = {
          _tag: "ReferenceTaken",
          resourceId: row.resourceId,
          sameFingerprint: row.fingerprint === reference.fingerprint,
          inFlight: !row.committed
        }
      } else {
        refs.set(refOf(reference), {
          fingerprint: reference.fingerprint,
          resourceId: reference.resourceId,
          lockedUntil: reference.lockedUntil,
          committed: false
        })
      }
    }
    if (idempotency !== undefined) {
      keys.set(keyOf(idempotency), {
        fingerprint: idempotency.fingerprint,
        expiresAt: idempotency.expiresAt,
        lockedUntil: idempotency.lockedUntil,
        response: null
      })
    }
    return taken ?? { _tag: "Proceed" }
  }

  /** Whether the key is still held, unanswered, by the claim that set `lockedUntil`. */
  const holds = (k: HeldKey) => {
    const row = keys.get(keyOf(k))
    return row !== undefined && row.response === null && row.lockedUntil === k.lockedUntil
  }

  const commit = (c: Commit): Effect.Effect<void, StorageError> =>
    Effect.suspend(() => {
      // Check everything first, then apply: all or nothing.
      if (c.insertPaymentIntent !== undefined && intents.has(c.insertPaymentIntent.id)) {
        return Effect.fail(new StorageError({ message: `duplicate payment intent id ${c.insertPaymentIntent.id}`, reason: "UniqueViolation" }))
      }
      // merchant_reference is unique per merchant and environment among payment intents, whatever the claims say.
      const reference = c.insertPaymentIntent !== undefined ? intentReferenceOf(c.insertPaymentIntent) : undefined
      if (reference !== undefined && intentsByReference.has(reference)) {
        return Effect.fail(new StorageError({ message: "duplicate merchant_reference", reason: "UniqueViolation" }))
      }
      // Completing a reference is a precondition: a resource that no longer holds its claim (it lapsed and
      // another create took it over) must not be written, or the reference would name the wrong intent.
      if (c.completeReference !== undefined && refs.get(refOf(c.completeReference))?.resourceId !== c.completeReference.resourceId) {
        return Effect.fail(new StorageError({ message: "merchant_reference is no longer held by this resource", reason: "UniqueViolation" }))
      }
      if (c.completeIdempotency !== undefined && !holds(c.completeIdempotency)) {
        return Effect.fail(new StorageError({ message: "the idempotency key was taken over by a retry", reason: "ClaimLost" }))
      }
      if (c.updatePaymentIntent !== undefined) {
        const current = intents.get(c.updatePaymentIntent.record.id)
        if (current === undefined || current.version !== c.updatePaymentIntent.expectedVersion) {
          return Effect.fail(new StorageError({ message: `stale update of ${c.updatePaymentIntent.record.id}`, reason: "StaleVersion" }))
        }
      }
      if (c.insertPaymentIntent !== undefined) {
        if (reference !== undefined) intentsByReference.add(reference)
        intents.set(c.insertPaymentIntent.id, c.insertPaymentIntent)
        index(c.insertPaymentIntent, false)
      }
      if (c.updatePaymentIntent !== undefined) {
        intents.set(c.updatePaymentIntent.record.id, c.updatePaymentIntent.record)
        index(c.updatePaymentIntent.record, true)
      }
      if (c.completeReference !== undefined) {
        const row = refs.get(refOf(c.completeReference))
        if (row !== undefined) row.committed = true
      }
      if (c.releaseReference !== undefined) {
        const row = refs.get(refOf(c.releaseReference))
        if (row !== undefined && !row.committed && row.resourceId === c.releaseReference.resourceId) {
          refs.delete(refOf(c.releaseReference))
        }
      }
      if (c.completeIdempotency !== undefined) {
        const row = keys.get(keyOf(c.completeIdempotency))
        if (row !== undefined) row.response = c.completeIdempotency.response
      }
      if (c.releaseIdempotency !== undefined && holds(c.releaseIdempotency)) keys.delete(keyOf(c.releaseIdempotency))
      return Effect.void
    })

  return Storage.of({
    begin: (req) => Effect.sync(() => begin(req)),
    commit,
    getPaymentIntent: (scope, id) =>
      Effect.sync(() => {
        const row = intents.get(id)
        // Another merchant's or environment's intent is indistinguishable from none (4.2).
        return row !== undefined && row.merchantId === scope.merchantId && row.environment === scope.environment
          ? Option.some(row)
          : Option.none()
      }),
    purgeExpired: (now) =>
      Effect.sync(() => {
        let idempotencyKeys = 0
        let referenceClaims = 0
        for (const [k, row] of keys) {
          if (row.expiresAt <= now) {
            keys.delete(k)
            idempotencyKeys++
          }
        }
        for (const [k, row] of refs) {
          if (!row.committed && row.lockedUntil + claimGraceMillis <= now) {
            refs.delete(k)
            referenceClaims++
          }
        }
        return { idempotencyKeys, referenceClaims }
      }),
    listPaymentIntents: (q) =>
      Effect.sync(() => {
        const rows = byScope.get(scopeOf(q)) ?? []
        const statuses = q.statuses !== undefined ? new Set(q.statuses) : undefined
        // Start just below the cursor or created_before, whichever is lower; walk to older rows.
        let start = rows.length
        if (q.after !== undefined) start = Math.min(start, lowerBound(rows, q.after))
        if (q.createdBefore !== undefined) start = Math.min(start, lowerBound(rows, { createdAt: q.createdBefore, id: "" }))
        const out: Array<PaymentIntentRecord> = []
        for (let i = start - 1; i >= 0 && out.length < q.limit; i--) {
          const r = rows[i]!
          if (q.createdAfter !== undefined && r.createdAt < q.createdAfter) break
          if (q.country !== undefined && r.country !== q.country) continue
          if (q.currency !== undefined && r.currency !== q.currency) continue
          if (q.merchantReference !== undefined && r.merchantReference !== q.merchantReference) continue
          if (statuses !== undefined && !statuses.has(r.status)) continue
          out.push(r)
        }
        return out
      })
  })
}

/** The in-memory `Storage` layer. @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Storage> = Layer.sync(Storage, make)
