/**
 * The payment intent after create: every status change is one `change`, checked against
 * the transitions of 3.1 (`PaymentIntent.canTransition`) and its invariants, and written
 * with its D7 event (and any task it causes) in one commit. The durable tasks that move an
 * intent (confirm, poll, expire, submit a receipt) are `run`. The changes are
 * `internal/paymentIntentChange.ts`, the tasks `internal/paymentIntentTasks.ts`.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import type { IdGenerator } from "./Ids.js"
import type { PaymentIntentRecord } from "./PaymentIntent.js"
import { isTerminal, table } from "./PaymentIntent.js"
import type { ProviderPaymentStatus } from "./Provider.js"
import * as Refunds from "./Refunds.js"
import type { Write } from "./Storage.js"
import { Storage } from "./Storage.js"
import type { StorageError } from "./StorageError.js"
import { answerPatch, change } from "./internal/paymentIntentChange.js"
import { retryWhileStale } from "./StorageError.js"

/** The writes of a status change, and what a provider's answer changes. @since 0.1.0 */
export {
  actionExpiry,
  answerPatch,
  change,
  created,
  patchFor,
  providerRef,
  statusEvent
} from "./internal/paymentIntentChange.js"
/** @since 0.1.0 @category models */
export type { Patch } from "./internal/paymentIntentChange.js"

/** Run one task of a payment intent. @since 0.1.0 */
export { run } from "./internal/paymentIntentTasks.js"

// ---------------------------------------------------------------------------
// Provider notifications (push)
// ---------------------------------------------------------------------------

/** A provider's notice that a payment changed, as its adapter's webhook receiver decoded it. @since 0.1.0 @category models */
export interface ProviderUpdate {
  /** The provider's code, as installed. */
  readonly provider: string
  /** Our payment intent id, which every provider operation carries. */
  readonly paymentIntentId: string
  /** The provider's own id of the payment: must match the one it gave at create. */
  readonly providerPaymentId: string
  readonly status: ProviderPaymentStatus
}

/**
 * The entry point for a provider that pushes status changes (its webhook), the counterpart
 * of polling. The notice must name an intent routed to that provider with that payment id;
 * it is applied like any other change (3.1 transitions, its event in the same commit), and
 * a notice about an intent already terminal changes nothing. Idempotent: the same notice
 * twice applies once. The adapter authenticates its provider's request before calling this.
 *
 * @since 0.1.0
 */
export const receiveProviderUpdate = (update: ProviderUpdate) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const found = yield* storage.find(table, update.paymentIntentId)
    if (
      Option.isNone(found) || found.value.providerCode !== update.provider ||
      found.value.providerPaymentId !== update.providerPaymentId
    ) return "unknown" as const
    const { writes } = yield* providerStatusWrites(found.value, update.status)
    if (writes.length === 0) return "unchanged" as const
    return yield* storage.commit(writes).pipe(Effect.as("applied" as const))
  }).pipe(
    // A concurrent change won the race: read again and judge the notice against it.
    retryWhileStale
  )

/**
 * What the provider's word on a payment (a push, or a stored provider notification, D11) does to
 * `intent` as read: the checked change and its events; a payment reported for a canceled intent
 * is D10's late-payment refund (once); nothing for a terminal intent or a status it is already
 * in. The caller commits the writes, guarded by the version read.
 *
 * @since 0.1.0
 */
export const providerStatusWrites = (
  intent: PaymentIntentRecord,
  status: ProviderPaymentStatus
): Effect.Effect<{ readonly writes: ReadonlyArray<Write>; readonly record: PaymentIntentRecord }, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    const none = { writes: [] as ReadonlyArray<Write>, record: intent }
    if (intent.status === "canceled" && status._tag === "Succeeded") {
      // D10: paid after the cancel. The intent stays canceled and the money goes back.
      return { writes: yield* Refunds.latePayment(intent), record: intent }
    }
    const patch = answerPatch(intent, status)
    if (isTerminal(intent.status) || patch === undefined || patch.status === intent.status) return none
    return yield* change(intent, patch, yield* Clock.currentTimeMillis)
  })
