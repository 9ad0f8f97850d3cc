/**
 * Refunds (D10): create, get and list for merchants; the durable task that sends a pending
 * refund to the payment's provider; and the late-payment refund Tender creates itself when a
 * provider reports a payment for a canceled or expired intent. Every refund reserves its amount on the
 * payment intent in the same versioned write that inserts it (`Refund.reserve`), so the refunds
 * of a payment never pass its amount, whatever the concurrency, in every store.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Either, Option, Schema } from "effect"
import * as Event from "../events/Event.js"
import * as PaymentIntent from "../paymentIntents/PaymentIntent.js"
import { ProviderRegistry } from "../providers/Provider.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import { fingerprint } from "../requests/Canonical.js"
import * as Operation from "../requests/Operation.js"
import { AmountExceedsRefundable, PaymentIntentUnexpectedState, RefundNotSupported, ResourceNotFound, ValidationFailed } from "../resources/Errors.js"
import { IdGenerator, isWellFormed, prefixes } from "../resources/Ids.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import { scopeOf, Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Table from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import * as Internal from "./internal/refundProvider.js"
import { intentWrite, providerBank, refundRoute } from "./internal/refundProvider.js"
import type { CreateParams, RefundRecord } from "./Refund.js"
import { RefundRecord as Record, reserve, Status, table, toResource } from "./Refund.js"

const kind: Resources.Kind<RefundRecord> = { table, noun: "refund" }

/** `create` under `merchant_reference`: a repeat with the same fields answers the original refund (4.9). */
const underReference = Resources.createUnderReference(kind, toResource, { route: "POST /refunds", resourceType: "refund" })

/**
 * The writes of a new pending refund: its insert, `refund.created`, the intent's reservation (none
 * for an attempt's late payment, which is not the intent's payment) and the send task.
 */
const pendingWrites = (refund: RefundRecord, before: PaymentIntent.PaymentIntentRecord, after: PaymentIntent.PaymentIntentRecord | null) =>
  Effect.gen(function*() {
    const events = yield* Event.writes(refund, "refund", toResource(refund), ["refund.created"])
    const task = yield* Task.make({ ...scopeOf(refund), kind: "refund.send", resourceId: refund.id, dueAt: refund.createdAt, now: refund.createdAt })
    const reservation = after === null ? [] : [yield* intentWrite(before, after)]
    return [Write.insert(table, refund), ...events, ...reservation, Write.insert(Task.table, task)]
  })

/** Decide a refund of `params` on the intent as stored now. Fails with the API error the caller sees; never writes. */
const decide = (principal: Principal, params: CreateParams, id: string, fp: string) =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).get(PaymentIntent.table, scopeOf(principal), params.payment_intent)
    if (Option.isNone(found)) {
      return yield* new ResourceNotFound({ param: "payment_intent", message: `No payment intent ${JSON.stringify(params.payment_intent)}.` })
    }
    const intent = found.value
    if (intent.status !== "succeeded") {
      return yield* new PaymentIntentUnexpectedState({
        param: "payment_intent",
        message: `This payment intent is ${intent.status}: only a succeeded payment can be refunded.`
      })
    }
    const route = yield* refundRoute(intent)
    if (route === undefined) {
      return yield* new RefundNotSupported({ param: "payment_intent", message: "The provider of this payment cannot refund its payment method." })
    }
    if (route.method.refunds === "bank_account" && params.destination === undefined) {
      return yield* ValidationFailed.at("destination", "This payment method is refunded to a bank account: destination is required.")
    }
    if (params.destination !== undefined && providerBank(route.provider, params.destination.bank) === undefined) {
      const bank = JSON.stringify(params.destination.bank)
      const known = (yield* ProviderRegistry).all.some((p) => providerBank(p, params.destination!.bank) !== undefined)
      return yield* ValidationFailed.at(
        "destination.bank",
        known
          ? `The provider of this payment cannot refund to bank ${bank}; choose another bank account.`
          : `Unknown bank ${bank}; use a code from discovery.`
      )
    }
    const now = yield* Clock.currentTimeMillis
    const reserved = reserve(intent, params.amount, now)
    if (Either.isLeft(reserved)) {
      return yield* new AmountExceedsRefundable({
        param: "amount",
        message: `The refunds of this payment would pass its amount: ${reserved.left.refundable} ${intent.currency} minor units are refundable.`
      })
    }
    const refund = Table.construct(Record, {
      id,
      ...scopeOf(principal),
      paymentIntentId: intent.id,
      amount: reserved.right.amount,
      currency: intent.currency,
      status: "pending",
      reason: params.reason ?? null,
      merchantReference: params.merchant_reference ?? null,
      destination: params.destination ?? null,
      metadata: params.metadata ?? null,
      providerCode: route.provider.code,
      // D13: a refund goes to the account that took the payment, whatever routes say now.
      providerAccount: intent.providerAccount,
      fingerprint: fp,
      ...Table.firstWrite(now)
    })
    return { refund, writes: yield* pendingWrites(refund, intent, reserved.right.intent) }
  })

/**
 * POST /refunds (D10): 201 with the refund, `pending`; the provider call runs as a task. The
 * same `merchant_reference` again with the same fields answers the original (200); with any
 * field changed, 409 `idempotency_conflict`.
 *
 * @since 0.1.0
 */
export const create = (context: Operation.RequestContext, params: CreateParams) =>
  underReference(context, params, (id, fp) =>
    Effect.map(decide(context.principal, params, id, fp), ({ refund, writes }) => ({
      response: ApiResponse.json(201, toResource(refund), context.requestId),
      writes
    })))

