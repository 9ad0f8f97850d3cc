/**
 * What Tender does with a provider attempt whose answer was lost (`ProviderAttempt`,
 * docs/reliability.md "Lost provider answers"): remember it durably before failing over, cancel it
 * at its provider with a durable task, and treat a payment of it as D10's late payment of its
 * intent (refunded at that provider, with its events and D12 balance transactions), whoever
 * reports it: the cancel's answer or the provider's notice. Never an unmatched notice.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import * as PaymentIntent from "../paymentIntents/PaymentIntent.js"
import * as Refunds from "../refunds/Refunds.js"
import { IdGenerator, prefixes } from "../resources/Ids.js"
import { boundedCall } from "../routing/Routing.js"
import type { Scope } from "../storage/Storage.js"
import { Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Task from "../storage/Task.js"
import type { ProviderPaymentUpdate } from "./Provider.js"
import { adapterOf } from "./ProviderAccounts.js"
import type { ProviderAttemptRecord } from "./ProviderAttempt.js"
import * as ProviderAttempt from "./ProviderAttempt.js"

const scopeOf = (r: { readonly merchantId: string; readonly environment: Scope["environment"] }): Scope => ({
  merchantId: r.merchantId,
  environment: r.environment
})

const updated = ProviderAttempt.changed

/**
 * The writes of a payment the payer made at `attempt` (`providerPaymentId`, `amount` when the
 * provider says it): the attempt `paid`, and its intent's late-payment refund at the attempt's
 * provider (`Refunds.attemptPayment`). None when it was reported already: one refund, whoever
 * reports it and however often. `NoIntent` when its intent is not stored yet (the create that made
 * the attempt may still commit it, after failing over). Once it cannot any more
 * (`ProviderAttempt.orphanAfterMillis`: the create answered 422, or its commit failed), the payment
 * has no intent to be the late payment of: it is recorded on the attempt and refunded at its
 * provider on its own (`orphanRefund`), never left held.
 *
 * @since 0.1.0
 */
export const paid = (
  attempt: ProviderAttemptRecord,
  providerPaymentId: string,
  amount: string | null | undefined
): Effect.Effect<ReadonlyArray<Write> | "NoIntent", StorageError, Storage | IdGenerator> =>
  Effect.gen(function*() {
    if (attempt.state === "paid" || attempt.state === "adopted") return []
    const intent = yield* (yield* Storage).get(PaymentIntent.table, scopeOf(attempt), attempt.paymentIntentId)
    const now = yield* Clock.currentTimeMillis
    if (Option.isNone(intent)) {
      return now < attempt.createdAt + ProviderAttempt.orphanAfterMillis
        ? "NoIntent" as const
        : yield* orphan(attempt, providerPaymentId, now)
    }
    const refundable = amount != null && /^[1-9]\d{0,17}$/.test(amount) ? amount : ProviderAttempt.requestOf(attempt).amount
    // The refund's send task reads the payment id from the attempt, written in the same commit.
    const refund = yield* Refunds.attemptPayment(intent.value, attempt, refundable)
    return [
      updated(attempt, { state: "paid", providerPaymentId, refundId: refund.refundId, detail: "paid anyway: refunded as a late payment" }, now),
      ...refund.writes
    ]
  })

/**
 * A payment of `attempt` whose intent was never stored: the attempt `paid`, with the id of the
 * refund its task sends to the provider (`orphanRefund`), its task made due now. The provider's
 * idempotency key is that id, so the refund is made once however often the task runs.
 */
const orphan = (attempt: ProviderAttemptRecord, providerPaymentId: string, now: number) =>
  Effect.gen(function*() {
    const refundId = yield* (yield* IdGenerator).make(prefixes.refund)
    const task = yield* Task.make({ ...scopeOf(attempt), kind: "provider_attempt.cancel", resourceId: attempt.id, dueAt: now, now })
    const detail = `paid, and its payment intent was never stored: refunding it at ${attempt.provider} (${refundId})`
    yield* Effect.logWarning(`tender: a payment of attempt ${attempt.id} has no payment intent; it is refunded at its provider`)
    return [updated(attempt, { state: "paid", providerPaymentId, refundId, detail }, now), Write.insert(Task.table, task)]
  })

