/**
 * Top-up intents (2.5, 3.2, 4.7, 4.8, D3, D5): create, get, list and a receipt for
 * merchants; the durable tasks that poll the provider, review a receipt and expire an
 * unpaid top-up. The payer's amount comes from `Money.quote` over the host's `FxRates` and
 * `TopupFees` ports; every change is checked against `TopupIntent.canTransition` and
 * written with its D7 event in one commit.
 *
 * @since 0.1.0
 */
import { BigDecimal, Clock, Duration, Effect, Option, Schema } from "effect"
import * as ApiResponse from "./ApiResponse.js"
import * as Asset from "./Asset.js"
import type { Principal } from "./Authentication.js"
import { fingerprint } from "./Canonical.js"
import {
  PaymentConfigurationUnavailable,
  ResourceNotFound,
  RoutingUnavailable,
  TopupIntentUnexpectedState,
  ValidationFailed
} from "./Errors.js"
import * as Event from "./Event.js"
import { FxRates, TopupFees } from "./Fx.js"
import { IdGenerator, isWellFormed, prefixes } from "./Ids.js"
import * as Money from "./Money.js"
import * as Operation from "./Operation.js"
import * as Pagination from "./Pagination.js"
import type { PaymentProvider, ProviderPaymentStatus, ProviderTopupRef, ProviderTopups } from "./Provider.js"
import { ProviderRegistry, ProviderUnavailable } from "./Provider.js"
import { providerTimeout } from "./Routing.js"
import { Country, Currency, formatTimestamp, MerchantReference } from "./Schemas.js"
import type { Scope } from "./Storage.js"
import { Storage, Write } from "./Storage.js"
import type { StorageError } from "./StorageError.js"
import * as Task from "./Task.js"
import type { CreateParams, NextAction, Status, TopupIntentRecord } from "./TopupIntent.js"
import {
  canTransition,
  SourceType as SourceTypeSchema,
  Status as StatusSchema,
  statusEvents,
  table,
  toResource,
  TopupIntentRecord as Record
} from "./TopupIntent.js"

/** How long a top-up waits for its payment unless its provider says less. @since 0.1.0 @category constants */
export const paymentWindow = Duration.hours(1)

/** How often a top-up's provider is asked whether the payer paid. @since 0.1.0 @category constants */
export const pollEvery = Duration.seconds(5)

/** The longest a source amount may be: what PostgreSQL `numeric(38)` and a Decimal128 hold exactly. */
const maxSourceDigits = 38

const scopeOf = (s: Principal | TopupIntentRecord | Task.TaskRecord): Scope =>
  "merchant" in s ? { merchantId: s.merchant.id, environment: s.environment } : { merchantId: s.merchantId, environment: s.environment }

const notFound = (id: string) => new ResourceNotFound({ param: "id", message: `No top-up intent ${JSON.stringify(id)}.` })

/** The provider and offer that serve a source, or why none does. */
const resolveSource = (environment: Principal["environment"], source: CreateParams["source"]) =>
  Effect.gen(function*() {
    const registry = yield* ProviderRegistry
    if (source.provider !== undefined && registry.get(source.provider)?.topups === undefined) {
      return yield* ValidationFailed.at("source.provider", `No installed provider ${JSON.stringify(source.provider)} takes top-ups.`)
    }
    for (const provider of registry.all) {
      if (source.provider !== undefined && provider.code !== source.provider) continue
      const topups = provider.topups
      if (topups === undefined) continue
      const offer = topups.sources.find((o) =>
        o.type === source.type && o.environments.includes(environment) &&
        (source.currency === undefined || o.currency === source.currency)
      )
      if (offer !== undefined) return { provider, topups, offer }
    }
    return yield* new PaymentConfigurationUnavailable({
      param: source.currency === undefined ? "source.type" : "source.currency",
      message: `No installed provider takes ${source.type} top-ups${source.currency === undefined ? "" : ` in ${source.currency}`} in the ${environment} environment.`
    })
  })

/** The canonical create (D5): defaults resolved, so equivalent requests have one fingerprint. */
const canonical = (p: CreateParams, provider: string | undefined, currency: string | undefined) => ({
  destination_amount: p.destination_amount,
  destination_currency: p.destination_currency,
  source: { type: p.source.type, provider, currency },
  country: p.country
})

