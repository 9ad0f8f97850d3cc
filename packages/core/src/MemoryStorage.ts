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
import type { BeginOutcome, Commit, IdempotencyKeyId, ReferenceId, StoredResponse } from "./Storage.js"
import { compareNewestFirst, Storage } from "./Storage.js"

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

const keyOf = (k: IdempotencyKeyId) => `${k.apiKeyId}\u0000${k.key}`
const refOf = (r: ReferenceId) => `${r.merchantId}\u0000${r.environment}\u0000${r.resourceType}\u0000${r.reference}`

/** A fresh, empty in-memory store. @since 0.1.0 @category constructors */
export const make = () => {
  const intents = new Map<string, PaymentIntentRecord>()
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

  const commit = (c: Commit): Effect.Effect<void, StorageError> =>
    Effect.suspend(() => {
      // Check everything first, then apply: all or nothing.
      if (c.insertPaymentIntent !== undefined && intents.has(c.insertPaymentIntent.id)) {
        return Effect.fail(new StorageError({ message: `duplicate payment intent id ${c.insertPaymentIntent.id}` }))
      }
      if (c.updatePaymentIntent !== undefined) {
        const current = intents.get(c.updatePaymentIntent.record.id)
        if (current === undefined || current.version !== c.updatePaymentIntent.expectedVersion) {
          return Effect.fail(new StorageError({ message: `stale update of ${c.updatePaymentIntent.record.id}` }))
        }
      }
      if (c.insertPaymentIntent !== undefined) intents.set(c.insertPaymentIntent.id, c.insertPaymentIntent)
      if (c.updatePaymentIntent !== undefined) intents.set(c.updatePaymentIntent.record.id, c.updatePaymentIntent.record)
      if (c.completeReference !== undefined) {
        const row = refs.get(refOf(c.completeReference))
        if (row !== undefined && row.resourceId === c.completeReference.resourceId) row.committed = true
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
      if (c.releaseIdempotency !== undefined) keys.delete(keyOf(c.releaseIdempotency))
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
    listPaymentIntents: (q) =>
      Effect.sync(() => {
        const statuses = q.statuses !== undefined ? new Set(q.statuses) : undefined
        const out: Array<PaymentIntentRecord> = []
        for (const r of intents.values()) {
          if (r.merchantId !== q.merchantId || r.environment !== q.environment) continue
          if (q.country !== undefined && r.country !== q.country) continue
          if (q.currency !== undefined && r.currency !== q.currency) continue
          if (q.createdAfter !== undefined && r.createdAt < q.createdAfter) continue
          if (q.createdBefore !== undefined && r.createdAt >= q.createdBefore) continue
          if (q.merchantReference !== undefined && r.merchantReference !== q.merchantReference) continue
          if (statuses !== undefined && !statuses.has(r.status)) continue
          if (q.after !== undefined && compareNewestFirst(q.after, r) >= 0) continue
          out.push(r)
        }
        return out.sort(compareNewestFirst).slice(0, q.limit)
      })
  })
}

/** The in-memory `Storage` layer. @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Storage> = Layer.sync(Storage, make)
