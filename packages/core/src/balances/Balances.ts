/**
 * Balances (D12): what a merchant has and can pay out, and the transactions it is made of, for
 * merchants (`GET /balance`, `GET /balance_transactions`); adjustments and the platform's fee
 * revenue for the host. The transactions themselves are written by `Ledger`, with the state
 * changes that cause them.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Schema } from "effect"
import type { Principal } from "../requests/Authentication.js"
import * as Idempotency from "../requests/Idempotency.js"
import { IdempotencyConflict, ValidationFailed } from "../resources/Errors.js"
import { isWellFormed, prefixes } from "../resources/Ids.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import { Currency, type Environment } from "../resources/Schemas.js"
import type { BalanceTotal, Scope } from "../storage/Storage.js"
import { scopeOf, Storage, Write } from "../storage/Storage.js"
import type { BalanceTransactionRecord } from "./BalanceTransaction.js"
import { table, toResource, Type } from "./BalanceTransaction.js"
import * as Ledger from "./Ledger.js"

/** The balance of a scope at `now`: per currency with any transaction, sorted by currency (D12). */
const totals = (scope: Scope, now: number) =>
  Effect.flatMap(Storage, (storage) => storage.balances({ environment: scope.environment, merchantId: scope.merchantId, now }))

/** GET /balance query: none; an unknown parameter is a 400 (D1). @since 0.1.0 @category request */
export const BalanceParams = Schema.Struct({}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })

/** GET /balance (D12). @since 0.1.0 */
export const balance = (principal: Principal) =>
  Effect.gen(function*() {
    const rows = yield* totals(scopeOf(principal), yield* Clock.currentTimeMillis)
    return {
      object: "balance" as const,
      environment: principal.environment,
      available: rows.map((r) => ({ amount: r.available, currency: r.currency })),
      pending: rows.map((r) => ({ amount: r.pending, currency: r.currency }))
    }
  })

/**
 * The available balance of one currency at `now`: what a payout may draw (D12).
 *
 * @since 0.1.0
 */
export const available = (scope: Scope, currency: string, now: number) =>
  Effect.map(totals(scope, now), (rows) => BigInt(rows.find((r) => r.currency === currency)?.available ?? "0"))

/** A transaction with the time it is shown at: its `status` depends on it. */
interface AtTime {
  readonly record: BalanceTransactionRecord
  readonly now: number
}

const view = (t: AtTime) => toResource(t.record, t.now)

/** A transaction of the caller's scope, or the D1 400 (malformed id) or 404 (none, or another merchant's or environment's). */
const load = (principal: Principal, id: string) =>
  Effect.gen(function*() {
    if (!isWellFormed(prefixes.balanceTransaction, id)) {
      return yield* ValidationFailed.at("id", "id must be a balance transaction id: txn_ followed by 24 letters and digits")
    }
    const found = yield* (yield* Storage).get(table, scopeOf(principal), id)
    if (Option.isNone(found)) return yield* Resources.notFound("balance transaction", id)
    return { record: found.value, now: yield* Clock.currentTimeMillis } satisfies AtTime
  })

/** GET /balance_transactions query (D12): `type`, `source`, `currency`, the creation window (4.3) and the page (D6). @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({
  type: Schema.optional(Pagination.ValueList.annotations({ description: "One or more transaction types: single, comma-separated or repeated" })),
  source: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64))),
  currency: Schema.optional(Currency),
  ...Pagination.createdFields
})
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

const reads = Resources.reads(
  load,
  (show) => (principal: Principal, params: ListParams) =>
    Effect.gen(function*() {
      const { limit, query } = yield* Pagination.window(params, prefixes.balanceTransaction)
      const types = yield* Pagination.parseValues("type", params.type, Type.literals)
      const rows = yield* (yield* Storage).list(table, {
        ...scopeOf(principal),
        ...query,
        where: { type: types, source: params.source, currency: params.currency }
      })
      const now = yield* Clock.currentTimeMillis
      return Pagination.page(rows, limit, (record) => show({ record, now }))
    }),
  view,
  (t) => JSON.stringify(view(t))
)

/** GET /balance_transactions/{id} (D12). @since 0.1.0 */
export const retrieve = reads.retrieve
/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = reads.retrieveJson
/** GET /balance_transactions (D12, D6): newest first. @since 0.1.0 */
export const list = reads.list
/** `list`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const listJson = reads.listJson

/** What the host gives to adjust a balance (D12). @since 0.1.0 @category request */
export const AdjustParams = Schema.Struct({
  amount: Schema.String.pipe(Schema.pattern(/^-?[1-9]\d{0,17}$/)).annotations({
    message: () => "must be a non-zero signed integer string of minor units, of at most 18 digits"
  }),
  currency: Currency,
  description: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)).annotations({ message: () => "must be 1 to 1000 characters" }),
  idempotency_key: Schema.String
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type AdjustParams = typeof AdjustParams.Type

/**
 * Adjust a merchant's balance (D12): an `adjustment` transaction of `amount` (either sign; it
 * may take the balance below zero), available at once. The same `idempotency_key` again answers
 * the adjustment it made; with other values, 409 `idempotency_conflict`.
 *
 * @since 0.1.0
 */
export const adjust = (scope: Scope, params: AdjustParams) =>
  Effect.gen(function*() {
    const key = yield* Idempotency.validateKey(params.idempotency_key, true)
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const record = Ledger.transaction({
      ...scope,
      type: "adjustment",
      amount: BigInt(params.amount),
      currency: params.currency,
      source: null,
      counter: Ledger.accounts.adjustments,
      createdAt: now,
      description: params.description,
      idempotencyKey: key
    })
    const inserted = yield* Effect.either(storage.commit([Write.insert(table, record)]))
    if (inserted._tag === "Right") return toResource(record, now)
    if (inserted.left._tag !== "UniqueViolation") return yield* inserted.left
    const [earlier] = yield* storage.list(table, { ...scope, where: { idempotencyKey: key }, limit: 1 })
    if (earlier === undefined) return yield* inserted.left
    if (earlier.amount !== record.amount || earlier.currency !== record.currency || earlier.description !== record.description) {
      return yield* new IdempotencyConflict({ param: "idempotency_key", message: "This idempotency_key made an adjustment with other values." })
    }
    return toResource(earlier, now)
  })

/** The platform's fee revenue in one currency. @since 0.1.0 @category models */
export interface FeeRevenue {
  readonly currency: string
  readonly amount: string
}

/**
 * The platform's fee revenue in `environment`, per currency (D12): the sum of every transaction's
 * fee, from the stored transactions.
 *
 * @since 0.1.0
 */
export const feeRevenue = (environment: Environment) =>
  Effect.gen(function*() {
    const rows: ReadonlyArray<BalanceTotal> = yield* (yield* Storage).balances({ environment, now: yield* Clock.currentTimeMillis })
    return rows.map((r): FeeRevenue => ({ currency: r.currency, amount: r.fees }))
  })
