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

const byStore = new WeakMap<Storage["Type"], Map<string, Pending>>()

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
  for (const id of idsOf(writes)) held.set(id, pending)
  return pending
}

/** The release landed (or its claims lapsed): nothing owed for it any more. */
export const forget = (store: Storage["Type"], pending: Pending): void => {
  const held = byStore.get(store)
  if (held === undefined) return
  for (const id of idsOf(pending.writes)) if (held.get(id) === pending) held.delete(id)
}

/** The release this process owes for `key` or `reference`, if any. */
export const owed = (store: Storage["Type"], key: IdempotencyKeyId | undefined, reference: ReferenceId | undefined): Pending | undefined => {
  const held = byStore.get(store)
  if (held === undefined || held.size === 0) return undefined
  return (key === undefined ? undefined : held.get(keyId(key))) ?? (reference === undefined ? undefined : held.get(referenceId(reference)))
}
