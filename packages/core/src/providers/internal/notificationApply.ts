/**
 * What one provider notice does (D11), through the rules that already exist: a payment notice
 * is one more provider update of the payment (`PaymentIntentLifecycle.applyUpdate`, as a confirm
 * or a poll applies it, with its amount guard and a canceled or expired intent's payment being
 * D10's late-payment refund), a
 * refund notice settles a pending refund (`Refunds.settlement`), a payout notice settles a
 * processing payout (`PayoutIntents.providerOutcomeWrites`). Pure decisions over what is
 * stored: the caller commits the writes with the notice's new status.
 */
import { Clock, Effect, Option } from "effect"
import * as PayoutIntent from "../../balances/PayoutIntent.js"
import * as PayoutIntents from "../../balances/PayoutIntents.js"
import * as PaymentIntent from "../../paymentIntents/PaymentIntent.js"
import * as PaymentIntentLifecycle from "../../paymentIntents/PaymentIntentLifecycle.js"
import * as Refund from "../../refunds/Refund.js"
import * as Refunds from "../../refunds/Refunds.js"
import type { IdGenerator } from "../../resources/Ids.js"
import type { Environment } from "../../resources/Schemas.js"
import type { Write } from "../../storage/Storage.js"
import { scopeOf, Storage } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import type { ProviderPaymentUpdate, ProviderRegistry } from "../Provider.js"
import type { ProviderNotice, Status } from "../ProviderNotification.js"

/** What applying a notice decided: its new status, the object it matched, why, and the writes. */
export interface Applied {
  readonly status: Exclude<Status, "received">
  readonly resourceId: string | null
  readonly detail: string | null
  readonly writes: ReadonlyArray<Write>
}

const unmatched = (detail: string): Applied => ({ status: "unmatched", resourceId: null, detail, writes: [] })
const unchanged = (resourceId: string, detail: string): Applied => ({ status: "unchanged", resourceId, detail, writes: [] })

/** Why an object the notice names is not the one it means: another environment than the provider said. */
const otherEnvironment = (stated: Environment | null, stored: Environment) =>
  stated !== null && stated !== stored ? `the provider says ${stated}; the object is ${stored}` : undefined

type PaymentNotice = Extract<ProviderNotice, { readonly _tag: "PaymentSucceeded" | "PaymentProcessing" | "PaymentFailed" }>

/** The intent a payment notice names: our id where the provider echoed it, at that provider, with that payment id. */
const matchIntent = (provider: string, notice: PaymentNotice) =>
  Effect.gen(function*() {
    if (notice.paymentIntentId === null) return "the notice names no Tender payment intent" as const
    const found = yield* (yield* Storage).find(PaymentIntent.table, notice.paymentIntentId)
    if (Option.isNone(found)) return `no payment intent ${notice.paymentIntentId}`
    const intent = found.value
    if (intent.providerCode !== provider || intent.providerPaymentId !== notice.providerPaymentId) {
      return `payment intent ${intent.id} is not ${provider}'s payment ${notice.providerPaymentId}`
    }
    return otherEnvironment(notice.environment, intent.environment) ?? intent
  })

/** What a payment notice says, as the one update type every source gives. */
const updateOf = (notice: PaymentNotice): ProviderPaymentUpdate => {
  switch (notice._tag) {
    case "PaymentSucceeded":
      return { _tag: "Succeeded", amount: notice.amount, currency: notice.currency }
    case "PaymentProcessing":
      return { _tag: "Processing" }
    case "PaymentFailed":
      return { _tag: "Failed", failureCode: notice.failureCode, failureMessage: notice.failureMessage }
  }
}

const payment = (provider: string, notice: PaymentNotice) =>
  Effect.gen(function*() {
    const matched = yield* matchIntent(provider, notice)
    if (typeof matched === "string") return unmatched(matched)
    const applied = yield* PaymentIntentLifecycle.applyUpdate(matched, updateOf(notice), { _tag: "notification" }, yield* Clock.currentTimeMillis)
    return { status: applied.outcome, resourceId: matched.id, detail: applied.detail, writes: applied.writes } satisfies Applied
  })

type RefundNotice = Extract<ProviderNotice, { readonly _tag: "RefundSucceeded" | "RefundFailed" }>

const refund = (provider: string, notice: RefundNotice) =>
  Effect.gen(function*() {
    if (notice.refundId === null) return unmatched("the notice names no Tender refund")
    const found = yield* (yield* Storage).find(Refund.table, notice.refundId)
    if (Option.isNone(found)) return unmatched(`no refund ${notice.refundId}`)
    const stored = found.value
    if (stored.providerCode !== provider) return unmatched(`refund ${stored.id} is not ${provider}'s`)
    const elsewhere = otherEnvironment(notice.environment, stored.environment)
    if (elsewhere !== undefined) return unmatched(elsewhere)
    const writes = yield* Refunds.settlement(
      stored.id,
      scopeOf(stored),
      notice._tag === "RefundSucceeded"
        ? { status: "succeeded" }
        : { status: "failed", failureCode: notice.failureCode, failureMessage: notice.failureMessage }
    )
    return writes.length === 0
      ? unchanged(stored.id, `the refund is ${stored.status}`)
      : { status: "applied", resourceId: stored.id, detail: null, writes } satisfies Applied
  })

type PayoutNotice = Extract<ProviderNotice, { readonly _tag: "PayoutSucceeded" | "PayoutFailed" }>

const payout = (provider: string, notice: PayoutNotice) =>
  Effect.gen(function*() {
    if (notice.payoutIntentId === null) return unmatched("the notice names no Tender payout intent")
    const found = yield* (yield* Storage).find(PayoutIntent.table, notice.payoutIntentId)
    if (Option.isNone(found)) return unmatched(`no payout intent ${notice.payoutIntentId}`)
    const stored = found.value
    const elsewhere = otherEnvironment(notice.environment, stored.environment)
    if (elsewhere !== undefined) return unmatched(elsewhere)
    const writes = yield* PayoutIntents.providerOutcomeWrites(
      stored,
      provider,
      notice._tag === "PayoutSucceeded"
        ? { status: "succeeded" }
        : { status: "failed", failureCode: notice.failureCode, failureMessage: notice.failureMessage }
    )
    if (writes === "other_provider") return unmatched(`payout intent ${stored.id} is not ${provider}'s`)
    return writes.length === 0
      ? unchanged(stored.id, `the payout intent is ${stored.status}`)
      : { status: "applied", resourceId: stored.id, detail: null, writes } satisfies Applied
  })

/** Apply one notice of `provider` to what is stored now. Exhaustive over the notices. */
export const apply = (
  provider: string,
  notice: ProviderNotice
): Effect.Effect<Applied, StorageError, Storage | IdGenerator | ProviderRegistry> => {
  switch (notice._tag) {
    case "PaymentSucceeded":
    case "PaymentProcessing":
    case "PaymentFailed":
      return payment(provider, notice)
    case "RefundSucceeded":
    case "RefundFailed":
      return refund(provider, notice)
    case "PayoutSucceeded":
    case "PayoutFailed":
      return payout(provider, notice)
    case "Ignored":
      return Effect.succeed({ status: "ignored", resourceId: null, detail: null, writes: [] })
  }
}