/** The writes of a change: the versioned update and its D7 events. A transition not allowed is a defect. */
export const change = (before: TopupIntentRecord, patch: Partial<TopupIntentRecord> & { readonly status: Status }, now: number) =>
  Effect.gen(function*() {
    if (!canTransition(before.status, patch.status)) {
      return yield* Effect.die(new Error(`no top-up transition from ${before.status} to ${patch.status}`))
    }
    const record: TopupIntentRecord = { ...before, ...patch, updatedAt: Math.max(now, before.updatedAt), version: before.version + 1 }
    const events = yield* Event.writes(record, "topup_intent", toResource(record), statusEvents(record.status))
    return { record, writes: [Write.update(table, record, before.version), ...events] as ReadonlyArray<Write> }
  })

/** The exact inputs of a stored top-up's quote, read back from its record. */
const quoteInput = (r: TopupIntentRecord): Money.QuoteInput => ({
  destinationAmount: BigInt(r.destinationAmount),
  destinationDigits: Money.digitsOf(r.destinationCurrency)!,
  sourceDigits: Money.digitsOf(r.sourceCurrency)!,
  rate: BigDecimal.unsafeFromString(r.fxRate),
  spread: BigDecimal.unsafeFromString(r.fxSpread),
  feeRate: BigDecimal.unsafeFromString(r.feeRate),
  feeFixed: BigInt(r.feeFixed)
})

/** The patch of a paid top-up: credited by `Money.credited` for the source amount received. */
const succeededPatch = (r: TopupIntentRecord) => {
  const input = quoteInput(r)
  const credited = Money.credited(input, {
    convertedAmount: BigInt(r.convertedAmount),
    spreadAmount: BigInt(r.spreadAmount),
    feeAmount: BigInt(r.feeAmount),
    sourceAmount: BigInt(r.sourceAmount)
  }, BigInt(r.sourceAmount))
  return { status: "succeeded" as const, creditedAmount: credited.toString(), nextAction: null }
}

const withTimeout = <A>(provider: PaymentProvider, effect: Effect.Effect<A, ProviderUnavailable>) =>
  Effect.interruptible(effect).pipe(
    Effect.timeoutFail({
      duration: providerTimeout,
      onTimeout: () => new ProviderUnavailable({ provider: provider.code, reason: "timed out" })
    })
  )

/**
 * POST /topup_intents (4.7): 201 with the top-up in `requires_payment`. The
 * `Idempotency-Key` is required (checked by the caller, D5); a repeated
 * `merchant_reference` with the same fields answers the original, with changed fields 409
 * `idempotency_conflict` (4.9).
 *
 * @since 0.1.0
 */
