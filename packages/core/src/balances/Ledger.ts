/**
 * The ledger (D12): the balance transactions a commit's state changes cause, derived at the one
 * place every state change passes through, the commit. Every money event of D12's table is a
 * D7 event written in the same commit as its change (`payment_intent.succeeded`,
 * `refund.created`, …), exactly once (the store refuses a second event of one resource version).
 * `entries` reads those events and the records written beside them and adds the transactions,
 * and `layerStorage` puts it in front of the store's `commit`: whichever flow made the change
 * (confirm, a provider's notice, polling, a late payment, the back office), its transaction is
 * in the same atomic write, and no flow can forget it.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import * as Event from "../events/Event.js"
import type { Merchant } from "../merchants/Merchants.js"
import { Merchants } from "../merchants/Merchants.js"
import * as PaymentIntent from "../paymentIntents/PaymentIntent.js"
import * as Refund from "../refunds/Refund.js"
import { prefixes, randomBase62 } from "../resources/Ids.js"
import type { Environment } from "../resources/Schemas.js"
import { Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import type { StoredRecord } from "../storage/Table.js"
import * as Table from "../storage/Table.js"
import * as TopupIntent from "../topups/TopupIntent.js"
import type { BalanceTransactionRecord, FeeDetail, Posting, Type } from "./BalanceTransaction.js"
import { applicationFee, balanceAccount, BalanceTransactionRecord as RecordSchema, table } from "./BalanceTransaction.js"
import * as PayoutIntent from "./PayoutIntent.js"

/** One day, for `settlement_delay_days`. */
const dayMillis = 24 * 60 * 60 * 1000

/** The platform's accounts (`BalanceTransaction.Posting`). @since 0.1.0 @category constants */
export const accounts = {
  fees: "platform_fees",
  inTransit: "payouts_in_transit",
  adjustments: "adjustments",
  provider: (code: string | null) => `provider:${code ?? "unknown"}`
} as const

/** What a transaction is before it gets its id: the movement and its counter-account. @since 0.1.0 @category models */
export interface Movement {
  readonly merchantId: string
  readonly environment: Environment
  readonly type: Type
  /** Signed. */
  readonly amount: bigint
  readonly currency: string
  readonly source: string | null
  /** The platform account on the other side of the merchant's balance. */
  readonly counter: string
  readonly createdAt: number
  readonly fee?: bigint | undefined
  readonly availableAt?: number | undefined
  readonly description?: string | null | undefined
  readonly idempotencyKey?: string | null | undefined
  /** The merchant's own provider account the money moved through (D13); absent or null: the deployment's. */
  readonly providerAccount?: string | null | undefined
}

/**
 * The stored transaction of a movement: `net = amount − fee`, the fee as one application fee,
 * and postings that sum to zero: the merchant's balance gets `net`, the platform's fees `fee`,
 * the counter-account `−amount`.
 *
 * @since 0.1.0 @category constructors
 */
export const transaction = (m: Movement): BalanceTransactionRecord => {
  const fee = m.fee ?? 0n
  const net = m.amount - fee
  const feeDetails: Array<FeeDetail> = fee === 0n ? [] : [{ type: "application_fee", amount: String(fee), currency: m.currency, description: "Platform fee" }]
  const postings: Array<Posting> = [
    { account: balanceAccount, amount: String(net) },
    ...(fee === 0n ? [] : [{ account: accounts.fees, amount: String(fee) }]),
    { account: m.counter, amount: String(-m.amount) }
  ]
  return Table.construct(RecordSchema, {
    id: prefixes.balanceTransaction + randomBase62(),
    merchantId: m.merchantId,
    environment: m.environment,
    type: m.type,
    amount: String(m.amount),
    fee: String(fee),
    net: String(net),
    currency: m.currency,
    feeDetails,
    availableAt: m.availableAt ?? m.createdAt,
    source: m.source,
    description: m.description ?? null,
    providerAccount: m.providerAccount ?? null,
    postings,
    idempotencyKey: m.idempotencyKey ?? null,
    createdAt: m.createdAt,
    version: 1
  })
}

/** The record of `table` with `id` that `writes` insert or update. */
const written = <A extends StoredRecord>(writes: ReadonlyArray<Write>, t: Table.Table<A>, id: string): A | undefined => {
  for (const w of writes) {
    if ((w._tag === "Insert" || w._tag === "Update") && w.table.name === t.name && w.record.id === id) return w.record as A
  }
  return undefined
}

/** The event types that move money (D12's table), and the record each reads. */
const moneyEvents = new Set<string>([
  "payment_intent.succeeded",
  "refund.created",
  "refund.failed",
  "topup_intent.succeeded",
  "payout_intent.created",
  "payout_intent.canceled",
  "payout_intent.failed"
])

/** A payment's movement: the merchant's fee for its method and its settlement delay (D12). */
const payment = (intent: PaymentIntent.PaymentIntentRecord, amount: string, createdAt: number, merchant: Merchant | undefined): Movement => {
  const rate = intent.paymentMethod === null ? undefined : merchant?.fees?.[intent.paymentMethod]
  const gross = BigInt(amount)
  return {
    merchantId: intent.merchantId,
    environment: intent.environment,
    type: "payment",
    amount: gross,
    currency: intent.currency,
    source: intent.id,
    counter: accounts.provider(intent.providerCode),
    providerAccount: intent.providerAccount,
    createdAt,
    fee: rate === undefined ? 0n : applicationFee(gross, rate),
    availableAt: createdAt + (merchant?.settlementDelayDays ?? 0) * dayMillis
  }
}

