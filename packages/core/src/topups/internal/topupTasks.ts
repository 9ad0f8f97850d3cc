/**
 * The durable tasks of a top-up intent: poll its provider until paid, review a submitted
 * receipt, expire it unpaid. Each is idempotent and writes its change with its events.
 */
import { Clock, Duration, Effect, Option } from "effect"
import type { Merchants } from "../../merchants/Merchants.js"
import { failure, noProvider } from "../../providers/internal/providerFailures.js"
import type { ProviderPaymentStatus, ProviderTopupRef } from "../../providers/Provider.js"
import type { ProviderRegistry } from "../../providers/Provider.js"
import { adapterOf } from "../../providers/ProviderAccounts.js"
import * as Asset from "../../resources/Asset.js"
import { IdGenerator } from "../../resources/Ids.js"
import { boundedCall } from "../../routing/Routing.js"
import { scopeOf, Storage } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import * as Task from "../../storage/Task.js"
import type { Status, TopupIntentRecord } from "../TopupIntent.js"
import { table } from "../TopupIntent.js"
import { change, pollEvery, succeededPatch } from "./topups.js"

/** The top-up of a task with its provider, if it is still waiting on that provider. */
const pending = (task: Task.TaskRecord, status: Status) =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).get(table, scopeOf(task), task.resourceId)
    if (Option.isNone(found) || found.value.status !== status) return undefined
    const topup = found.value
    // D13: the account that took it, for its whole life.
    const provider = yield* adapterOf({ merchantId: topup.merchantId, providerCode: topup.sourceProvider, providerAccount: topup.providerAccount })
    const ref: ProviderTopupRef = {
      topupIntentId: topup.id,
      providerTopupId: topup.providerTopupId,
      environment: topup.environment,
      sourceType: topup.sourceType,
      sourceAmount: topup.sourceAmount,
      destinationAmount: topup.destinationAmount,
      createdAt: topup.createdAt
    }
    return { topup, provider, topups: provider?.topups, ref }
  })

/** The change a provider's final answer on a top-up makes, if it is final: the one door of its polls and receipt reviews. */
const verdict = (topup: TopupIntentRecord, answer: ProviderPaymentStatus, now: number, receipt: boolean) => {
  switch (answer._tag) {
    case "Succeeded":
      return change(topup, {
        ...succeededPatch(topup),
        ...(receipt && topup.receipt !== null ? { receipt: { ...topup.receipt, status: "accepted" as const } } : {})
      }, now)
    case "Failed":
    case "Canceled":
      return change(topup, {
        status: "failed",
        nextAction: null,
        ...(answer._tag === "Failed"
          ? { failureCode: answer.failureCode, failureMessage: answer.failureMessage }
          : failure("payment_expired")),
        ...(receipt && topup.receipt !== null ? { receipt: { ...topup.receipt, status: "rejected" as const } } : {})
      }, now)
    case "Action":
    case "Processing":
    case "Pending":
      return undefined
  }
}

/** Ask the provider whether the payer paid; again every `pollEvery` until paid, failed or expired. */
const poll = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* pending(task, "requires_payment")
    if (found === undefined) return Task.done()
    const { provider, ref, topup, topups } = found
    const now0 = yield* Clock.currentTimeMillis
    // Past its expiry the expire task decides; a provider no longer installed is never asked.
    if (now0 >= topup.expiresAt || provider === undefined || topups === undefined) return Task.done()
    const answer = yield* boundedCall(provider.code, topups.status(ref), "topupStatus").pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    const changed = verdict(topup, answer.right, now, false)
    if (changed === undefined) {
      return { _tag: "Retry", dueAt: Math.min(now + Duration.toMillis(pollEvery), topup.expiresAt), error: null } satisfies Task.Retry
    }
    return Task.done((yield* changed).writes)
  })

/** Submit a top-up's receipt to its provider; its verdict ends the top-up. */
const reviewReceipt = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* pending(task, "processing")
    const assetId = found?.topup.receipt?.asset_id
    if (found === undefined || assetId === undefined) return Task.done()
    const { provider, ref, topup, topups } = found
    const now0 = yield* Clock.currentTimeMillis
    if (provider === undefined || topups === undefined) {
      const { writes } = yield* change(topup, noProvider("provider_unavailable", "The top-up's provider is no longer installed."), now0)
      return Task.done(writes)
    }
    const asset = yield* (yield* Storage).get(Asset.table, scopeOf(topup), assetId)
    if (Option.isNone(asset)) return yield* Effect.dieMessage(`receipt asset ${assetId} is missing`)
    const answer = yield* boundedCall(provider.code, topups.submitReceipt(ref, Asset.toReceipt(asset.value)), "submitTopupReceipt").pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    const changed = verdict(topup, answer.right, now, true)
    // Still under review: ask again later.
    if (changed === undefined) return Task.retry(task, now, null)
    return Task.done((yield* changed).writes)
  })

/** Move an unpaid top-up to `expired` at its `expires_at` (never after a receipt or a terminal status). */
const expire = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).get(table, scopeOf(task), task.resourceId)
    if (Option.isNone(found) || found.value.status !== "requires_payment") return Task.done()
    const now = yield* Clock.currentTimeMillis
    if (now < found.value.expiresAt) return { _tag: "Defer", dueAt: found.value.expiresAt } satisfies Task.Outcome
    const { writes } = yield* change(found.value, { status: "expired", nextAction: null }, now)
    return Task.done(writes)
  })

/** Run one top-up task, public as `TopupIntents.run`. */
export const run = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Storage | ProviderRegistry | Merchants | IdGenerator> => {
  switch (task.kind) {
    case "topup_intent.poll":
      return poll(task)
    case "topup_intent.submit_receipt":
      return reviewReceipt(task)
    case "topup_intent.expire":
      return expire(task)
    case "payment_intent.cancel":
    case "provider_attempt.cancel":
    case "refund.send":
    case "payment_intent.confirm":
    case "payment_intent.poll":
    case "payment_intent.submit_receipt":
    case "payment_intent.expire":
    case "payout_intent.send":
    case "webhook.deliver":
    case "provider_notice.apply":
      return Effect.dieMessage(`${task.kind} is not a top-up intent task`)
  }
}