/**
 * Send the refund of `attempt`, paid with no intent stored (`orphan`): what it asked for, at its
 * provider, under its refund id. The outcome is the attempt's `detail`; a provider that cannot be
 * reached or is settling it is asked again, one that refuses it leaves the detail for an operator.
 */
const orphanRefund = (task: Task.TaskRecord, attempt: ProviderAttemptRecord) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const provider = yield* adapterOf({ merchantId: attempt.merchantId, providerCode: attempt.provider, providerAccount: attempt.providerAccount })
    const request = ProviderAttempt.requestOf(attempt)
    const note = (detail: string) => Task.done([updated(attempt, { detail }, now)])
    if (provider?.refund === undefined) {
      return note(`paid, and its payment intent was never stored; ${attempt.provider} cannot refund here: refund it at the provider`)
    }
    const payment = {
      paymentIntentId: attempt.paymentIntentId,
      providerPaymentId: attempt.providerPaymentId!,
      environment: attempt.environment,
      amount: request.amount,
      currency: request.currency,
      createdAt: attempt.createdAt
    }
    const refund = { refundId: attempt.refundId!, payment, amount: request.amount, destination: null, createdAt: attempt.updatedAt }
    const answer = yield* boundedCall(provider.code, provider.refund(refund), "refund").pipe(Effect.either)
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    switch (answer.right._tag) {
      case "Pending":
        return Task.retry(task, now, null)
      case "Succeeded":
        return note(`paid, and its payment intent was never stored: refunded at ${attempt.provider} (${attempt.refundId})`)
      case "Failed":
        return note(`paid, and its payment intent was never stored; the refund was refused (${answer.right.failureMessage}): refund it at the provider`)
    }
  })

/**
 * The writes a provider update of `attempt` makes: a payment is `paid`; a canceled or failed one
 * is `canceled`; anything else leaves it open (its cancel task asks again). The provider's id of
 * the payment is recorded once known.
 *
 * @since 0.1.0
 */
export const applyUpdate = (
  attempt: ProviderAttemptRecord,
  providerPaymentId: string | null,
  update: ProviderPaymentUpdate
): Effect.Effect<ReadonlyArray<Write> | "NoIntent", StorageError, Storage | IdGenerator> =>
  Effect.gen(function*() {
    const id = providerPaymentId ?? attempt.providerPaymentId
    if (update._tag === "Succeeded") return id === null ? [] : yield* paid(attempt, id, update.amount)
    if (attempt.state !== "open") return []
    const now = yield* Clock.currentTimeMillis
    if (update._tag === "Canceled" || update._tag === "Failed") {
      return [updated(attempt, { state: "canceled", providerPaymentId: id, detail: `the provider says ${update._tag.toLowerCase()}` }, now)]
    }
    return id === attempt.providerPaymentId ? [] : [updated(attempt, { providerPaymentId: id }, now)]
  })