/** GET /refunds query (D10): the filters of 4.3 that apply to refunds, and `payment_intent`. @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({
  payment_intent: Schema.optional(Schema.String.annotations({ description: "Only the refunds of this payment intent (dord_…)" })),
  ...Pagination.sharedFilters
})
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

const reads = Resources.reads(
  (principal, id) => Resources.load(kind, principal, id),
  (view) => (principal, params: ListParams) =>
    params.payment_intent !== undefined && !isWellFormed(prefixes.paymentIntent, params.payment_intent)
      ? ValidationFailed.at("payment_intent", "payment_intent must be a payment intent id: dord_ followed by 24 letters and digits")
      : Resources.listPage(
        table,
        principal,
        params,
        Status.literals,
        view,
        (status) => Effect.succeed({ paymentIntentId: params.payment_intent, merchantReference: params.merchant_reference, status })
      ),
  toResource
)

/** GET /refunds/{id} (D10): another merchant's or environment's is the same 404 (4.2). @since 0.1.0 */
export const retrieve = reads.retrieve
/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = reads.retrieveJson
/** GET /refunds (D6, D10): keyset pages, newest first. @since 0.1.0 */
export const list = reads.list
/** `list`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const listJson = reads.listJson

// ---------------------------------------------------------------------------
// Late payments (D10 cancel)
// ---------------------------------------------------------------------------

/**
 * The writes that refund a payment the provider reported for a canceled or expired intent: a
 * pending refund of the whole amount, `reason: "late_payment"`, with its event and send task.
 * None when the intent is neither or a late refund was made already (its amount is reserved): a
 * second report of the same payment refunds nothing twice.
 *
 * @since 0.1.0
 */
export const latePayment = (
  intent: PaymentIntent.PaymentIntentRecord
): Effect.Effect<ReadonlyArray<Write>, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    if ((intent.status !== "canceled" && intent.status !== "expired") || intent.refundsPending !== "0" || intent.amountRefunded !== "0") return []
    const now = yield* Clock.currentTimeMillis
    const reserved = reserve(intent, undefined, now)
    if (Either.isLeft(reserved)) return []
    const refund = yield* lateRefund(intent, reserved.right.amount, intent, { late_payment: intent.id }, now)
    return yield* pendingWrites(refund, intent, reserved.right.intent)
  })

/**
 * The writes that refund a payment the payer made at an abandoned attempt of `intent` (a create
 * whose answer was lost, `ProviderAttempt`): a pending `late_payment` refund of `amount` at the
 * attempt's provider and account, with its event and send task. The intent's own counters are
 * not touched: that money was never the intent's payment.
 *
 * @since 0.1.0
 */
export const attemptPayment = (
  intent: PaymentIntent.PaymentIntentRecord,
  at: { readonly id: string; readonly provider: string; readonly providerAccount: string | null },
  amount: string
): Effect.Effect<{ readonly refundId: string; readonly writes: ReadonlyArray<Write> }, StorageError, IdGenerator | Storage> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const refund = yield* lateRefund(intent, amount, { providerCode: at.provider, providerAccount: at.providerAccount }, { attempt: at.id }, now)
    return { refundId: refund.id, writes: yield* pendingWrites(refund, intent, null) }
  })

/** A pending late-payment refund of `amount` of `intent`'s payer, at the provider and account that hold it. */
const lateRefund = (
  intent: PaymentIntent.PaymentIntentRecord,
  amount: string,
  at: { readonly providerCode: string | null; readonly providerAccount: string | null },
  of: object,
  now: number
) =>
  Effect.gen(function*() {
    const options = intent.paymentMethodOptions
    return Table.construct(Record, {
      id: yield* (yield* IdGenerator).make(prefixes.refund),
      ...scopeOf(intent),
      paymentIntentId: intent.id,
      amount,
      currency: intent.currency,
      status: "pending",
      reason: "late_payment",
      // Back to the account the payer paid from, where the method is refunded to one.
      destination: options?.bank !== undefined && options.account_number !== undefined && options.account_name !== undefined
        ? { type: "bank_account", bank: options.bank, account_number: options.account_number, account_name: options.account_name }
        : null,
      providerCode: at.providerCode,
      providerAccount: at.providerAccount,
      fingerprint: fingerprint(of),
      ...Table.firstWrite(now)
    })
  })

// ---------------------------------------------------------------------------
// The provider's side: the one door of a refund's outcome, and the send task
// ---------------------------------------------------------------------------

/** A refund's final outcome, as its provider reports it. @since 0.1.0 @category models */
export type Outcome = Internal.Outcome

/**
 * The writes that settle a pending refund with its outcome: the refund's change and event, and
 * the intent's counters, guarded by the versions read. None when the refund is gone or no longer
 * pending: a refund is settled once, whoever reports it (its send task, or a provider
 * notification, D11).
 *
 * @since 0.1.0 @category transitions
 */
export const settlement = Internal.settlement

/**
 * Run the send task of a pending refund: the provider's answer settles it through `settlement`,
 * the door a provider's notification of it takes too (`succeeded`, or `failed` with its amount
 * refundable again), its writes committed by the worker with the task's completion; a pending
 * answer or an unavailable provider is asked again with back-off. Our refund id is the provider's
 * idempotency key, so a task run twice (a worker killed mid-refund) refunds once.
 *
 * @since 0.1.0 @category tasks
 */
export const send = Internal.send
