/**
 * The payment intent after create: every status change is one `change`, checked against
 * the transitions of 3.1 (`PaymentIntent.canTransition`) and its invariants, and written
 * with its D7 event (and any task it causes) in one commit. The durable tasks that move an
 * intent (confirm, poll, expire, submit a receipt) live here too.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Option } from "effect"
import * as Asset from "./Asset.js"
import * as Event from "./Event.js"
import type { IdGenerator } from "./Ids.js"
import type { PaymentIntentRecord, Status } from "./PaymentIntent.js"
import { canTransition, invariantViolations, isTerminal, table, toResource } from "./PaymentIntent.js"
import type { ProviderPaymentRef, ProviderPaymentStatus } from "./Provider.js"
import { ProviderRegistry, ProviderUnavailable } from "./Provider.js"
import * as Refunds from "./Refunds.js"
import { providerTimeout } from "./Routing.js"
import { Storage, Write } from "./Storage.js"
import type { StorageError } from "./StorageError.js"
import * as Task from "./Task.js"
import type { EventType } from "./WebhookEvents.js"

/** The D7 event a status emits when an intent enters it. @since 0.1.0 */
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

/** A change the lifecycle may make: any field but the intent's identity, scope and history. @since 0.1.0 @category models */
export type Patch = Partial<
  Omit<PaymentIntentRecord, "id" | "merchantId" | "environment" | "createdAt" | "updatedAt" | "version" | "fingerprint">
>

/**
 * When the payer action of `record` expires, if it says: the earlier of `next_action` and, for
 * a hosted intent, its provider's action shown in the page (`hostedAction`).
 */
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

const scopeOf = (r: PaymentIntentRecord) => ({ merchantId: r.merchantId, environment: r.environment })

/** A record that breaks a rule of 3.1 is a defect, never stored. */
const checked = (record: PaymentIntentRecord) => {
  const violations = invariantViolations(record)
  return violations.length > 0 ? Effect.die(new Error(`invariant broken: ${violations.join("; ")}`)) : Effect.void
}

/**
 * The writes of a new intent: the insert, `payment_intent.created` and the event of its
 * status, and the expiry timer of its payer action.
 *
 * @since 0.1.0
 */
export const created = (record: PaymentIntentRecord): Effect.Effect<ReadonlyArray<Write>, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    yield* checked(record)
    const events = yield* Event.writes(record, "payment_intent", toResource(record), [
      "payment_intent.created",
      statusEvent(record.status)
    ])
    return [Write.insert(table, record), ...events, ...yield* expiryTask(record, record.createdAt)]
  })

/**
 * One change of an intent: the new record (version one higher, guarded by the version it was
 * read at), its status event when the status changes, `extraEvents`, and a new expiry timer
 * when the change brings a new payer action. A transition 3.1 does not allow is a defect.
 *
 * @since 0.1.0
 */
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

/** What the provider said, as a patch of the intent; none when nothing changes. @since 0.1.0 */
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
    case "Processing":
      return { status: "processing", nextAction: null, hostedAction: null, processingReason: "asynchronous" }
    case "Pending":
      return undefined
  }
}

/**
 * The change the provider's answer makes to `intent`: `patchFor`, and a final answer also
 * settles a submitted receipt (accepted with a success, rejected with a failure). None when
 * nothing changes.
 *
 * @since 0.1.0
 */
export const answerPatch = (intent: PaymentIntentRecord, status: ProviderPaymentStatus): Patch | undefined => {
  const patch = patchFor(status)
  if (patch === undefined || intent.receipt?.status !== "submitted") return patch
  switch (status._tag) {
    case "Succeeded":
      return { ...patch, receipt: { ...intent.receipt, status: "accepted" } }
    case "Failed":
      return { ...patch, receipt: { ...intent.receipt, status: "rejected" } }
    case "Processing":
    case "Pending":
      return patch
  }
}

/** The payment at its provider, for the operations after create; none before the provider was called. @since 0.1.0 */
export const providerRef = (record: PaymentIntentRecord): ProviderPaymentRef | undefined =>
  record.providerPaymentId === null ? undefined : {
    paymentIntentId: record.id,
    providerPaymentId: record.providerPaymentId,
    environment: record.environment,
    amount: record.amount,
    currency: record.currency,
    createdAt: record.createdAt
  }

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
    const intent = found.value
    if (intent.status === "canceled" && update.status._tag === "Succeeded") {
      // D10: paid after the cancel. The intent stays canceled and the money goes back.
      const writes = yield* Refunds.latePayment(intent)
      if (writes.length === 0) return "unchanged" as const
      return yield* storage.commit(writes).pipe(Effect.as("applied" as const))
    }
    const patch = answerPatch(intent, update.status)
    if (isTerminal(intent.status) || patch === undefined || patch.status === intent.status) return "unchanged" as const
    const { writes } = yield* change(intent, patch, yield* Clock.currentTimeMillis)
    return yield* storage.commit(writes).pipe(Effect.as("applied" as const))
  }).pipe(
    // A concurrent change won the race: read again and judge the notice against it.
    Effect.retry({ while: (e) => e._tag === "StaleVersion", times: 5 })
  )

// ---------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------

const done = (writes: ReadonlyArray<Write> = []): Task.Outcome => ({ _tag: "Done", writes })