/**
 * Run an attempt's cancel task. Without the provider's payment id, the create is sent again with
 * the same idempotency key and body: the provider answers with the payment it made (or makes it
 * now, to be canceled next). Then the payment is canceled; an answer that it was paid is its late
 * payment. An unavailable provider is asked again with back-off.
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const done = (writes: ReadonlyArray<Write> = []): Task.Outcome => ({ _tag: "Done", writes })
    const found = yield* (yield* Storage).get(ProviderAttempt.table, scopeOf(task), task.resourceId)
    if (Option.isNone(found) || (found.value.state !== "open" && found.value.state !== "paid")) return done()
    const attempt = found.value
    let now = yield* Clock.currentTimeMillis
    const intent = yield* (yield* Storage).get(PaymentIntent.table, scopeOf(task), attempt.paymentIntentId)
    // Paid: its refund is the intent's late payment refund's task's, or, with no intent, this one's.
    if (attempt.state === "paid") return Option.isNone(intent) && attempt.refundId !== null ? yield* orphanRefund(task, attempt) : done()
    if (Option.isSome(intent) && intent.value.providerCode === attempt.provider && intent.value.providerAccount === attempt.providerAccount) {
      // A later create at the same place got its answer (the same key: the same payment), as a
      // payer trying again on the hosted page does: it is the intent's own payment now.
      const adopted = {
        state: "adopted" as const,
        providerPaymentId: intent.value.providerPaymentId,
        detail: "the intent's own payment: a later create got its answer"
      }
      return done([updated(attempt, adopted, now)])
    }
    const provider = yield* adapterOf({ merchantId: attempt.merchantId, providerCode: attempt.provider, providerAccount: attempt.providerAccount })
    if (provider === undefined) return Task.retry(task, now, `provider ${attempt.provider} is not installed`)
    const request = ProviderAttempt.requestOf(attempt)
    let paymentId = attempt.providerPaymentId
    if (paymentId === null) {
      const again = yield* boundedCall(provider.code, provider.createPayment(request), "createPayment").pipe(Effect.either)
      now = yield* Clock.currentTimeMillis
      if (again._tag === "Left") return Task.retry(task, now, again.left.reason)
      if (again.right.providerPaymentId === null) return done([updated(attempt, { state: "canceled", detail: "the provider holds no payment" }, now)])
      paymentId = again.right.providerPaymentId
    }
    const learnt = paymentId === attempt.providerPaymentId ? [] : [updated(attempt, { providerPaymentId: paymentId }, now)]
    if (provider.cancelPayment === undefined) {
      // Nothing can stop it: a payment the provider reports of it is still refunded (its notice).
      return done([updated(attempt, { providerPaymentId: paymentId, detail: "the provider cannot cancel: a payment it reports is refunded" }, now)])
    }
    const ref = {
      paymentIntentId: attempt.paymentIntentId,
      providerPaymentId: paymentId,
      environment: attempt.environment,
      amount: request.amount,
      currency: request.currency,
      createdAt: attempt.createdAt
    }
    const answer = yield* boundedCall(provider.code, provider.cancelPayment(ref), "cancelPayment").pipe(Effect.either)
    now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return { ...Task.retry(task, now, answer.left.reason), writes: learnt }
    const writes = yield* applyUpdate(attempt, paymentId, answer.right)
    if (writes === "NoIntent") return { ...Task.retry(task, now, "paid, and its payment intent is not stored: nobody to refund it for yet"), writes: learnt }
    if (answer.right._tag === "Succeeded" || answer.right._tag === "Canceled" || answer.right._tag === "Failed") return done(writes)
    // Still payable (the provider is settling it): ask again.
    return { ...Task.retry(task, now, `the provider says ${answer.right._tag}`), writes: writes.length > 0 ? writes : learnt }
  })

/**
 * The attempt a payment notice of `provider` is of, when the intent it names took its payment
 * elsewhere (another provider, account or payment): the notice is of an attempt Tender
 * remembered, not unmatched. `account`: the door it came in at (D13).
 *
 * @since 0.1.0
 */
export const forNotice = (
  provider: string,
  account: { readonly merchantId: string; readonly accountId: string | null },
  paymentIntentId: string | null,
  providerPaymentId: string
): Effect.Effect<Option.Option<ProviderAttemptRecord>, StorageError, Storage> =>
  Effect.gen(function*() {
    if (paymentIntentId === null) return Option.none()
    const found = yield* (yield* Storage).find(ProviderAttempt.table, ProviderAttempt.idOf(paymentIntentId, provider, account.accountId))
    if (Option.isNone(found)) return Option.none()
    const attempt = found.value
    const sameMerchant = account.accountId === null || attempt.merchantId === account.merchantId
    const samePayment = attempt.providerPaymentId === null || attempt.providerPaymentId === providerPaymentId
    return sameMerchant && samePayment ? found : Option.none()
  })
