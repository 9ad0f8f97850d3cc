/**
 * Payment intents: create (4.1), get (4.2), list (4.3). A create runs in atomic phases:
 * reserve the idempotency key and merchant_reference together; call the provider outside
 * any transaction with our id as its idempotency key; commit the intent, the stored
 * response and the reservations' outcome together.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Duration, Effect, Either, Exit, Option, Schema } from "effect"
import * as ApiResponse from "./ApiResponse.js"
import type { Principal } from "./Authentication.js"
import { fingerprint } from "./Canonical.js"
import type { Candidate, PayerData } from "./Discovery.js"
import { missingPayerFields, resolveRoutes } from "./Discovery.js"
import type { ApiError } from "./Errors.js"
import {
  CheckoutModeNotAllowed,
  IdempotencyConflict,
  InternalError,
  ResourceNotFound,
  RoutingUnavailable,
  ValidationFailed
} from "./Errors.js"
import { HostedCheckout } from "./HostedCheckout.js"
import * as Idempotency from "./Idempotency.js"
import { IdGenerator, isWellFormed, prefixes } from "./Ids.js"
import * as Pagination from "./Pagination.js"
import type { CreateParams, PaymentIntentRecord } from "./PaymentIntent.js"
import { invariantViolations, pendingStatus, Status, toCreatedResource, toResource } from "./PaymentIntent.js"
import { ProviderUnavailable } from "./Provider.js"
import { RouteHealth } from "./RouteHealth.js"
import type { ReferenceId } from "./Storage.js"
import { Storage } from "./Storage.js"
import { Country, Currency, DateTimeWithOffset, MerchantReference, withMessage } from "./Schemas.js"

/** Who asks, under which request id, with which `Idempotency-Key` (already validated). @since 0.1.0 @category models */
export interface RequestContext {
  readonly principal: Principal
  readonly requestId: string
  readonly idempotencyKey?: string | undefined
}

/** How long a provider may take before the attempt counts as a route failure. @since 0.1.0 */
export const providerTimeout = Duration.seconds(20)

const route = "POST /payment_intents"

// ---------------------------------------------------------------------------
// Canonical form (4.9 merchant_reference rule 4, D5)
// ---------------------------------------------------------------------------

const nonEmpty = <A extends object>(o: A | undefined): A | undefined =>
  o !== undefined && Object.keys(o).length > 0 ? o : undefined

/**
 * The request with defaults filled and values normalised, so equivalent requests are
 * equal: `checkout_mode` defaults to hosted, emails compare case-insensitively, empty
 * objects equal absent ones.
 *
 * @since 0.1.0
 */
export const normalize = (p: CreateParams) => ({
  amount: p.amount,
  currency: p.currency,
  country: p.country,
  checkout_mode: p.checkout_mode ?? "hosted",
  merchant_reference: p.merchant_reference,
  customer: {
    ...p.customer,
    ...(p.customer.email !== undefined ? { email: p.customer.email.toLowerCase() } : {})
  },
  payment_method: p.payment_method,
  payment_method_options: nonEmpty(p.payment_method_options),
  return_url: p.return_url,
  device_fingerprint: p.device_fingerprint,
  metadata: nonEmpty(p.metadata),
  external_reference: p.external_reference
})
/** @since 0.1.0 */
export type Normalized = ReturnType<typeof normalize>

/** The create fingerprint of 4.9 (merchant_reference rule 4): every field but the reference. @since 0.1.0 */
export const createFingerprint = (n: Normalized): string => {
  const { merchant_reference: _ref, ...fields } = n
  return fingerprint(fields)
}

const payerData = (n: Normalized): PayerData => ({
  customer_name: n.customer.name,
  customer_phone: n.customer.phone,
  account_name: n.payment_method_options?.account_name,
  account_number: n.payment_method_options?.account_number,
  bank: n.payment_method_options?.bank,
  name_th: n.payment_method_options?.name_th
})

// ---------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------

/**
 * Decide and build the intent. Fails with the API error the caller sees; never writes.
 *
 * @since 0.1.0
 */
