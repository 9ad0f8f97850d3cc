/**
 * POST /topup_intents (4.7): the source resolved to an installed provider's offer, the quote
 * (`Money.quote` over the host's `FxRates` and `TopupFees`), the provider started, and the
 * top-up written with its events and its poll and expiry tasks in one commit.
 */
import { BigDecimal, Clock, Duration, Effect, Option } from "effect"
import * as Event from "../../events/Event.js"
import type { PaymentProvider, ProviderTopups } from "../../providers/Provider.js"
import { ProviderRegistry } from "../../providers/Provider.js"
import { adapterForAccount } from "../../providers/ProviderAccounts.js"
import * as ApiResponse from "../../requests/ApiResponse.js"
import type { Principal } from "../../requests/Authentication.js"
import { fingerprint } from "../../requests/Canonical.js"
import * as Operation from "../../requests/Operation.js"
import { PaymentConfigurationUnavailable, RoutingUnavailable, ValidationFailed } from "../../resources/Errors.js"
import { IdGenerator, prefixes } from "../../resources/Ids.js"
import * as Resources from "../../resources/internal/resources.js"
import { formatTimestamp } from "../../resources/Schemas.js"
import { boundedCall } from "../../routing/Routing.js"
import { scopeOf, Storage, Write } from "../../storage/Storage.js"
import * as Table from "../../storage/Table.js"
import * as Task from "../../storage/Task.js"
import { FxRates, TopupFees } from "../Fx.js"
import * as Money from "../Money.js"
import type { CreateParams, NextAction } from "../TopupIntent.js"
import { statusEvents, table, TopupIntentRecord as Record, toResource } from "../TopupIntent.js"
import { paymentWindow } from "./topups.js"

/** The longest a source amount may be: what PostgreSQL `numeric(38)` and a Decimal128 hold exactly. */
const maxSourceDigits = 38

/**
 * The adapters a merchant's top-up may go to, best first (D13): those of its routes in
 * `environment` by priority (the merchant's account's where a route names one), then every
 * installed provider's own account, as before accounts.
 */
const topupTargets = (principal: Principal) =>
  Effect.gen(function*() {
    const registry = yield* ProviderRegistry
    const out: Array<{ readonly provider: PaymentProvider; readonly providerAccount: string | null }> = []
    const routes = principal.merchant.routes.filter((r) => r.environments.includes(principal.environment)).sort((a, b) => a.priority - b.priority)
    for (const route of routes) {
      const account = route.providerAccount ?? null
      const provider = account === null ? registry.get(route.provider) : yield* adapterForAccount(principal.merchant, route.provider, account)
      if (provider !== undefined) out.push({ provider, providerAccount: account })
    }
    return [...out, ...registry.all.map((provider) => ({ provider, providerAccount: null }))]
  })

/** The provider, account and offer that serve a source, or why none does. */
const resolveSource = (principal: Principal, source: CreateParams["source"]) =>
  Effect.gen(function*() {
    const { environment } = principal
    const registry = yield* ProviderRegistry
    if (source.provider !== undefined && registry.get(source.provider)?.topups === undefined) {
      return yield* ValidationFailed.at("source.provider", `No installed provider ${JSON.stringify(source.provider)} takes top-ups.`)
    }
    for (const { provider, providerAccount } of yield* topupTargets(principal)) {
      if (source.provider !== undefined && provider.code !== source.provider) continue
      const topups = provider.topups
      if (topups === undefined) continue
      const offer = topups.sources.find((o) =>
        o.type === source.type && o.environments.includes(environment) &&
        (source.currency === undefined || o.currency === source.currency)
      )
      if (offer !== undefined) return { provider, providerAccount, topups, offer }
    }
    return yield* new PaymentConfigurationUnavailable({
      param: source.currency === undefined ? "source.type" : "source.currency",
      message: `No installed provider takes ${source.type} top-ups${
        source.currency === undefined ? "" : ` in ${source.currency}`
      } in the ${environment} environment.`
    })
  })

/** The canonical create (D5): defaults resolved, so equivalent requests have one fingerprint. */
const canonical = (p: CreateParams, provider: string | undefined, currency: string | undefined) => ({
  destination_amount: p.destination_amount,
  destination_currency: p.destination_currency,
  source: { type: p.source.type, provider, currency },
  country: p.country
})

/** The source an offer resolved to (`resolveSource`). */
type Resolved = Effect.Effect.Success<ReturnType<typeof resolveSource>>

/**
 * The quote (`Money.quote`) of `params` from the offer's currency: the host's rate and fee, and
 * the 4xx when the currencies cannot be converted or the source amount is too long to store.
 */
const quoteOf = (principal: Principal, params: CreateParams, { offer, provider }: Resolved) =>
  Effect.gen(function*() {
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
    return { fx: fx.value, fee, quoted }
  })

