/**
 * Claims this process still owes the store (4.9.7): a request answered with a fault gives back its
 * `Idempotency-Key` and `merchant_reference` claims, and when the store cannot take that release
 * (it is down too) the release is tried again in the background (`giveBack`, operationSteps.ts). Until it
 * lands, the store still shows the claims in flight, though no request holds them: a retry in that
 * moment would be answered 409 in flight for a request that already answered 5xx. So the release
 * waits here too, by store and by the key and reference it frees, and a request of this process
 * that finds one of them in flight gives it back first and begins again (`Operation.run`).
 */
import type { IdempotencyKeyId, ReferenceId, Storage, Write } from "../../storage/Storage.js"

/** A release not yet taken by the store. */
export interface Pending {
  readonly writes: ReadonlyArray<Write>
}

// Every release still owed for each claim: a claim's releases are several when a request failed
// with the claim held and each retry's begin failed too (each gives back its own claim, fenced by
// its own lock). Kept as one per id, the second replaced the first, and when the second landed (it
// freed nothing: its begin had written nothing) the first, the one that frees the claim, was no
// longer found: the next retry answered 409 in flight (seen in Failover.test.ts).
const byStore = new WeakMap<Storage["Type"], Map<string, Set<Pending>>>()

const keyId = (k: IdempotencyKeyId) => `key\u0000${k.apiKeyId}\u0000${k.key}`
const referenceId = (r: ReferenceId) => `ref\u0000${r.merchantId}\u0000${r.environment}\u0000${r.resourceType}\u0000${r.reference}`

/** The claims `writes` give back, by id. */
const idsOf = (writes: ReadonlyArray<Write>): Array<string> =>
  writes.flatMap((w) => w._tag === "ReleaseIdempotency" ? [keyId(w.key)] : w._tag === "ReleaseReference" ? [referenceId(w.reference)] : [])

/** Keep `writes`, a release the store did not take, until `forget`. */
export const remember = (store: Storage["Type"], writes: ReadonlyArray<Write>): Pending => {
  const pending: Pending = { writes }
  let held = byStore.get(store)
  if (held === undefined) byStore.set(store, held = new Map())
  for (const id of idsOf(writes)) {
    const owed = held.get(id)
    if (owed === undefined) held.set(id, new Set([pending]))
    else owed.add(pending)
  }
  return pending
}

/** The release landed (or its claims lapsed): nothing owed for it any more. */
export const forget = (store: Storage["Type"], pending: Pending): void => {
  const held = byStore.get(store)
  if (held === undefined) return
  for (const id of idsOf(pending.writes)) {
    const owed = held.get(id)
    owed?.delete(pending)
    if (owed?.size === 0) held.delete(id)
  }
}

/** Every release this process owes for `key` or `reference` (none: empty). */
export const owed = (store: Storage["Type"], key: IdempotencyKeyId | undefined, reference: ReferenceId | undefined): ReadonlyArray<Pending> => {
  const held = byStore.get(store)
  if (held === undefined || held.size === 0) return []
  const all = new Set<Pending>()
  for (const p of key === undefined ? [] : held.get(keyId(key)) ?? []) all.add(p)
  for (const p of reference === undefined ? [] : held.get(referenceId(reference)) ?? []) all.add(p)
  return [...all]
}