export const decide = (principal: Principal, n: Normalized, id: string, fp: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const mode = n.checkout_mode
    if (!principal.merchant.allowedCheckoutModes.includes(mode)) {
      return yield* new CheckoutModeNotAllowed({
        param: "checkout_mode",
        message: `The team policy of this merchant does not allow checkout_mode ${mode}.`
      })
    }
    const problems: Array<{ param: string; message: string }> = []
    if (mode === "merchant" && n.payment_method === undefined) {
      problems.push({ param: "payment_method", message: "payment_method is required when checkout_mode is merchant" })
    }
    if (mode === "merchant" && n.return_url !== undefined) {
      problems.push({ param: "return_url", message: "return_url is valid only when checkout_mode is hosted" })
    }
    if (n.payment_method === undefined && n.payment_method_options !== undefined) {
      problems.push({ param: "payment_method_options", message: "payment_method_options is only valid together with payment_method" })
    }
    if (problems.length > 0) return yield* ValidationFailed.many(problems)

    const base: PaymentIntentRecord = {
      id,
      merchantId: principal.merchant.id,
      environment: principal.environment,
      amount: n.amount,
      currency: n.currency,
      country: n.country,
      checkoutMode: mode,
      status: "requires_action",
      merchantReference: n.merchant_reference ?? null,
      paymentMethod: n.payment_method ?? null,
      nextAction: null,
      failureCode: null,
      failureMessage: null,
      processingReason: null,
      receipt: null,
      customer: n.customer,
      paymentMethodOptions: n.payment_method_options ?? null,
      returnUrl: n.return_url ?? null,
      deviceFingerprint: n.device_fingerprint ?? null,
      metadata: n.metadata ?? null,
      externalReference: n.external_reference ?? null,
      providerCode: null,
      providerPaymentId: null,
      fingerprint: fp,
      createdAt: now,
      updatedAt: now,
      version: 1
    }
    const constraints = { amount: n.amount, country: n.country, currency: n.currency, checkoutMode: mode }
    const payer = payerData(n)
    const candidates = n.payment_method === undefined
      ? []
      : yield* resolveRoutes(principal, constraints, n.payment_method, payer)

    if (mode === "hosted") {
      // 4.1.1/4.1.2: the payer completes the flow on the hosted page; the method (if any)
      // was checked for a healthy configured route, and the provider is called from there.
      const hosted = (yield* HostedCheckout).urlFor(id, now)
      return {
        ...base,
        nextAction: { type: "redirect_to_url" as const, url: hosted.url, expires_at: new Date(hosted.expiresAt).toISOString() }
      }
    }
    return yield* executeAtProvider(base, candidates, payer)
  })

/** Merchant mode: call the first healthy route, failing over to the next on an outage. */
const executeAtProvider = (base: PaymentIntentRecord, candidates: ReadonlyArray<Candidate>, payer: PayerData) =>
  Effect.gen(function*() {
    const first = candidates[0]
    const missing = first === undefined ? [] : missingPayerFields(first, payer)
    if (missing.length > 0) return yield* ValidationFailed.many(missing)
    const health = yield* RouteHealth
    for (const candidate of candidates) {
      if (missingPayerFields(candidate, payer).length > 0) continue
      const bank = payer.bank === undefined ? null : candidate.method.banks.find((b) => b.code === payer.bank)?.providerCode ?? null
      // The create runs uninterruptibly (its claims must be settled); the provider call alone may be
      // interrupted, or the timeout could never cut it off.
      const attempt = yield* Effect.interruptible(candidate.provider.createPayment({
        paymentIntentId: base.id,
        environment: base.environment,
        amount: base.amount,
        currency: base.currency,
        country: base.country,
        providerMethod: candidate.method.providerMethod,
        providerBank: bank,
        customer: base.customer,
        accountName: payer.account_name ?? null,
        accountNumber: payer.account_number ?? null,
        nameTh: payer.name_th ?? null,
        returnUrl: base.returnUrl
      })).pipe(
        Effect.timeoutFail({
          duration: providerTimeout,
          onTimeout: () => new ProviderUnavailable({ provider: candidate.provider.code, reason: "timed out" })
        }),
        Effect.either
      )
      if (attempt._tag === "Left") {
        yield* health.recordFailure(candidate.route)
        yield* Effect.logWarning("provider unavailable", attempt.left.provider, attempt.left.reason)
        continue
      }
      yield* health.recordSuccess(candidate.route)
      const result = attempt.right
      const routed = {
        ...base,
        providerCode: candidate.provider.code,
        providerPaymentId: result.providerPaymentId
      }
      switch (result._tag) {
        case "Action":
          return { ...routed, status: pendingStatus(result.nextAction), nextAction: result.nextAction }
        case "Processing":
          return { ...routed, status: pendingStatus(null), processingReason: "asynchronous" }
        case "Declined":
          return {
            ...routed,
            status: "failed" as const,
            failureCode: result.failureCode,
            failureMessage: result.failureMessage
          }
      }
    }
    return yield* new RoutingUnavailable({
      message: "No route could take the payment: its providers are unavailable. Retry later or choose another method."
    })
  })

