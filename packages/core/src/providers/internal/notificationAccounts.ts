/**
 * D13: a notice verified for one account moves only that account's objects. Before a stored
 * notice is applied, the object it names is checked to have been taken by the account whose
 * door the notice came in at (the deployment's door: objects on no merchant account), and for a
 * merchant's account, to belong to that merchant. A notice naming another account's object is
 * unmatched, and changes nothing.
 */
import { Effect, Option } from "effect"
import * as PayoutIntent from "../../balances/PayoutIntent.js"
import * as PaymentIntent from "../../paymentIntents/PaymentIntent.js"
import * as Refund from "../../refunds/Refund.js"
import { Storage } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import type * as Table from "../../storage/Table.js"
import type { NotificationRecord } from "../ProviderNotification.js"

/** The table and id of the object a notice names by Tender's id, if it names one. */
const named = (record: NotificationRecord): { readonly table: Table.Table<any>; readonly id: string; readonly noun: string } | undefined => {
  const n = record.notice
  switch (n._tag) {
    case "PaymentSucceeded":
    case "PaymentProcessing":
    case "PaymentFailed":
      return n.paymentIntentId === null ? undefined : { table: PaymentIntent.table, id: n.paymentIntentId, noun: "payment intent" }
    case "RefundSucceeded":
    case "RefundFailed":
      return n.refundId === null ? undefined : { table: Refund.table, id: n.refundId, noun: "refund" }
    case "PayoutSucceeded":
    case "PayoutFailed":
      return n.payoutIntentId === null ? undefined : { table: PayoutIntent.table, id: n.payoutIntentId, noun: "payout intent" }
    case "Ignored":
      return undefined
  }
}

/** Why the object `record`'s notice names is another account's, or undefined when it is this door's (or names none). */
export const otherAccount = (record: NotificationRecord): Effect.Effect<string | undefined, StorageError, Storage> =>
  Effect.gen(function*() {
    const target = named(record)
    if (target === undefined) return undefined
    const found = yield* (yield* Storage).find(target.table, target.id)
    if (Option.isNone(found)) return undefined
    const object = found.value as { readonly merchantId: string; readonly providerAccount?: string | null }
    const account = object.providerAccount ?? null
    const door = record.providerAccount
    if (account === door && (door === null || object.merchantId === record.merchantId)) return undefined
    return `${target.noun} ${target.id} was not taken by ${door === null ? "the deployment's account" : `account ${door}`}`
  })
