/**
 * The one function every provider update of a payment goes through (re-exported by
 * `PaymentIntentLifecycle` as `applyUpdate`, where it is documented): whatever the source, the
 * same rules decide the patch, the payer action's place, the receipt's verdict, the D11 amount
 * and currency guard, D10's late-payment refund, the follow-up poll and the events.
 */
import { Duration, Effect } from "effect"
import * as Telemetry from "../../observability/Telemetry.js"
import type { ProviderPaymentUpdate, ProviderRegistry } from "../../providers/Provider.js"
import { capabilitiesOfPayment } from "../../providers/ProviderAccounts.js"
import * as Refunds from "../../refunds/Refunds.js"
import type { IdGenerator } from "../../resources/Ids.js"
import type { Storage } from "../../storage/Storage.js"
import { scopeOf, Write } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import * as Task from "../../storage/Task.js"
import type { PaymentIntentRecord } from "../PaymentIntent.js"
import { isTerminal, pendingStatus } from "../PaymentIntent.js"
import type { Patch } from "./paymentIntentChange.js"
import { actionExpiry, answerPatch, change, created } from "./paymentIntentChange.js"

/**
 * Where an update came from. `create`: the provider's answer to a create, with the fields the
 * caller fixes with it (the route, the payer's choice), on an intent not stored yet (a
 * merchant-mode create) or stored (the hosted page's pay). `poll` carries the task's attempts,
 * for its back-off.
 */
export type Source =
  | { readonly _tag: "create"; readonly fields: Patch; readonly stored: boolean }
  | { readonly _tag: "confirm" }
  | { readonly _tag: "poll"; readonly attempts: number }
  | { readonly _tag: "receipt" }
  | { readonly _tag: "cancel" }
  | { readonly _tag: "notification" }

/** What an update did: `mismatch` is the D11 guard refusing a success of another amount or currency. */
export interface Applied {
  readonly outcome: "applied" | "unchanged" | "mismatch"
  /** The intent as the writes leave it (as read when they change nothing of it). */
  readonly record: PaymentIntentRecord
  readonly writes: ReadonlyArray<Write>
  /** Why nothing changed, for the host's eyes. */
  readonly detail: string | null
}

/**
 * The follow-up poll of each source: after an update that leaves the payment settling at the
 * provider (`Processing`, and for a receipt under review `Pending` too), the provider is asked
 * again after this delay. A notification's is long: the provider tells again, and polling is only
 * the fallback for a notice that never comes (D11); a poll backs off from its own attempts.
 */
const followUps: {
  readonly [K in Source["_tag"]]: {
    readonly after: (source: Extract<Source, { readonly _tag: K }>) => Duration.Duration
    readonly on: ReadonlyArray<ProviderPaymentUpdate["_tag"]>
    /** Only when the update moved the intent (a repeated notice asks nothing again). */
    readonly onlyWhenMoved: boolean
  }
} = {
  create: { after: () => Duration.seconds(2), on: ["Processing"], onlyWhenMoved: false },
  confirm: { after: () => Duration.seconds(2), on: ["Processing"], onlyWhenMoved: false },
  poll: { after: (s) => Task.backoff(s.attempts + 1), on: ["Processing"], onlyWhenMoved: false },
  receipt: { after: () => Duration.seconds(2), on: ["Processing", "Pending"], onlyWhenMoved: false },
  cancel: { after: () => Duration.seconds(2), on: [], onlyWhenMoved: false },
  notification: { after: () => Duration.seconds(30), on: ["Processing"], onlyWhenMoved: true }
}

/** The follow-up poll's delay after `update` from `source`, if one is due. */
export const followUpDelay = (source: Source, update: ProviderPaymentUpdate, moved: boolean): Duration.Duration | undefined => {
  const policy = followUps[source._tag] as {
    readonly after: (s: Source) => Duration.Duration
    readonly on: ReadonlyArray<string>
    readonly onlyWhenMoved: boolean
  }
  return policy.on.includes(update._tag) && (moved || !policy.onlyWhenMoved) ? policy.after(source) : undefined
}

const sameAmount = (reported: string, expected: string) => /^\d+$/.test(reported) && BigInt(reported) === BigInt(expected)

/** D11: the amount or currency the provider reports paid, where it differs from the intent's. */
export const mismatchOf = (intent: PaymentIntentRecord, update: ProviderPaymentUpdate): string | undefined => {
  if (update._tag !== "Succeeded") return undefined
  const amount = update.amount ?? null
  const currency = update.currency ?? null
  const differs = (amount !== null && !sameAmount(amount, intent.amount)) ||
    (currency !== null && currency.toUpperCase() !== intent.currency)
  return differs
    ? `the provider reports ${amount ?? intent.amount} ${currency ?? intent.currency} paid; the intent is ${intent.amount} ${intent.currency}`
    : undefined
}

