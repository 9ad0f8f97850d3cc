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
import * as changes from "./internal/paymentIntentChange.js"
import * as tasks from "./internal/paymentIntentTasks.js"
import * as update from "./internal/paymentIntentUpdate.js"

/** The D7 event a status emits when an intent enters it. @since 0.1.0 @category events */
export const statusEvent = changes.statusEvent

/** A change the lifecycle may make: any field but the intent's identity, scope and history. @since 0.1.0 @category models */
export type Patch = changes.Patch

/**
 * When the payer action of `record` expires, if it says: the earlier of `next_action` and, for
 * a hosted intent, its provider's action shown in the page (`hostedAction`).
 *
 * @since 0.1.0 @category transitions
 */
export const actionExpiry = changes.actionExpiry

/**
 * The writes of a new intent: the insert, `payment_intent.created` and the event of its
 * status, and the expiry timer of its payer action.
 *
 * @since 0.1.0 @category transitions
 */
export const created = changes.created

/**
 * One change of an intent: the new record (version one higher, guarded by the version it was
 * read at), its status event when the status changes, `extraEvents`, and a new expiry timer
 * when the change brings a new payer action. A transition 3.1 does not allow, or a record that
 * breaks an invariant of 3.1, is a defect, never stored.
 *
 * @since 0.1.0 @category transitions
 */
export const change = changes.change

/**
 * What the provider said, as a patch of the intent; none when nothing changes (`Pending`: the
 * payer has not paid or must still act).
 *
 * @since 0.1.0 @category transitions
 */
export const patchFor = changes.patchFor

/**
 * The change the provider's answer makes to `intent`: `patchFor`, and a final answer also
 * settles a submitted receipt (accepted with a success, rejected with a failure). None when
 * nothing changes.
 *
 * @since 0.1.0 @category transitions
 */
export const answerPatch = changes.answerPatch

/** The payment at its provider, for the operations after create; none before the provider was called. @since 0.1.0 @category getters */
export const providerRef = changes.providerRef

/**
 * Run one task of a payment intent: confirm and poll at its provider, expire it when its payer
 * action expires, submit its receipt. Each is idempotent and writes its change with its events.
 * Exhaustive over the task kinds: a new kind does not compile until it has a handler.
 *
 * @since 0.1.0 @category tasks
 */
export const run = tasks.run

/**
 * Where a provider update came from: `create` (the answer to a create, with the fields the caller
 * fixes with it, on an intent not yet stored or, for the hosted page's pay, stored), `confirm`,
 * `poll` (with the task's attempts), `receipt`, `cancel`, `notification` (D11).
 *
 * @since 0.1.0 @category models
 */
export type Source = update.Source

/**
 * What `applyUpdate` did: `applied` (the writes move the intent, or refund a late payment),
 * `unchanged` (terminal, or already there), `mismatch` (the D11 guard refused a success of
 * another amount or currency: nothing written, logged and counted); the intent as the writes
 * leave it; the writes to commit; why nothing changed.
 *
 * @since 0.1.0 @category models
 */
export type Applied = update.Applied

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
 * @since 0.1.0 @category transitions
 */
export const applyUpdate = update.applyUpdate