/**
 * POST /payment_intents (4.1, 4.9). Always answers with a rendered response: errors are
 * rendered in the D1 shape and stored or released per D5.
 *
 * @since 0.1.0
 */
export const create = (ctx: RequestContext, params: CreateParams) =>
  Effect.uninterruptible(Effect.gen(function*() {
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const { principal, requestId } = ctx
    const n = normalize(params)
    const createFp = createFingerprint(n)
    const id = yield* (yield* IdGenerator).make(prefixes.paymentIntent)
    const keyId = ctx.idempotencyKey === undefined ? undefined : { apiKeyId: principal.apiKeyId, key: ctx.idempotencyKey }
    const refId: ReferenceId | undefined = n.merchant_reference === undefined ? undefined : {
      merchantId: principal.merchant.id,
      environment: principal.environment,
      resourceType: "payment_intent",
      reference: n.merchant_reference
    }
    // The key as this request holds it: completing or releasing it applies only while this claim holds it.
    const held = keyId && { ...keyId, lockedUntil: now + Idempotency.lockMillis }
    const outcome = yield* storage.begin({
      now,
      idempotency: held && {
        ...held,
        fingerprint: Idempotency.requestFingerprint(route, n),
        expiresAt: now + Idempotency.retentionMillis
      },
      reference: refId && { ...refId, fingerprint: createFp, resourceId: id, lockedUntil: now + Idempotency.lockMillis }
    })

    /** Store a final answer on the key (if any) and return it. */
    const settle = (response: ApiResponse.ApiResponse, extra: Parameters<typeof storage.commit>[0] = { now }) =>
      Effect.as(storage.commit({ ...extra, completeIdempotency: held && { ...held, response } }), response)

    switch (outcome._tag) {
      case "Replay":
        return ApiResponse.replay(outcome.response)
      case "KeyConflict":
        return ApiResponse.fromError(new IdempotencyConflict({
          param: Idempotency.header,
          message: "This Idempotency-Key was used with a different request; use a new key for a new request."
        }), requestId)
      case "KeyInFlight":
        return ApiResponse.fromError(new IdempotencyConflict({
          param: Idempotency.header,
          message: "A request with this Idempotency-Key is still in flight; retry after it completes."
        }), requestId)
      case "ReferenceTaken":
      case "Proceed":
        break
    }

    /** 4.9 merchant_reference rules 2 and 3: the reference is held by another create. */
    const answerTaken = (taken: Extract<typeof outcome, { readonly _tag: "ReferenceTaken" }>) =>
      Effect.gen(function*() {
        if (taken.inFlight) {
          // A concurrent create holds the reference: transient, so the key is released, not stored.
          yield* storage.commit({ now, releaseIdempotency: held })
          return ApiResponse.fromError(new IdempotencyConflict({
            param: "merchant_reference",
            message: "A payment intent with this merchant_reference is still being created; retry shortly."
          }), requestId)
        }
        if (!taken.sameFingerprint) {
          return yield* settle(ApiResponse.fromError(new IdempotencyConflict({
            param: "merchant_reference",
            message: "A payment intent with this merchant_reference exists with different fields."
          }), requestId))
        }
        const original = yield* storage.getPaymentIntent(
          { merchantId: principal.merchant.id, environment: principal.environment },
          taken.resourceId
        )
        if (Option.isNone(original)) {
          return yield* Effect.die(new Error(`merchant_reference points at missing intent ${taken.resourceId}`))
        }
        // 4.9 merchant_reference rule 2: the original intent; 200, since nothing was created.
        return yield* settle(ApiResponse.json(200, toCreatedResource(original.value), requestId))
      })

    // From here the key (if any) is claimed: every answer settles it, and a failure releases it below.
    const finished = yield* Effect.exit(outcome._tag === "ReferenceTaken" ? answerTaken(outcome) : Effect.gen(function*() {
      const decided = yield* Effect.either(decide(principal, n, id, createFp))
      if (Either.isRight(decided)) {
        const record = decided.right
        const violations = invariantViolations(record)
        if (violations.length > 0) return yield* Effect.die(new Error(`invariant broken: ${violations.join("; ")}`))
        return yield* settle(ApiResponse.json(201, toCreatedResource(record), requestId), {
          now,
          insertPaymentIntent: record,
          completeReference: refId && { ...refId, resourceId: id }
        })
      }
      // D5: a 4xx is final for this key; the reference was never used, so it is free again.
      return yield* settle(ApiResponse.fromError(decided.left, requestId), {
        now,
        releaseReference: refId && { ...refId, resourceId: id }
      })
    }))
    if (Exit.isSuccess(finished)) return finished.value
    const ownReference = outcome._tag === "Proceed" && refId !== undefined ? { ...refId, resourceId: id } : undefined
    // Whatever went wrong, give back what this request still holds, so a retry reaches a fresh handler
    // (4.9.7). Releases are fenced: a key or reference another request took over is left alone. Best
    // effort: if the store is down, the claims lapse after Idempotency.lockMillis instead.
    yield* Effect.ignore(storage.commit({ now, releaseIdempotency: held, releaseReference: ownReference }))
    const failure = Cause.failureOption(finished.cause)
    switch (Option.isSome(failure) && failure.value._tag === "StorageError" ? failure.value.reason : undefined) {
      case "UniqueViolation":
        // This request's reference claim lapsed (it outlived Idempotency.lockMillis) and another create
        // took the reference: a conflict, not a fault. A retry answers with the intent that won.
        yield* Effect.logWarning("payment intent create lost its merchant_reference to a concurrent create", finished.cause)
        return ApiResponse.fromError(new IdempotencyConflict({
          param: "merchant_reference",
          message: "A payment intent with this merchant_reference was created by a concurrent request; retry to retrieve it."
        }), requestId)
      case "ClaimLost":
        // This request outlived its claim on the key and a retry took it over: the retry's answer
        // stands, and nothing of this request was written.
        yield* Effect.logWarning("payment intent create outlived its Idempotency-Key claim", finished.cause)
        return ApiResponse.fromError(new IdempotencyConflict({
          param: Idempotency.header,
          message: "A retry with this Idempotency-Key took it over while this request was still running; retry to get its answer."
        }), requestId)
      default:
        // 4.9.7: a 5xx (a defect, a failed read, the final commit failing).
        yield* Effect.logError("payment intent create failed", finished.cause)
        return ApiResponse.fromError(new InternalError({ message: "create failed" }), requestId)
    }
  }))