/** The intent a task acts on; a task whose intent is gone has nothing to do. */
const load = (task: Task.TaskRecord) =>
  Effect.flatMap(Storage, (s) => s.get(table, { merchantId: task.merchantId, environment: task.environment }, task.resourceId))

/** How long the provider may take for an operation after create, as at create. */
const withTimeout = <A>(provider: string, effect: Effect.Effect<A, ProviderUnavailable>) =>
  Effect.interruptible(effect).pipe(
    Effect.timeoutFail({
      duration: providerTimeout,
      onTimeout: () => new ProviderUnavailable({ provider, reason: "timed out" })
    })
  )

/** The intent a task acts on, still pending, with its payment at its provider; none when there is nothing to do. */
const pendingAtProvider = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* load(task)
    if (Option.isNone(found) || isTerminal(found.value.status)) return undefined
    const intent = found.value
    const ref = providerRef(intent)
    const provider = intent.providerCode === null ? undefined : (yield* ProviderRegistry).get(intent.providerCode)
    return ref === undefined || provider === undefined ? undefined : { intent, ref, provider }
  })

/** The first poll of a payment the provider is processing; polls back off from there. */
const firstPoll = Duration.seconds(2)

/**
 * Ask the provider about the payment (`confirm`: 4.5; `poll`: a processing payment), and
 * apply its answer. A provider that is unavailable is asked again later, with back-off.
 */
const askProvider = (task: Task.TaskRecord, ask: "confirm" | "poll") =>
  Effect.gen(function*() {
    const pending = yield* pendingAtProvider(task)
    if (pending === undefined) return done()
    const { intent, provider, ref } = pending
    const answer = yield* withTimeout(
      provider.code,
      ask === "confirm" ? provider.confirmPayment(ref) : provider.getPaymentStatus(ref)
    ).pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") {
      return Task.retry(task, now, answer.left.reason)
    }
    const patch = answerPatch(intent, answer.right)
    // Still processing: ask again later, on a task of its own.
    const pollAgain = answer.right._tag === "Processing"
      ? [Write.insert(Task.table, yield* Task.make({
        ...scopeOf(intent),
        kind: "payment_intent.poll",
        resourceId: intent.id,
        dueAt: now + (ask === "poll" ? Duration.toMillis(Task.backoff(task.attempts + 1)) : Duration.toMillis(firstPoll)),
        now
      }))]
      : []
    if (patch === undefined || (patch.status === intent.status && patch.status === "processing")) return done(pollAgain)
    const { writes } = yield* change(intent, patch, now)
    return done([...writes, ...pollAgain])
  })

/** Move a pending intent to `expired` once its payer action expired (never after a terminal status). */
const expire = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* load(task)
    if (Option.isNone(found) || found.value.status !== "requires_action") return done()
    const intent = found.value
    const now = yield* Clock.currentTimeMillis
    const at = actionExpiry(intent)
    if (at === undefined) return done()
    // The action was renewed since this timer was set: its own timer expires it.
    if (at > now) return done()
    const { writes } = yield* change(intent, { status: "expired", nextAction: null, hostedAction: null }, now)
    return done(writes)
  })

/** Submit the intent's receipt to its provider (4.4); its answer accepts or rejects it. */
const submitReceipt = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const pending = yield* pendingAtProvider(task)
    if (pending === undefined) return done()
    const { intent, provider, ref } = pending
    const assetId = intent.receipt?.status === "submitted" ? intent.receipt.asset_id : undefined
    if (assetId === undefined) return done()
    const asset = yield* Effect.flatMap(Storage, (s) => s.get(Asset.table, scopeOf(intent), assetId))
    if (Option.isNone(asset)) return done()
    const answer = yield* withTimeout(provider.code, provider.submitReceipt(ref, {
      contentType: asset.value.contentType,
      sha256: asset.value.sha256,
      bytes: asset.value.bytes
    })).pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    switch (answer.right._tag) {
      case "Succeeded":
      case "Failed": {
        const { writes } = yield* change(intent, answerPatch(intent, answer.right)!, now)
        return done(writes)
      }
      case "Processing":
      case "Pending": {
        // The provider reviews it: ask for its status later.
        const poll = yield* Task.make({ ...scopeOf(intent), kind: "payment_intent.poll", resourceId: intent.id, dueAt: now + Duration.toMillis(firstPoll), now })
        return done([Write.insert(Task.table, poll)])
      }
    }
  })

/**
 * Run one task of a payment intent. Exhaustive over the task kinds: a new kind does not
 * compile until it has a handler.
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Storage | ProviderRegistry | IdGenerator> => {
  switch (task.kind) {
    case "payment_intent.confirm":
      return askProvider(task, "confirm")
    case "payment_intent.poll":
      return askProvider(task, "poll")
    case "payment_intent.expire":
      return expire(task)
    case "payment_intent.submit_receipt":
      return submitReceipt(task)
    case "payment_intent.cancel":
    case "refund.send":
    case "payout_intent.send":
    case "topup_intent.poll":
    case "topup_intent.submit_receipt":
    case "topup_intent.expire":
    case "webhook.deliver":
      return Effect.dieMessage(`${task.kind} is not a payment intent task`)
  }
}
