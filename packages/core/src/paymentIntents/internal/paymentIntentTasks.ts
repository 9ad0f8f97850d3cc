/**
 * The durable tasks that move a payment intent (public, and documented, as
 * `PaymentIntentLifecycle.run`): confirm and poll at its provider, expire it when its payer
 * action expires, submit its receipt.
 */
import { Clock, Effect, Option } from "effect"
import type { Merchants } from "../../merchants/Merchants.js"
import type { ProviderRegistry } from "../../providers/Provider.js"
import { adapterOf, capabilitiesOfPayment } from "../../providers/ProviderAccounts.js"
import * as Asset from "../../resources/Asset.js"
import type { IdGenerator } from "../../resources/Ids.js"
import { boundedCall } from "../../routing/Routing.js"
import { scopeOf, Storage } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import * as Task from "../../storage/Task.js"
import { isTerminal, table } from "../PaymentIntent.js"
import { actionExpiry, change, providerRef } from "./paymentIntentChange.js"
import { applyUpdate } from "./paymentIntentUpdate.js"

/** The intent a task acts on; a task whose intent is gone has nothing to do. */
const load = (task: Task.TaskRecord) =>
  Effect.flatMap(Storage, (s) => s.get(table, { merchantId: task.merchantId, environment: task.environment }, task.resourceId))

/** The intent a task acts on, still pending, with its payment at its provider; none when there is nothing to do. */
const pendingAtProvider = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* load(task)
    if (Option.isNone(found) || isTerminal(found.value.status)) return undefined
    const intent = found.value
    const ref = providerRef(intent)
    const provider = yield* adapterOf(intent)
    return ref === undefined || provider === undefined ? undefined : { intent, ref, provider }
  })

/**
 * Ask the provider about the payment (`confirm`: 4.5; `poll`: a processing payment), and
 * apply its answer. A provider that is unavailable is asked again later, with back-off.
 */
const askProvider = (task: Task.TaskRecord, ask: "confirm" | "poll") =>
  Effect.gen(function*() {
    const pending = yield* pendingAtProvider(task)
    if (pending === undefined) return Task.done()
    const { intent, provider, ref } = pending
    // Asked only as its method's capabilities allow (a task written before they were declared finds nothing to do).
    const can = yield* capabilitiesOfPayment(intent)
    const call = ask === "confirm" ? can.confirm && provider.confirmPayment : can.poll && provider.getPaymentStatus
    if (call === false || call === undefined) return Task.done()
    const answer = yield* boundedCall(provider.code, call(ref), ask === "confirm" ? "confirmPayment" : "getPaymentStatus").pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    const source = ask === "confirm" ? { _tag: "confirm" as const } : { _tag: "poll" as const, attempts: task.attempts }
    return Task.done((yield* applyUpdate(intent, answer.right, source, now)).writes)
  })

/**
 * Move a pending intent to `expired` once its payer action expired (never after a terminal
 * status): one awaiting its payer, or one processing at a provider that cannot be polled, whose
 * timer was set as it moved to processing (a payer action's older timer does not end it).
 */
const expire = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* load(task)
    if (Option.isNone(found)) return Task.done()
    const intent = found.value
    const now = yield* Clock.currentTimeMillis
    if (intent.status === "processing") {
      if (task.createdAt < intent.updatedAt || task.dueAt > now || (yield* capabilitiesOfPayment(intent)).poll) return Task.done()
      return Task.done((yield* change(intent, { status: "expired", processingReason: null }, now)).writes)
    }
    if (intent.status !== "requires_action") return Task.done()
    const at = actionExpiry(intent)
    if (at === undefined) return Task.done()
    // The action was renewed since this timer was set: its own timer expires it.
    if (at > now) return Task.done()
    const { writes } = yield* change(intent, { status: "expired", nextAction: null, hostedAction: null }, now)
    return Task.done(writes)
  })

/** Submit the intent's receipt to its provider (4.4); its answer accepts or rejects it. */
const submitReceipt = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const pending = yield* pendingAtProvider(task)
    if (pending === undefined) return Task.done()
    const { intent, provider, ref } = pending
    if (provider.submitReceipt === undefined) return Task.done()
    const assetId = intent.receipt?.status === "submitted" ? intent.receipt.asset_id : undefined
    if (assetId === undefined) return Task.done()
    const asset = yield* Effect.flatMap(Storage, (s) => s.get(Asset.table, scopeOf(intent), assetId))
    if (Option.isNone(asset)) return Task.done()
    const answer = yield* boundedCall(provider.code, provider.submitReceipt(ref, Asset.toReceipt(asset.value)), "submitReceipt").pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    return Task.done((yield* applyUpdate(intent, answer.right, { _tag: "receipt" }, now)).writes)
  })

/** Run one task of a payment intent, public as `PaymentIntentLifecycle.run`. */
export const run = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Storage | ProviderRegistry | Merchants | IdGenerator> => {
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
    case "provider_attempt.cancel":
    case "refund.send":
    case "payout_intent.send":
    case "topup_intent.poll":
    case "topup_intent.submit_receipt":
    case "topup_intent.expire":
    case "webhook.deliver":
    case "provider_notice.apply":
      return Effect.dieMessage(`${task.kind} is not a payment intent task`)
  }
}