// ---------------------------------------------------------------------------
// Get and list
// ---------------------------------------------------------------------------

const notFound = (id: string) => new ResourceNotFound({ param: "id", message: `No payment intent ${JSON.stringify(id)}.` })

/** GET /payment_intents/{id} (4.2): another merchant's or environment's id is a plain 404. @since 0.1.0 */
export const retrieve = (principal: Principal, id: string) =>
  Effect.gen(function*() {
    // D1: a bad path id format is a 400, answered without a storage round trip.
    if (!isWellFormed(prefixes.paymentIntent, id)) {
      return yield* ValidationFailed.at("id", "id must be a payment intent id: dord_ followed by 24 letters and digits")
    }
    const found = yield* (yield* Storage).getPaymentIntent(
      { merchantId: principal.merchant.id, environment: principal.environment },
      id
    )
    if (Option.isNone(found)) return yield* notFound(id)
    return toResource(found.value)
  })

const Limit = withMessage(
  Schema.String.pipe(Schema.pattern(/^\d{1,3}$/), Schema.filter((s) => Number(s) >= 1 && Number(s) <= 100)),
  "must be an integer from 1 to 100"
)

const StatusList = Schema.Union(Schema.String, Schema.Array(Schema.String))

/** GET /payment_intents query (4.3). @since 0.1.0 @category request */
export const ListParams = Schema.Struct({
  country: Schema.optional(Country),
  currency: Schema.optional(Currency),
  created_after: Schema.optional(DateTimeWithOffset),
  created_before: Schema.optional(DateTimeWithOffset),
  merchant_reference: Schema.optional(MerchantReference),
  status: Schema.optional(StatusList.annotations({
    description: "One or more statuses: a single value, a comma-separated list, or the parameter repeated"
  })),
  limit: Schema.optional(Limit.annotations({
    description: "1 to 100; default 25",
    jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 25 }
  })),
  cursor: Schema.optional(withMessage(Schema.String.pipe(Schema.minLength(1)), "must be the next_cursor of the previous page"))
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

/** The list envelope (2.6). @since 0.1.0 @category wire */
export const ListEnvelope = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), has_more: Schema.Boolean, next_cursor: Schema.NullOr(Schema.String) })