export const create = (context: Operation.RequestContext, params: CreateParams) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const id = yield* (yield* IdGenerator).make(prefixes.topupIntent)
    const { principal } = context
    // Resolved before the key is claimed, so the fingerprint names the provider and currency actually used.
    const resolved = yield* Effect.either(resolveSource(principal.environment, params.source))
    const provider = resolved._tag === "Right" ? resolved.right.provider.code : params.source.provider
    const currency = resolved._tag === "Right" ? resolved.right.offer.currency : params.source.currency
    const fields = canonical(params, provider, currency)
    return yield* Operation.run({
      context,
      route: "POST /topup_intents",
      canonical: { merchant_reference: params.merchant_reference, ...fields },
      resource: "top-up intent",
      reference: params.merchant_reference === undefined ? undefined : {
        resourceType: "topup_intent",
        reference: params.merchant_reference,
        fingerprint: fingerprint(fields),
        resourceId: id,
        original: (originalId) =>
          storage.get(table, scopeOf(principal), originalId).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.dieMessage(`merchant_reference points at missing top-up ${originalId}`),
              onSome: (original) => Effect.succeed(ApiResponse.json(200, toResource(original), context.requestId))
            }))
          )
      },
      decide: Effect.gen(function*() {
        const { offer, provider, topups } = yield* resolved
        const destinationDigits = Money.digitsOf(params.destination_currency)
        if (destinationDigits === undefined) {
          return yield* ValidationFailed.at("destination_currency", `${params.destination_currency} is not a currency this service converts.`)
        }
        const sourceDigits = Money.digitsOf(offer.currency)
        const fx = yield* (yield* FxRates).quote({
          sourceCurrency: offer.currency,
          destinationCurrency: params.destination_currency,
          environment: principal.environment
        }).pipe(Effect.mapError(() => new RoutingUnavailable({ message: "The exchange rate source is unavailable; retry later." })))
        if (sourceDigits === undefined || Option.isNone(fx) || !BigDecimal.isPositive(fx.value.rate)) {
          return yield* new PaymentConfigurationUnavailable({
            param: "destination_currency",
            message: `No exchange rate from ${offer.currency} to ${params.destination_currency} is configured.`
          })
        }
        const fee = yield* (yield* TopupFees).fee({
          sourceType: offer.type,
          provider: provider.code,
          sourceCurrency: offer.currency,
          environment: principal.environment
        })
        const input: Money.QuoteInput = {
          destinationAmount: BigInt(params.destination_amount),
          destinationDigits,
          sourceDigits,
          rate: fx.value.rate,
          spread: fx.value.spread,
          feeRate: fee.rate,
          feeFixed: fee.fixed
        }
        const quoted = Money.quote(input)
        if (quoted.sourceAmount.toString().length > maxSourceDigits) {
          return yield* ValidationFailed.at("destination_amount", `destination_amount converts to more than ${maxSourceDigits} digits of ${offer.currency}.`)
        }
        const now = yield* Clock.currentTimeMillis
        const started = yield* withTimeout(provider, topups.start({
          topupIntentId: id,
          environment: principal.environment,
          sourceType: offer.type,
          sourceCurrency: offer.currency,
          network: offer.network,
          sourceAmount: quoted.sourceAmount.toString(),
          destinationAmount: params.destination_amount,
          expiresAt: now + Duration.toMillis(paymentWindow)
        })).pipe(Effect.mapError((e) => new RoutingUnavailable({ message: `The top-up provider is unavailable (${e.reason}); retry later.` })))
        const expiresAt = Math.min(now + Duration.toMillis(paymentWindow), started.expiresAt ?? Number.POSITIVE_INFINITY)
        const record = Record.make({
          id,
          ...scopeOf(principal),
          status: "requires_payment",
          merchantReference: params.merchant_reference ?? null,
          country: params.country ?? null,
          destinationAmount: params.destination_amount,
          destinationCurrency: params.destination_currency,
          creditedAmount: "0",
          sourceType: offer.type,
          sourceProvider: provider.code,
          sourceCurrency: offer.currency,
          sourceNetwork: offer.network,
          sourceAmount: quoted.sourceAmount.toString(),
          convertedAmount: quoted.convertedAmount.toString(),
          feeAmount: quoted.feeAmount.toString(),
          spreadAmount: quoted.spreadAmount.toString(),
          fxRate: Money.formatDecimal(fx.value.rate),
          fxSpread: Money.formatDecimal(fx.value.spread),
          feeRate: Money.formatDecimal(fee.rate),
          feeFixed: fee.fixed.toString(),
          nextAction: nextActionOf(started.instructions, offer, quoted.sourceAmount, expiresAt),
          receipt: offer.type === "manual_receipt" ? { status: "required" } : null,
          providerTopupId: started.providerTopupId,
          expiresAt,
          fingerprint: fingerprint(fields),
          createdAt: now,
          updatedAt: now,
          version: 1
        }, true)
        const events = yield* Event.writes(record, "topup_intent", toResource(record), statusEvents(record.status))
        const scope = scopeOf(principal)
        const expire = yield* Task.make({ ...scope, kind: "topup_intent.expire", resourceId: id, dueAt: expiresAt, now })
        // A receipt drives a manual top-up; the others are asked for at once and then every `pollEvery`.
        const poll = offer.type === "manual_receipt"
          ? []
          : [Write.insert(Task.table, yield* Task.make({ ...scope, kind: "topup_intent.poll", resourceId: id, dueAt: now, now }))]
        return {
          response: ApiResponse.json(201, toResource(record), context.requestId),
          writes: [Write.insert(table, record), ...events, Write.insert(Task.table, expire), ...poll]
        }
      })
    })
  })

const nextActionOf = (
  instructions: Effect.Effect.Success<ReturnType<ProviderTopups["start"]>>["instructions"],
  offer: ProviderTopups["sources"][number],
  sourceAmount: bigint,
  expiresAt: number
): NextAction | null => {
  switch (instructions._tag) {
    case "None":
      return null
    case "CryptoAddress":
      return {
        type: "display_crypto_payment_instructions",
        address: instructions.address,
        amount: sourceAmount.toString(),
        currency: offer.currency,
        network: offer.network ?? "unknown",
        expires_at: formatTimestamp(expiresAt)
      }
    case "BankTransfer":
      return {
        type: "display_bank_transfer_instructions",
        bank_code: instructions.bankCode,
        bank_name: instructions.bankName,
        account_number: instructions.accountNumber,
        account_name: instructions.accountName,
        reference: instructions.reference,
        amount: sourceAmount.toString(),
        currency: offer.currency,
        expires_at: formatTimestamp(expiresAt),
        requires_receipt: true
      }
  }
}

