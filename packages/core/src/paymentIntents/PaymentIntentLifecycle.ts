/**
 * The payment intent after create: every status change is one `change`, checked against
 * the transitions of 3.1 (`PaymentIntent.canTransition`) and its invariants, and written
 * with its D7 event (and any task it causes) in one commit. Everything a provider says about a
 * payment, from any source, goes through one function, `applyUpdate`. The durable tasks that
 * move an intent (confirm, poll, expire, submit a receipt) are `run`. The changes are
 * `internal/paymentIntentChange.ts`, the update `internal/paymentIntentUpdate.ts`, the tasks
 * `internal/paymentIntentTasks.ts`.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/paymentIntentUpdate.js"

/** The writes of a status change, and what a provider's answer changes. @since 0.1.0 */
export { actionExpiry, answerPatch, change, created, patchFor, providerRef, statusEvent } from "./internal/paymentIntentChange.js"
/** @since 0.1.0 @category models */
export type { Patch } from "./internal/paymentIntentChange.js"

/** Run one task of a payment intent. @since 0.1.0 */
export { run } from "./internal/paymentIntentTasks.js"

/**
 * Where a provider update came from: `create` (the answer to a create, with the fields the caller
 * fixes with it, on an intent not yet stored or, for the hosted page's pay, stored), `confirm`,
 * `poll` (with the task's attempts), `receipt`, `cancel`, `notification` (D11).
 *
 * @since 0.1.0 @category models
 */
export type Source = internal.Source

/**
 * What `applyUpdate` did: `applied` (the writes move the intent, or refund a late payment),
 * `unchanged` (terminal, or already there), `mismatch` (the D11 guard refused a success of
 * another amount or currency: nothing written, logged and counted); the intent as the writes
 * leave it; the writes to commit; why nothing changed.
 *
 * @since 0.1.0 @category models
 */
export type Applied = internal.Applied

/**
 * The one function every provider update of a payment goes through, whatever its source
 * (`ProviderPaymentUpdate`, from create, confirm, poll, receipt, cancel or a notification, the
 * simulator's payer included): it alone decides
 *
 * - the patch: `Succeeded`, `Failed`, `Processing` move a pending intent (3.1); `Pending` and
 *   a repeated status change nothing; a provider's `Canceled` of a pending payment fails it
 *   (`payment_expired`); a terminal intent never moves;
 * - where a create's payer action goes: the hosted page's (`hostedAction`, with
 *   `payment_intent.requires_action`) or the merchant's `next_action`;
 * - a submitted receipt's verdict (accepted with a success, rejected with a failure, 4.4);
 * - the D11 guard, for every source: a success whose amount or currency differs from the
 *   intent's leaves the intent as it is (`mismatch`, logged and counted in
 *   `tender.provider.mismatches`);
 * - D10's late payment: a success reported for a canceled or expired intent refunds it, once;
 * - the follow-up poll, one policy per source (2 s after a create, confirm or receipt; a poll
 *   backs off; 30 s after a notification, polling being its fallback), and the expiry timer of a
 *   new payer action;
 * - the events of the change.
 *
 * Every caller is: load, call the provider, `applyUpdate`, commit the writes (guarded by the
 * version read). A ledger of what the provider settled (D12) hooks here: every change to
 * `succeeded` and every late-payment refund is among these writes.
 *
 * @since 0.1.0
 */
export const applyUpdate = internal.applyUpdate
