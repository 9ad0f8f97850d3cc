/**
 * Data builders for the contract suite. Every call makes fresh merchants, ids and keys,
 * so cases never see each other's rows, whatever ran before in the same store.
 */
import type { Vitest } from "@effect/vitest"
import type { Merchants, Task } from "@tender/core"
import { Ids, PaymentIntent, Refund, Storage, Table } from "@tender/core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

/** A merchant and environment no other case uses. */
export const freshScope = (environment: "test" | "live" = "test") => ({
  merchantId: `mch_${Ids.randomBase62(16)}`,
  environment
})

export const newIntentId = () => Ids.prefixes.paymentIntent + Ids.randomBase62()

/** A point in time well inside the range any store handles (2026-11-22T00:00:00.000Z plus ms). */
export const t0 = Date.UTC(2026, 10, 22)

/** One atomic commit of `writes` on the store under test. */
export const commit = (writes: ReadonlyArray<Storage.Write>) => Effect.flatMap(Storage.Storage, (s) => s.commit(writes))

/** A complete payment intent record; `overrides` replace fields. */
export const intent = (
  scope: { readonly merchantId: string; readonly environment: "test" | "live" },
  overrides: Partial<PaymentIntent.PaymentIntentRecord> = {}
): PaymentIntent.PaymentIntentRecord =>
  // Fields left out are null (`Table.OrNull`): a new nullable field needs no change here.
  PaymentIntent.PaymentIntentRecord.make({
    id: newIntentId(),
    merchantId: scope.merchantId,
    environment: scope.environment,
    amount: "150000",
    currency: "THB",
    country: "TH",
    checkoutMode: "merchant",
    status: "requires_action",
    paymentMethod: "th_promptpay",
    nextAction: { type: "display_qr_code", qr_data: "00020101021229370016A000000677010111" },
    customer: { name: "Somchai Jaidee" },
    providerCode: "simulator",
    fingerprint: "f".repeat(64),
    createdAt: t0,
    updatedAt: t0,
    version: 1,
    ...overrides
  })

/** A merchant and environment. */
export type Scope = { readonly merchantId: string; readonly environment: "test" | "live" }

/** A pending refund record of `paymentIntentId`; `overrides` replace fields. */
export const refund = (scope: Scope, paymentIntentId: string, overrides: Partial<Refund.RefundRecord> = {}): Refund.RefundRecord =>
  Refund.RefundRecord.make({
    id: Ids.prefixes.refund + Ids.randomBase62(),
    merchantId: scope.merchantId,
    environment: scope.environment,
    paymentIntentId,
    amount: "10000",
    currency: "THB",
    status: "pending",
    fingerprint: "f".repeat(64),
    createdAt: t0,
    updatedAt: t0,
    version: 1,
    ...overrides
  })

/** A refund with every field set, each at an edge a store must keep (18 digits, non-ASCII text); `overrides` replace fields. */
export const completeRefund = (scope: Scope, paymentIntentId: string, overrides: Partial<Refund.RefundRecord> = {}): Refund.RefundRecord =>
  refund(scope, paymentIntentId, {
    amount: "999999999999999999",
    status: "failed",
    reason: "late_payment",
    merchantReference: "refund-ทดสอบ",
    destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "สมชาย ใจดี" },
    metadata: { order: "1042" },
    failureCode: "refund_failed",
    failureMessage: "The provider could not refund the payment.",
    providerCode: "simulator",
    version: 2,
    ...overrides
  })

/** An idempotency key no other case uses, under a fresh API key id. */
export const freshKey = (): Storage.IdempotencyKeyId => ({ apiKeyId: `key_${Ids.randomBase62()}`, key: randomUUID() })

/** A claim on `key` made at `now`, with the library's retention and lock. */
export const claim = (
  key: Storage.IdempotencyKeyId,
  now: number,
  fingerprint = "a".repeat(64),
  lockMillis = 60_000
): Storage.IdempotencyClaim => ({
  ...key,
  fingerprint,
  expiresAt: now + 24 * 60 * 60 * 1000,
  lockedUntil: now + lockMillis
})

/** The key as held by the claim `claim(key, now)` made: what completing or releasing it names. */
export const held = (key: Storage.IdempotencyKeyId, now: number, lockMillis = 60_000): Storage.HeldKey => ({
  ...key,
  lockedUntil: now + lockMillis
})

/** A merchant_reference claim for a new payment intent. */
export const referenceClaim = (
  scope: { readonly merchantId: string; readonly environment: "test" | "live" },
  reference: string,
  now: number,
  overrides: Partial<Storage.ReferenceClaim> = {}
): Storage.ReferenceClaim => ({
  ...scope,
  resourceType: "payment_intent",
  reference,
  fingerprint: "b".repeat(64),
  resourceId: newIntentId(),
  lockedUntil: now + 60_000,
  ...overrides
})

/** A stored response whose bytes a JSON round trip would change: odd spacing, unsorted keys, Thai text. */
export const oddResponse = (requestId = `req_${Ids.randomBase62()}`): Storage.StoredResponse => ({
  status: 201,
  body: `{"object":"payment_intent",  "name_th":"สมชาย ใจดี","amount":"999999999999999999","z":1.50,"a":[]}`,
  requestId
})

/** The `it` the cases register with: the adapter's services, on the live clock. */
export type ContractIt = Vitest.MethodsNonLive<Storage.Storage | Task.Tasks | Merchants.Merchants, true>

/** The ids of rows, in order. */
export const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

/**
 * What a list must return, by the rules every list shares (4.3, D6): the query's scope and created
 * window, strictly after its cursor, newest first, at most `limit`; `matches` is the resource's own filter.
 */
export const expectedPage = <R extends Table.StoredRecord>(
  rows: ReadonlyArray<R>,
  q: Omit<Storage.ListQuery<R>, "where">,
  matches: (r: R) => boolean
) =>
  rows
    .filter((r) =>
      r.merchantId === q.merchantId && r.environment === q.environment &&
      (q.createdAfter === undefined || r.createdAt >= q.createdAfter) &&
      (q.createdBefore === undefined || r.createdAt < q.createdBefore) &&
      (q.after === undefined || Table.compareNewestFirst(q.after, r) < 0) &&
      matches(r)
    )
    .sort(Table.compareNewestFirst)
    .slice(0, q.limit)