const load = (principal: Principal, id: string) =>
  Effect.gen(function*() {
    if (!isWellFormed(prefixes.topupIntent, id)) {
      return yield* ValidationFailed.at("id", "id must be a top-up intent id: tuin_ followed by 24 letters and digits")
    }
    const found = yield* (yield* Storage).get(table, scopeOf(principal), id)
    if (Option.isNone(found)) return yield* notFound(id)
    return found.value
  })

/** GET /topup_intents/{id} (4.8, D3): another merchant's or environment's is the same 404. @since 0.1.0 */
export const retrieve = (principal: Principal, id: string) => Effect.map(load(principal, id), toResource)

/** GET /topup_intents query (4.8, D3): the filters of 4.3 and `source_type`. @since 0.1.0 @category request */
export const ListParams = Schema.Struct({
  country: Schema.optional(Country),
  currency: Schema.optional(Currency.annotations({ description: "The destination currency" })),
  ...Pagination.createdFields,
  merchant_reference: Schema.optional(MerchantReference),
  status: Schema.optional(Pagination.ValueList.annotations({ description: "One or more statuses: single, comma-separated or repeated" })),
  source_type: Schema.optional(Pagination.ValueList.annotations({ description: "One or more source types: single or comma-separated (D3)" })),
  ...Pagination.pageFields
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

/** GET /topup_intents (4.8, D6): keyset pages, newest first. @since 0.1.0 */
export const list = (principal: Principal, params: ListParams) =>
  Effect.gen(function*() {
    const { limit, query } = yield* Pagination.window(params, prefixes.topupIntent)
    const statuses = yield* Pagination.parseValues("status", params.status, StatusSchema.literals)
    const sourceTypes = yield* Pagination.parseValues("source_type", params.source_type, SourceTypeSchema.literals)
    const rows = yield* (yield* Storage).list(table, {
      ...scopeOf(principal),
      ...query,
      where: {
        country: params.country,
        destinationCurrency: params.currency,
        merchantReference: params.merchant_reference,
        status: statuses,
        sourceType: sourceTypes
      }
    })
    return Pagination.page(rows, limit, toResource)
  })

/**
 * POST /topup_intents/{id}/receipt: the payer's receipt of a `manual_receipt` top-up, an
 * asset uploaded earlier (`POST /assets`). The top-up is `processing` while its provider
 * reviews it; the verdict is a durable task.
 *
 * @since 0.1.0
 */
export const submitReceipt = (context: Operation.RequestContext, id: string, assetId: string) =>
  Operation.run({
    context,
    route: "POST /topup_intents/{id}/receipt",
    canonical: { id, asset_id: assetId },
    resource: "top-up intent",
    decide: Effect.gen(function*() {
      const topup = yield* load(context.principal, id)
      if (topup.sourceType !== "manual_receipt") {
        return yield* new TopupIntentUnexpectedState({ message: `A ${topup.sourceType} top-up takes no receipt.` })
      }
      if (topup.status !== "requires_payment" || topup.receipt?.status !== "required") {
        return yield* new TopupIntentUnexpectedState({ message: `This top-up intent is ${topup.status}: it takes no receipt now.` })
      }
      const asset = yield* Asset.find(context.principal, assetId)
      const now = yield* Clock.currentTimeMillis
      const { record, writes } = yield* change(topup, {
        status: "processing",
        nextAction: null,
        receipt: { status: "submitted", asset_id: asset.id }
      }, now)
      const task = yield* Task.make({ ...scopeOf(topup), kind: "topup_intent.submit_receipt", resourceId: id, dueAt: now, now })
      return { response: ApiResponse.json(200, toResource(record), context.requestId), writes: [...writes, Write.insert(Task.table, task)] }
    })
  })

// ---------------------------------------------------------------------------
// Durable tasks
// ---------------------------------------------------------------------------

const done = (writes: ReadonlyArray<Write> = []): Task.Outcome => ({ _tag: "Done", writes })

/** The top-up of a task with its provider, if it is still waiting on that provider. */
const pending = (task: Task.TaskRecord, status: Status) =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).get(table, scopeOf(task), task.resourceId)
    if (Option.isNone(found) || found.value.status !== status) return undefined
    const topup = found.value
    const provider = (yield* ProviderRegistry).get(topup.sourceProvider)
    const ref: ProviderTopupRef = {
      topupIntentId: topup.id,
      providerTopupId: topup.providerTopupId,
      environment: topup.environment,
      sourceType: topup.sourceType,
      sourceAmount: topup.sourceAmount,
      destinationAmount: topup.destinationAmount,
      createdAt: topup.createdAt
    }
    return { topup, provider, topups: provider?.topups, ref }
  })

