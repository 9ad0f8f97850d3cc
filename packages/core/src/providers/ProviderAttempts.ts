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
import type { IdGenerator } from "../resources/Ids.js"
import { boundedCall } from "../routing/Routing.js"
import { scopeOf, Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Task from "../storage/Task.js"
import type { ProviderPaymentUpdate } from "./Provider.js"
import { adapterOf } from "./ProviderAccounts.js"
import type { ProviderAttemptRecord } from "./ProviderAttempt.js"
import * as ProviderAttempt from "./ProviderAttempt.js"

/** The attempt changed by `patch`, as a versioned write. */
const updated = (attempt: ProviderAttemptRecord, patch: Partial<ProviderAttemptRecord>, now: number) =>
  Write.update(ProviderAttempt.table, { ...attempt, ...patch, updatedAt: Math.max(now, attempt.updatedAt), version: attempt.version + 1 }, attempt.version)

/**
 * The writes of a payment the payer made at `attempt` (`providerPaymentId`, `amount` when the
 * provider says it): the attempt `paid`, and its intent's late-payment refund at the attempt's
 * provider (`Refunds.attemptPayment`). None when it was reported already: one refund, whoever
 * reports it and however often. `NoIntent` when its intent is not stored (not yet: the create
 * that made the attempt commits it after failing over; or never: that create answered 422).
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
    if (Option.isNone(intent)) return "NoIntent" as const
    const now = yield* Clock.currentTimeMillis
    const refundable = amount != null && /^[1-9]\d{0,17}$/.test(amount) ? amount : ProviderAttempt.requestOf(attempt).amount
    // The refund's send task reads the payment id from the attempt, written in the same commit.
    const refund = yield* Refunds.attemptPayment(intent.value, attempt, refundable)
    return [
      updated(attempt, { state: "paid", providerPaymentId, refundId: refund.refundId, detail: "paid anyway: refunded as a late payment" }, now),
      ...refund.writes
    ]
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
    const found = yield* (yield* Storage).get(ProviderAttempt.table, scopeOf(task), task.resourceId)
    if (Option.isNone(found) || found.value.state !== "open") return Task.done()
    const attempt = found.value
    let now = yield* Clock.currentTimeMillis
    const intent = yield* (yield* Storage).get(PaymentIntent.table, scopeOf(task), attempt.paymentIntentId)
    if (Option.isSome(intent) && intent.value.providerCode === attempt.provider && intent.value.providerAccount === attempt.providerAccount) {
      // A later create at the same place got its answer (the same key: the same payment), as a
      // payer trying again on the hosted page does: it is the intent's own payment now.
      const adopted = {
        state: "adopted" as const,
        providerPaymentId: intent.value.providerPaymentId,
        detail: "the intent's own payment: a later create got its answer"
      }
      return Task.done([updated(attempt, adopted, now)])
    }
    const provider = yield* adapterOf({ merchantId: attempt.merchantId, providerCode: attempt.provider, providerAccount: attempt.providerAccount })
    if (provider === undefined) return Task.retry(task, now, `provider ${attempt.provider} is not installed`)
    const request = ProviderAttempt.requestOf(attempt)
    let paymentId = attempt.providerPaymentId
    if (paymentId === null) {
      const again = yield* boundedCall(provider.code, provider.createPayment(request), "createPayment").pipe(Effect.either)
      now = yield* Clock.currentTimeMillis
      if (again._tag === "Left") return Task.retry(task, now, again.left.reason)
      if (again.right.providerPaymentId === null) return Task.done([updated(attempt, { state: "canceled", detail: "the provider holds no payment" }, now)])
      paymentId = again.right.providerPaymentId
    }
    const learnt = paymentId === attempt.providerPaymentId ? [] : [updated(attempt, { providerPaymentId: paymentId }, now)]
    if (provider.cancelPayment === undefined) {
      // Nothing can stop it: a payment the provider reports of it is still refunded (its notice).
      return Task.done([updated(attempt, { providerPaymentId: paymentId, detail: "the provider cannot cancel: a payment it reports is refunded" }, now)])
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
    if (answer.right._tag === "Succeeded" || answer.right._tag === "Canceled" || answer.right._tag === "Failed") return Task.done(writes)
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
