/**
 * The provider's side of a refund (D10, D11): the route a payment is refunded through, the one door
 * a refund's outcome takes (`settlement`, its send task's and a provider notification's alike), and
 * the send task. `Refunds` is its public module.
 */
import { Clock, Effect, Option } from "effect"
import * as Event from "../../events/Event.js"
import * as PaymentIntent from "../../paymentIntents/PaymentIntent.js"
import { noProvider } from "../../providers/internal/providerFailures.js"
import type { PaymentProvider } from "../../providers/Provider.js"
import { capabilitiesOf } from "../../providers/Provider.js"
import * as ProviderAccounts from "../../providers/ProviderAccounts.js"
import * as ProviderAttempt from "../../providers/ProviderAttempt.js"
import { boundedCall } from "../../routing/Routing.js"
import type { Scope } from "../../storage/Storage.js"
import { scopeOf, Storage, Write } from "../../storage/Storage.js"
import * as Task from "../../storage/Task.js"
import type { RefundRecord } from "../Refund.js"
import { canTransition, settle, statusEvent, table, toResource } from "../Refund.js"

/** An intent written with its refund counters changed: the rules of 3.1 and D10 checked first, as for every write of an intent. */
export const intentWrite = (before: PaymentIntent.PaymentIntentRecord, after: PaymentIntent.PaymentIntentRecord) => {
  const problems = PaymentIntent.invariantViolations(after)
  return problems.length > 0
    ? Effect.die(new Error(`invariant broken: ${problems.join("; ")}`))
    : Effect.succeed(Write.update(PaymentIntent.table, after, before.version))
}

/** The provider of a payment and how its method is refunded; none when it cannot be (D10: 422). */
export const refundRoute = (intent: PaymentIntent.PaymentIntentRecord) =>
  Effect.map(ProviderAccounts.adapterOf(intent), (provider) => {
    const method = provider?.methods.find((m) => m.method === intent.paymentMethod)
    // The method's capabilities (`Provider.capabilitiesOf`): a method can withdraw `refund` though its provider refunds others.
    return provider === undefined || method === undefined || !capabilitiesOf(provider, method).refund ? undefined : { provider, method }
  })

/**
 * The provider's own code of a destination bank: any bank one of its methods lists (a refund to a
 * bank account goes to any bank the provider reaches, not only the banks of the method paid with:
 * a PromptPay payment lists none).
 */
export const providerBank = (provider: PaymentProvider, bank: string) => provider.methods.flatMap((m) => m.banks).find((b) => b.code === bank)?.providerCode

/** `Refunds.Outcome`. */
export interface Outcome {
  readonly status: "succeeded" | "failed"
  readonly failureCode?: string | undefined
  readonly failureMessage?: string | undefined
}

/** The writes that settle a pending refund, public as `Refunds.settlement`. */
export const settlement = (refundId: string, scope: Scope, outcome: Outcome) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const found = yield* storage.get(table, scope, refundId)
    if (Option.isNone(found) || found.value.status !== "pending") return [] as ReadonlyArray<Write>
    const before = found.value
    const intentFound = yield* storage.get(PaymentIntent.table, scope, before.paymentIntentId)
    if (Option.isNone(intentFound)) return yield* Effect.dieMessage(`refund ${refundId} names a missing payment intent`)
    if (!canTransition(before.status, outcome.status)) return [] as ReadonlyArray<Write>
    const now = yield* Clock.currentTimeMillis
    const refund: RefundRecord = {
      ...before,
      status: outcome.status,
      failureCode: outcome.failureCode ?? null,
      failureMessage: outcome.failureMessage ?? null,
      updatedAt: Math.max(now, before.updatedAt),
      version: before.version + 1
    }
    const events = yield* Event.writes(refund, "refund", toResource(refund), [statusEvent(refund.status)])
    const intent = intentFound.value
    // An attempt's late payment was never the intent's: its counters stay as they are.
    const counters = ProviderAttempt.refundsAttempt(before, intent) ? [] : [yield* intentWrite(intent, settle(intent, refund.amount, outcome.status, now))]
    return [Write.update(table, refund, before.version), ...events, ...counters] as ReadonlyArray<Write>
  })

/**
 * The payment a refund gives back, as an intent at its provider: the intent's own, or for the
 * late payment of one of its attempts (`ProviderAttempt`), the intent as held at that attempt's
 * provider and account, with the payment id the provider named.
 */
const paymentOf = (refund: RefundRecord) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const found = yield* storage.get(PaymentIntent.table, scopeOf(refund), refund.paymentIntentId)
    if (Option.isNone(found)) return undefined
    const intent = found.value
    if (!ProviderAttempt.refundsAttempt(refund, intent)) return intent
    const attempt = yield* storage.get(
      ProviderAttempt.table,
      scopeOf(refund),
      ProviderAttempt.idOf(intent.id, refund.providerCode!, refund.providerAccount)
    )
    if (Option.isNone(attempt)) return undefined
    return {
      ...intent,
      providerCode: attempt.value.provider,
      providerAccount: attempt.value.providerAccount,
      providerPaymentId: attempt.value.providerPaymentId
    }
  })

/** Run the send task of a pending refund, public as `Refunds.send`. */
export const send = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const scope = scopeOf(task)
    const found = yield* storage.get(table, scope, task.resourceId)
    if (Option.isNone(found) || found.value.status !== "pending") return Task.done()
    const refund = found.value
    const intent = yield* paymentOf(refund)
    const route = intent === undefined ? undefined : yield* refundRoute(intent)
    const ref = intent === undefined || intent.providerPaymentId === null ? undefined : intent
    if (route === undefined || ref === undefined || route.provider.refund === undefined) {
      return Task.done(yield* settlement(refund.id, scope, noProvider("refund_not_supported", "The provider of this payment cannot refund it.")))
    }
    const destination = refund.destination
    const answer = yield* boundedCall(
      route.provider.code,
      route.provider.refund({
        refundId: refund.id,
        payment: {
          paymentIntentId: ref.id,
          providerPaymentId: ref.providerPaymentId!,
          environment: ref.environment,
          amount: ref.amount,
          currency: ref.currency,
          createdAt: ref.createdAt
        },
        amount: refund.amount,
        destination: destination === null ? null : {
          providerBank: providerBank(route.provider, destination.bank) ?? destination.bank,
          accountNumber: destination.account_number,
          accountName: destination.account_name
        },
        createdAt: refund.createdAt
      }),
      "refund"
    ).pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    switch (answer.right._tag) {
      case "Pending":
        return Task.retry(task, now, null)
      case "Succeeded":
        return Task.done(yield* settlement(refund.id, scope, { status: "succeeded" }))
      case "Failed":
        return Task.done(
          yield* settlement(refund.id, scope, { status: "failed", failureCode: answer.right.failureCode, failureMessage: answer.right.failureMessage })
        )
    }
  })