/** The change a provider's final answer makes, if it is final. */
const verdict = (topup: TopupIntentRecord, answer: ProviderPaymentStatus, now: number, receipt: boolean) => {
  switch (answer._tag) {
    case "Succeeded":
      return change(topup, {
        ...succeededPatch(topup),
        ...(receipt && topup.receipt !== null ? { receipt: { ...topup.receipt, status: "accepted" as const } } : {})
      }, now)
    case "Failed":
      return change(topup, {
        status: "failed",
        nextAction: null,
        failureCode: answer.failureCode,
        failureMessage: answer.failureMessage,
        ...(receipt && topup.receipt !== null ? { receipt: { ...topup.receipt, status: "rejected" as const } } : {})
      }, now)
    case "Processing":
    case "Pending":
      return undefined
  }
}

/** Ask the provider whether the payer paid; again every `pollEvery` until paid, failed or expired. */
const poll = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* pending(task, "requires_payment")
    if (found === undefined) return done()
    const { provider, ref, topup, topups } = found
    const now0 = yield* Clock.currentTimeMillis
    // Past its expiry the expire task decides; a provider no longer installed is never asked.
    if (now0 >= topup.expiresAt || provider === undefined || topups === undefined) return done()
    const answer = yield* withTimeout(provider, topups.status(ref)).pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    const changed = verdict(topup, answer.right, now, false)
    if (changed === undefined) {
      return { _tag: "Retry", dueAt: Math.min(now + Duration.toMillis(pollEvery), topup.expiresAt), error: null } satisfies Task.Retry
    }
    return done((yield* changed).writes)
  })

/** Submit a top-up's receipt to its provider; its verdict ends the top-up. */
const reviewReceipt = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* pending(task, "processing")
    const assetId = found?.topup.receipt?.asset_id
    if (found === undefined || assetId === undefined) return done()
    const { provider, ref, topup, topups } = found
    const now0 = yield* Clock.currentTimeMillis
    if (provider === undefined || topups === undefined) {
      const { writes } = yield* change(topup, {
        status: "failed",
        failureCode: "provider_unavailable",
        failureMessage: "The top-up's provider is no longer installed."
      }, now0)
      return done(writes)
    }
    const asset = yield* (yield* Storage).get(Asset.table, scopeOf(topup), assetId)
    if (Option.isNone(asset)) return yield* Effect.dieMessage(`receipt asset ${assetId} is missing`)
    const answer = yield* withTimeout(provider, topups.submitReceipt(ref, {
      contentType: asset.value.contentType,
      sha256: asset.value.sha256,
      bytes: asset.value.bytes
    })).pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    const changed = verdict(topup, answer.right, now, true)
    // Still under review: ask again later.
    if (changed === undefined) return Task.retry(task, now, null)
    return done((yield* changed).writes)
  })

/** Move an unpaid top-up to `expired` at its `expires_at` (never after a receipt or a terminal status). */
const expire = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).get(table, scopeOf(task), task.resourceId)
    if (Option.isNone(found) || found.value.status !== "requires_payment") return done()
    const now = yield* Clock.currentTimeMillis
    if (now < found.value.expiresAt) return { _tag: "Defer", dueAt: found.value.expiresAt } satisfies Task.Outcome
    const { writes } = yield* change(found.value, { status: "expired", nextAction: null }, now)
    return done(writes)
  })

/**
 * Run one top-up task. Exhaustive over the task kinds: a new kind does not compile until
 * it has a handler.
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Storage | ProviderRegistry | IdGenerator> => {
  switch (task.kind) {
    case "topup_intent.poll":
      return poll(task)
    case "topup_intent.submit_receipt":
      return reviewReceipt(task)
    case "topup_intent.expire":
      return expire(task)
    case "payment_intent.cancel":
    case "refund.send":
    case "payment_intent.confirm":
    case "payment_intent.poll":
    case "payment_intent.submit_receipt":
    case "payment_intent.expire":
    case "payout_intent.send":
    case "webhook.deliver":
      return Effect.dieMessage(`${task.kind} is not a top-up intent task`)
  }
}