/** The change a create's answer makes: the payer action in its place (the hosted page's, or the merchant's `next_action`). */
const createdPatch = (intent: PaymentIntentRecord, update: ProviderPaymentUpdate): Patch | undefined => {
  if (update._tag !== "Action") return answerPatch(intent, update)
  const action = update.nextAction
  // 2.1: a method that asks for payment evidence says so until a receipt is submitted (4.4).
  const receipt = action.type === "display_bank_transfer_instructions" && action.requires_receipt ? { status: "required" as const } : null
  return intent.checkoutMode === "hosted"
    ? { hostedAction: action, receipt }
    : { status: pendingStatus(action), nextAction: action, receipt }
}

const none = (intent: PaymentIntentRecord, outcome: Applied["outcome"], detail: string | null): Applied => ({
  outcome,
  record: intent,
  writes: [],
  detail
})

/** The writes and record of the intent's change, before the follow-up poll. */
const decide = (intent: PaymentIntentRecord, update: ProviderPaymentUpdate, source: Source, now: number) =>
  Effect.gen(function*() {
    const mismatch = mismatchOf(intent, update)
    if (mismatch !== undefined) {
      yield* Telemetry.record(Telemetry.metrics.providerMismatches, 1, { provider: intent.providerCode ?? "", source: source._tag })
      yield* Effect.logWarning("tender: a provider reported a payment that differs from its intent; the intent is left as it is", intent.id, mismatch)
      return none(intent, "mismatch", mismatch)
    }
    if (source._tag === "create") {
      const patch = { ...source.fields, ...createdPatch(intent, update) }
      if (!source.stored) {
        const record: PaymentIntentRecord = { ...intent, ...patch }
        return { outcome: "applied", record, writes: yield* created(record), detail: null } satisfies Applied
      }
      // The hosted page's pay: the intent now awaits the payer's action at the provider.
      const events = update._tag === "Action" ? ["payment_intent.requires_action" as const] : []
      return { outcome: "applied", ...yield* change(intent, patch, now, events), detail: null } satisfies Applied
    }
    if ((intent.status === "canceled" || intent.status === "expired") && update._tag === "Succeeded") {
      // D10: paid after the cancel, or after the expiry (the payer paid late, or a payment
      // processing at a provider that cannot be polled outlived its timer). The intent stays as
      // it is, terminal (3.1.3), and the money goes back (once): Tender never keeps money
      // for an intent the merchant was told had ended (docs/refunds.md, "Late payments").
      const writes = yield* Refunds.latePayment(intent)
      return writes.length === 0
        ? none(intent, "unchanged", `the late payment of this ${intent.status} intent is refunded already`)
        : { outcome: "applied", record: intent, writes, detail: null } satisfies Applied
    }
    if (isTerminal(intent.status)) return none(intent, "unchanged", `the payment intent is ${intent.status}`)
    const patch = answerPatch(intent, update)
    if (patch === undefined || patch.status === intent.status) return none(intent, "unchanged", `the payment intent is ${intent.status}`)
    return { outcome: "applied", ...yield* change(intent, patch, now), detail: null } satisfies Applied
  })

/**
 * A payment that moved to `processing` at a provider that cannot be polled: nothing but a
 * notification would ever end it, so it keeps the expiry of the payer action it had (its timer
 * due then expires it, docs/payment-lifecycle.md, "Expiry"). None without such an action.
 */
const withProcessingExpiry = (before: PaymentIntentRecord, applied: Applied, now: number) =>
  Effect.gen(function*() {
    const at = actionExpiry(before)
    if (applied.outcome !== "applied" || applied.record.status !== "processing" || before.status === "processing" || at === undefined) {
      return applied
    }
    const timer = yield* Task.make({ ...scopeOf(before), kind: "payment_intent.expire", resourceId: before.id, dueAt: at, now })
    return { ...applied, writes: [...applied.writes, Write.insert(Task.table, timer)] }
  })

/** Apply `update` from `source` to `intent` as read: see `PaymentIntentLifecycle.applyUpdate`. */
export const applyUpdate = (
  intent: PaymentIntentRecord,
  update: ProviderPaymentUpdate,
  source: Source,
  now: number
): Effect.Effect<Applied, StorageError, IdGenerator | Storage | ProviderRegistry> =>
  Effect.gen(function*() {
    const applied = yield* decide(intent, update, source, now)
    const after = applied.record
    const delay = isTerminal(after.status) ? undefined : followUpDelay(source, update, applied.outcome === "applied")
    // A method whose provider cannot be polled is never polled: its notifications and the payer
    // action's expiry move it (docs/provider-adapters.md, "Capabilities").
    const toProcessing = applied.outcome === "applied" && after.status === "processing" && intent.status !== "processing"
    if (delay === undefined && !toProcessing) return applied
    if (!(yield* capabilitiesOfPayment(after)).poll) return yield* withProcessingExpiry(intent, applied, now)
    if (delay === undefined) return applied
    const poll = yield* Task.make({ ...scopeOf(after), kind: "payment_intent.poll", resourceId: after.id, dueAt: now + Duration.toMillis(delay), now })
    return { ...applied, writes: [...applied.writes, Write.insert(Task.table, poll)] }
  })
