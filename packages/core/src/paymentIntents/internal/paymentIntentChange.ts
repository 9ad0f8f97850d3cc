/**
 * What the payment intent's status changes share (public, and documented, in
 * `PaymentIntentLifecycle`): the writes of a new intent and of one checked change (3.1 transitions and invariants, its
 * D7 event, the expiry timer of a new payer action), and what a provider's answer changes.
 */
import { Effect } from "effect"
import * as Event from "../../events/Event.js"
import type { EventType } from "../../events/WebhookEvents.js"
import { failure } from "../../providers/internal/providerFailures.js"
import type { ProviderPaymentRef, ProviderPaymentStatus } from "../../providers/Provider.js"
import type { IdGenerator } from "../../resources/Ids.js"
import type { Storage } from "../../storage/Storage.js"
import { scopeOf, Write } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import * as Task from "../../storage/Task.js"
import type { PaymentIntentRecord, Status } from "../PaymentIntent.js"
import { canTransition, invariantViolations, isTerminal, table, toResource } from "../PaymentIntent.js"

/** `PaymentIntentLifecycle.statusEvent`. */
export const statusEvent = (status: Status): EventType => {
  switch (status) {
    case "requires_action":
      return "payment_intent.requires_action"
    case "processing":
      return "payment_intent.processing"
    case "succeeded":
      return "payment_intent.succeeded"
    case "failed":
      return "payment_intent.failed"
    case "expired":
      return "payment_intent.expired"
    case "canceled":
      return "payment_intent.canceled"
  }
}

/** `PaymentIntentLifecycle.Patch`. */
export type Patch = Partial<
  Omit<PaymentIntentRecord, "id" | "merchantId" | "environment" | "createdAt" | "updatedAt" | "version" | "fingerprint">
>

/** `PaymentIntentLifecycle.actionExpiry`. */
export const actionExpiry = (record: Pick<PaymentIntentRecord, "nextAction" | "hostedAction">): number | undefined => {
  const times = [record.nextAction?.expires_at, record.hostedAction?.expires_at]
    .filter((at): at is string => at !== undefined)
    .map((at) => Date.parse(at))
  return times.length === 0 ? undefined : Math.min(...times)
}

/** The expiry timer of an intent whose payer action expires: a task due at `expires_at`. */
const expiryTask = (record: PaymentIntentRecord, now: number) => {
  const at = actionExpiry(record)
  return at === undefined || isTerminal(record.status)
    ? Effect.succeed([] as ReadonlyArray<Write>)
    : Effect.map(
      Task.make({ ...scopeOf(record), kind: "payment_intent.expire", resourceId: record.id, dueAt: at, now }),
      (task) => [Write.insert(Task.table, task)]
    )
}

/** The scope of an intent, for the records written beside it. */

/** A record that breaks a rule of 3.1 is a defect, never stored. */
const checked = (record: PaymentIntentRecord) => {
  const violations = invariantViolations(record)
  return violations.length > 0 ? Effect.die(new Error(`invariant broken: ${violations.join("; ")}`)) : Effect.void
}

/** The writes of a new intent, public as `PaymentIntentLifecycle.created`. */
export const created = (record: PaymentIntentRecord): Effect.Effect<ReadonlyArray<Write>, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    yield* checked(record)
    const events = yield* Event.writes(record, "payment_intent", toResource(record), [
      "payment_intent.created",
      statusEvent(record.status)
    ])
    return [Write.insert(table, record), ...events, ...yield* expiryTask(record, record.createdAt)]
  })

/** One checked change of an intent, public as `PaymentIntentLifecycle.change`. */
export const change = (
  before: PaymentIntentRecord,
  patch: Patch,
  now: number,
  extraEvents: ReadonlyArray<EventType> = []
): Effect.Effect<{ readonly record: PaymentIntentRecord; readonly writes: ReadonlyArray<Write> }, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    const record: PaymentIntentRecord = { ...before, ...patch, updatedAt: Math.max(now, before.updatedAt), version: before.version + 1 }
    if (!canTransition(before.status, record.status)) {
      return yield* Effect.die(new Error(`3.1 no transition from ${before.status} to ${record.status}`))
    }
    yield* checked(record)
    const types = [...(record.status !== before.status ? [statusEvent(record.status)] : []), ...extraEvents]
    const events = yield* Event.writes(record, "payment_intent", toResource(record), types)
    const renewed = actionExpiry(record) !== undefined && actionExpiry(record) !== actionExpiry(before)
    const timers = renewed ? yield* expiryTask(record, now) : []
    return { record, writes: [Write.update(table, record, before.version), ...events, ...timers] }
  })

/** `PaymentIntentLifecycle.patchFor`. */
export const patchFor = (status: ProviderPaymentStatus): Patch | undefined => {
  switch (status._tag) {
    case "Succeeded":
      return { status: "succeeded", nextAction: null, hostedAction: null, processingReason: null }
    case "Failed":
      return {
        status: "failed",
        nextAction: null,
        hostedAction: null,
        processingReason: null,
        failureCode: status.failureCode,
        failureMessage: status.failureMessage
      }
    case "Canceled":
      // Ended unpaid at the provider: the intent has no status for that, it failed (3.1).
      return patchFor({ _tag: "Failed", ...failure("payment_expired") })
    case "Processing":
      return { status: "processing", nextAction: null, hostedAction: null, processingReason: "asynchronous" }
    case "Action":
    case "Pending":
      // The payer has not paid (or must still act): nothing changes.
      return undefined
  }
}

/** `PaymentIntentLifecycle.answerPatch`. */
export const answerPatch = (intent: PaymentIntentRecord, status: ProviderPaymentStatus): Patch | undefined => {
  const patch = patchFor(status)
  if (patch === undefined || intent.receipt?.status !== "submitted") return patch
  switch (patch.status) {
    case "succeeded":
      return { ...patch, receipt: { ...intent.receipt, status: "accepted" } }
    case "failed":
      return { ...patch, receipt: { ...intent.receipt, status: "rejected" } }
    default:
      return patch
  }
}

/** `PaymentIntentLifecycle.providerRef`. */
export const providerRef = (record: PaymentIntentRecord): ProviderPaymentRef | undefined =>
  record.providerPaymentId === null ? undefined : {
    paymentIntentId: record.id,
    providerPaymentId: record.providerPaymentId,
    environment: record.environment,
    amount: record.amount,
    currency: record.currency,
    createdAt: record.createdAt
  }
