/**
 * A payment notice of a remembered attempt (`ProviderAttempt`): the intent it names took its
 * payment elsewhere (another provider, account or payment), and the notice is of the attempt
 * whose answer was lost. It is applied to the attempt (`ProviderAttempts.applyUpdate`: a payment
 * is the intent's late payment, refunded at that provider), never recorded as unmatched.
 */
import { Effect, Option } from "effect"
import * as PaymentIntent from "../../paymentIntents/PaymentIntent.js"
import type { IdGenerator } from "../../resources/Ids.js"
import { Storage } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import type { ProviderPaymentUpdate } from "../Provider.js"
import * as ProviderAttempts from "../ProviderAttempts.js"
import type { NotificationRecord } from "../ProviderNotification.js"
import type { Applied } from "./notificationApply.js"

/**
 * What `record`'s notice does to the attempt it is of: undefined when it is of no attempt (the
 * intent's own payment, or no attempt was remembered), `NoIntent` when the attempt was paid and
 * its intent is not stored yet (the apply task asks again).
 */
export const applyToAttempt = (record: NotificationRecord): Effect.Effect<Applied | "NoIntent" | undefined, StorageError, Storage | IdGenerator> =>
  Effect.gen(function*() {
    const notice = record.notice
    if (notice._tag !== "PaymentSucceeded" && notice._tag !== "PaymentProcessing" && notice._tag !== "PaymentFailed") return undefined
    if (notice.paymentIntentId === null) return undefined
    const intent = yield* (yield* Storage).find(PaymentIntent.table, notice.paymentIntentId)
    const own = Option.isSome(intent) && intent.value.providerCode === record.provider &&
      intent.value.providerAccount === record.providerAccount && intent.value.providerPaymentId === notice.providerPaymentId
    if (own) return undefined
    const door = { merchantId: record.merchantId, accountId: record.providerAccount }
    const attempt = yield* ProviderAttempts.forNotice(record.provider, door, notice.paymentIntentId, notice.providerPaymentId)
    if (Option.isNone(attempt)) return undefined
    const update: ProviderPaymentUpdate = notice._tag === "PaymentSucceeded"
      ? { _tag: "Succeeded", amount: notice.amount, currency: notice.currency }
      : notice._tag === "PaymentFailed"
      ? { _tag: "Failed", failureCode: notice.failureCode, failureMessage: notice.failureMessage }
      : { _tag: "Processing" }
    const writes = yield* ProviderAttempts.applyUpdate(attempt.value, notice.providerPaymentId, update)
    if (writes === "NoIntent") return writes
    return {
      status: writes.length > 0 ? "applied" : "unchanged",
      resourceId: notice.paymentIntentId,
      detail: `a payment of ${record.provider}'s attempt ${attempt.value.id}, whose answer was lost; the intent's own payment is elsewhere`,
      writes
    } satisfies Applied
  })