/** Parse `status` (single, comma-separated or repeated) into statuses (4.3). @since 0.1.0 */
export const parseStatuses = (raw: string | ReadonlyArray<string> | undefined) => {
  if (raw === undefined) return Effect.succeed(undefined)
  const values = (typeof raw === "string" ? [raw] : raw).flatMap((s) => s.split(",")).map((s) => s.trim())
  const unknown = values.filter((v) => !(Status.literals as ReadonlyArray<string>).includes(v))
  if (values.length === 0 || unknown.length > 0) {
    return Effect.fail(ValidationFailed.at(
      "status",
      `status must be one or more of ${Status.literals.join(", ")}; unknown: ${unknown.map((u) => JSON.stringify(u)).join(", ")}`
    ))
  }
  return Effect.succeed(values as Array<Status>)
}

/** GET /payment_intents (4.3, D6): keyset pages, newest first. @since 0.1.0 */
export const list = (principal: Principal, params: ListParams) =>
  Effect.gen(function*() {
    const limit = params.limit === undefined ? 25 : Number(params.limit)
    const after = params.cursor === undefined ? undefined : yield* Pagination.decode(params.cursor, prefixes.paymentIntent)
    const statuses = yield* parseStatuses(params.status)
    const rows = yield* (yield* Storage).listPaymentIntents({
      merchantId: principal.merchant.id,
      environment: principal.environment,
      country: params.country,
      currency: params.currency,
      createdAfter: params.created_after === undefined ? undefined : Date.parse(params.created_after),
      createdBefore: params.created_before === undefined ? undefined : Date.parse(params.created_before),
      merchantReference: params.merchant_reference,
      statuses,
      after,
      limit: limit + 1
    })
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    const hasMore = rows.length > limit
    return {
      data: page.map(toResource),
      has_more: hasMore,
      next_cursor: hasMore && last !== undefined ? Pagination.encode(last) : null
    }
  })

/** Render a typed result or error as a response. @since 0.1.0 */
export const respond = <A>(status: number, effect: Effect.Effect<A, ApiError>, requestId: string) =>
  Effect.match(effect, {
    onSuccess: (value) => ApiResponse.json(status, value, requestId),
    onFailure: (error) => ApiResponse.fromError(error, requestId)
  })