type Quote = Effect.Effect.Success<ReturnType<typeof quoteOf>>

/** The provider asked to start the top-up (bounded as any provider call), its payment window from `now`. */
const start = (id: string, principal: Principal, params: CreateParams, { offer, provider, topups }: Resolved, quoted: Money.Quote, now: number) =>
  boundedCall(
    provider.code,
    topups.start({
      topupIntentId: id,
      environment: principal.environment,
      sourceType: offer.type,
      sourceCurrency: offer.currency,
      network: offer.network,
      sourceAmount: quoted.sourceAmount.toString(),
      destinationAmount: params.destination_amount,
      expiresAt: now + Duration.toMillis(paymentWindow)
    }),
    "startTopup"
  ).pipe(Effect.mapError((e) => new RoutingUnavailable({ message: `The top-up provider is unavailable (${e.reason}); retry later.` })))

type Started = Effect.Effect.Success<ReturnType<ProviderTopups["start"]>>

/** The top-up as written: quoted, started, in `requires_payment`. */
const recordOf = (
  id: string,
  principal: Principal,
  params: CreateParams,
  { offer, provider, providerAccount }: Resolved,
  { fee, fx, quoted }: Quote,
  started: Started,
  fields: ReturnType<typeof canonical>,
  now: number
) => {
  const expiresAt = Math.min(now + Duration.toMillis(paymentWindow), started.expiresAt ?? Number.POSITIVE_INFINITY)
  return Table.construct(Record, {
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
    providerAccount,
    sourceCurrency: offer.currency,
    sourceNetwork: offer.network,
    sourceAmount: quoted.sourceAmount.toString(),
    convertedAmount: quoted.convertedAmount.toString(),
    feeAmount: quoted.feeAmount.toString(),
    spreadAmount: quoted.spreadAmount.toString(),
    fxRate: Money.formatDecimal(fx.rate),
    fxSpread: Money.formatDecimal(fx.spread),
    feeRate: Money.formatDecimal(fee.rate),
    feeFixed: fee.fixed.toString(),
    nextAction: nextActionOf(started.instructions, offer, quoted.sourceAmount, expiresAt),
    receipt: offer.type === "manual_receipt" ? { status: "required" } : null,
    providerTopupId: started.providerTopupId,
    expiresAt,
    fingerprint: fingerprint(fields),
    ...Table.firstWrite(now)
  })
}

/** The commit of a new top-up: its row, its events, its expiry task and, but for a manual receipt, its poll task. */
const writesOf = (record: Record, principal: Principal, now: number) =>
  Effect.gen(function*() {
    const { id } = record
    const events = yield* Event.writes(record, "topup_intent", toResource(record), statusEvents(record.status))
    const scope = scopeOf(principal)
    const expire = yield* Task.make({ ...scope, kind: "topup_intent.expire", resourceId: id, dueAt: record.expiresAt, now })
    // A receipt drives a manual top-up; the others are asked for at once and then every `pollEvery`.
    const poll = record.sourceType === "manual_receipt"
      ? []
      : [Write.insert(Task.table, yield* Task.make({ ...scope, kind: "topup_intent.poll", resourceId: id, dueAt: now, now }))]
    return [Write.insert(table, record), ...events, Write.insert(Task.table, expire), ...poll]
  })

/** POST /topup_intents (4.7), public as `TopupIntents.create`. */
export const create = (context: Operation.RequestContext, params: CreateParams) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const id = yield* (yield* IdGenerator).make(prefixes.topupIntent)
    const { principal } = context
    // Resolved before the key is claimed, so the fingerprint names the provider and currency actually used.
    const resolved = yield* Effect.either(resolveSource(principal, params.source))
    const provider = resolved._tag === "Right" ? resolved.right.provider.code : params.source.provider
    const currency = resolved._tag === "Right" ? resolved.right.offer.currency : params.source.currency
    const fields = canonical(params, provider, currency)
    return yield* Operation.run({
      context,
      route: "POST /topup_intents",
      canonical: { merchant_reference: params.merchant_reference, ...fields },
      resource: "top-up intent",
      reference: Resources.reference(storage, { table, noun: "top-up intent" }, context, toResource, {
        resourceType: "topup_intent",
        reference: params.merchant_reference,
        fingerprint: fingerprint(fields),
        resourceId: id
      }),
      decide: Effect.gen(function*() {
        const source = yield* resolved
        const quote = yield* quoteOf(principal, params, source)
        const now = yield* Clock.currentTimeMillis
        const started = yield* start(id, principal, params, source, quote.quoted, now)
        const record = recordOf(id, principal, params, source, quote, started, fields, now)
        const writes = yield* writesOf(record, principal, now)
        return { response: ApiResponse.json(201, toResource(record), context.requestId), writes }
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