/** Whether `w` writes an event of D12's table, the only writes `entries` makes transactions for. */
const isMoneyEvent = (w: Write): boolean => w._tag === "Insert" && w.table.name === Event.table.name && moneyEvents.has((w.record as Event.EventRecord).type)

/** A defect: a money event without the record its change wrote. */
const missing = (event: Event.EventRecord) => Effect.dieMessage(`ledger: ${event.type} ${event.resourceId} without its record in the commit`)

/**
 * The writes `writes` imply for the ledger: a transaction per money event, and for a payout the
 * check that it does not overdraw the available balance. `merchantOf` is asked only for a commit
 * with a payment.
 *
 * @since 0.1.0
 */
export const entries = <E, R>(
  writes: ReadonlyArray<Write>,
  merchantOf: (merchantId: string) => Effect.Effect<Merchant | undefined, E, R>
): Effect.Effect<ReadonlyArray<Write>, E, R> =>
  Effect.gen(function*() {
    const out: Array<Write> = []
    for (const w of writes) {
      if (w._tag !== "Insert" || w.table.name !== Event.table.name) continue
      const event = w.record as Event.EventRecord
      if (!moneyEvents.has(event.type)) continue
      const at = event.createdAt
      const base = { merchantId: event.merchantId, environment: event.environment, createdAt: at }
      switch (event.type) {
        case "payment_intent.succeeded": {
          const intent = written(writes, PaymentIntent.table, event.resourceId)
          if (intent === undefined) return yield* missing(event)
          out.push(Write.insert(table, transaction(payment(intent, intent.amount, at, yield* merchantOf(event.merchantId)))))
          break
        }
        case "refund.created":
        case "refund.failed": {
          const refund = written(writes, Refund.table, event.resourceId)
          if (refund === undefined) return yield* missing(event)
          const counter = accounts.provider(refund.providerCode)
          if (event.type === "refund.created" && refund.reason === "late_payment") {
            // D10: a payment reported for a canceled or expired intent is money received, then given back.
            const intent = written(writes, PaymentIntent.table, refund.paymentIntentId)
            const paid = intent === undefined
              ? {
                ...base,
                type: "payment" as const,
                amount: BigInt(refund.amount),
                currency: refund.currency,
                source: refund.paymentIntentId,
                counter,
                providerAccount: refund.providerAccount
              }
              : payment(intent, refund.amount, at, yield* merchantOf(event.merchantId))
            out.push(Write.insert(table, transaction(paid)))
          }
          const sign = event.type === "refund.created" ? -1n : 1n
          out.push(Write.insert(
            table,
            transaction({
              ...base,
              type: event.type === "refund.created" ? "refund" : "refund_failure",
              amount: sign * BigInt(refund.amount),
              currency: refund.currency,
              source: refund.id,
              counter,
              providerAccount: refund.providerAccount
            })
          ))
          break
        }
        case "topup_intent.succeeded": {
          const topup = written(writes, TopupIntent.table, event.resourceId)
          if (topup === undefined) return yield* missing(event)
          out.push(Write.insert(
            table,
            transaction({
              ...base,
              type: "topup",
              amount: BigInt(topup.creditedAmount),
              currency: topup.destinationCurrency,
              source: topup.id,
              counter: accounts.provider(topup.sourceProvider),
              // D12/D13: the balance transaction names the account the money came through.
              providerAccount: topup.providerAccount
            })
          ))
          break
        }
        default: {
          const payout = written(writes, PayoutIntent.table, event.resourceId)
          if (payout === undefined) return yield* missing(event)
          const created = event.type === "payout_intent.created"
          out.push(Write.insert(
            table,
            transaction({
              ...base,
              type: created ? "payout" : event.type === "payout_intent.canceled" ? "payout_cancel" : "payout_failure",
              amount: (created ? -1n : 1n) * BigInt(payout.amount),
              currency: payout.currency,
              source: payout.id,
              counter: accounts.inTransit,
              providerAccount: payout.providerAccount
            })
          ))
          // D12: the check and the debit are one atomic step of the store.
          if (created) out.push(Write.requireAvailable({ merchantId: payout.merchantId, environment: payout.environment, currency: payout.currency }, at))
        }
      }
    }
    return out
  })

/**
 * `storage` whose every commit carries the ledger's writes for the state changes in it
 * (`entries`): the one place balance transactions are made.
 *
 * @since 0.1.0 @category constructors
 */
export const ledgered = (storage: Storage["Type"], merchants: Merchants["Type"]): Storage["Type"] => {
  const merchantOf = (id: string): Effect.Effect<Merchant | undefined, StorageError> => Effect.map(merchants.findMerchant(id), Option.getOrUndefined)
  return Storage.of({
    ...storage,
    // Most commits (a create, a claim, a delivery) carry no money event: they go to the store as
    // they are, without running `entries` (docs/performance.md, "Where a create's time goes").
    commit: (writes) =>
      writes.some(isMoneyEvent)
        ? Effect.flatMap(entries(writes, merchantOf), (extra) => storage.commit(extra.length === 0 ? writes : [...writes, ...extra]))
        : storage.commit(writes)
  })
}

/** `Storage` keeping the ledger (`ledgered`) over the store and merchant directory it is given. `Tender.layer` wires it. @since 0.1.0 @category layers */
export const layerStorage: Layer.Layer<Storage, never, Storage | Merchants> = Layer.effect(
  Storage,
  Effect.zipWith(Storage, Merchants, ledgered)
)
