/**
 * Payout intents (2.7, 3.3, 4.9 merchant_reference rule 5, 4.10, D8): create, get, list,
 * cancel for merchants; approval for the host's back office; the durable task that sends an
 * approved payout to its provider. Every change is checked against `PayoutIntent.canTransition`
 * and written with its D7 event in one commit.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Schema } from "effect"
import * as Event from "../events/Event.js"
import type { Merchant } from "../merchants/Merchants.js"
import { failure, noProvider } from "../providers/internal/providerFailures.js"
import type { PaymentProvider } from "../providers/Provider.js"
import { ProviderRegistry } from "../providers/Provider.js"
import { adapterForAccount, adapterOf } from "../providers/ProviderAccounts.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import * as Operation from "../requests/Operation.js"
import { BalanceInsufficient, PaymentConfigurationUnavailable, PayoutNotCancelable, ValidationFailed } from "../resources/Errors.js"
import { IdGenerator } from "../resources/Ids.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import { Currency, type Environment } from "../resources/Schemas.js"
import { boundedCall } from "../routing/Routing.js"
import type { Scope } from "../storage/Storage.js"
import { scopeOf, Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import { retryWhileStale } from "../storage/StorageError.js"
import * as Table from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import * as Balances from "./Balances.js"
import type { CreateParams, PayoutIntentRecord, Status } from "./PayoutIntent.js"
import { canTransition, PayoutIntentRecord as Record, Status as StatusSchema, statusEvent, table, toResource } from "./PayoutIntent.js"

const kind: Resources.Kind<PayoutIntentRecord> = { table, noun: "payout intent" }

/** `create` under `merchant_reference`: a repeat with the same fields answers the original payout intent (4.9). */
const underReference = Resources.createUnderReference(kind, toResource, { route: "POST /payout_intents", resourceType: "payout_intent" })

/** `bank`'s provider-local code when `provider` pays out to it in `environment`. */
const paysOutTo = (provider: PaymentProvider | undefined, environment: Environment, bank: string) =>
  provider?.sendPayout === undefined || !provider.methods.some((m) => m.environments.includes(environment))
    ? undefined
    : provider.methods.flatMap((m) => m.banks).find((b) => b.code === bank)?.providerCode

/** An installed provider's own account that pays out in `environment` to `bank` (a payout no route of its merchant takes, or one made before D13). */
const deploymentRoute = (environment: Environment, bank: string) =>
  Effect.map(ProviderRegistry, (registry) => {
    for (const provider of registry.all) {
      const providerBank = paysOutTo(provider, environment, bank)
      if (providerBank !== undefined) return { provider, providerAccount: null, providerBank }
    }
    return undefined
  })

/**
 * Who pays out to `bank` for `merchant` (D13): the first of its routes in `environment`, by
 * priority, whose adapter (the merchant's account's when the route names one, else the
 * deployment's) pays out to that bank; else an installed provider's own account, as before
 * accounts. Fixed on the payout at create, for its whole life.
 */
const payoutRoute = (merchant: Merchant, environment: Environment, bank: string) =>
  Effect.gen(function*() {
    const registry = yield* ProviderRegistry
    const routes = merchant.routes.filter((r) => r.environments.includes(environment)).sort((a, b) => a.priority - b.priority)
    for (const route of routes) {
      const account = route.providerAccount ?? null
      const provider = account === null ? registry.get(route.provider) : yield* adapterForAccount(merchant, route.provider, account)
      const providerBank = paysOutTo(provider, environment, bank)
      if (provider !== undefined && providerBank !== undefined) return { provider, providerAccount: account, providerBank }
    }
    return yield* deploymentRoute(environment, bank)
  })

/** The route a payout was fixed to at create (D13), or for one made before, the deployment's. */
const routeOf = (payout: PayoutIntentRecord) =>
  Effect.gen(function*() {
    if (payout.providerCode === null) return yield* deploymentRoute(payout.environment, payout.destination.bank)
    const provider = yield* adapterOf(payout)
    const providerBank = paysOutTo(provider, payout.environment, payout.destination.bank)
    return provider === undefined || providerBank === undefined ? undefined : { provider, providerAccount: payout.providerAccount, providerBank }
  })

/** Every bank code the installed providers know (the discovery catalogue). */
const knownBanks = Effect.map(ProviderRegistry, (registry) => new Set(registry.all.flatMap((p) => p.methods.flatMap((m) => m.banks.map((b) => b.code)))))

/** The writes of a change to `to`: the versioned update and its event (D7). A transition D8 does not allow is a defect. */
const change = (before: PayoutIntentRecord, patch: Partial<PayoutIntentRecord> & { readonly status: Status }, now: number) =>
  Effect.gen(function*() {
    if (!canTransition(before.status, patch.status)) {
      return yield* Effect.die(new Error(`D8 no transition from ${before.status} to ${patch.status}`))
    }
    const record: PayoutIntentRecord = { ...before, ...patch, updatedAt: Math.max(now, before.updatedAt), version: before.version + 1 }
    const events = yield* Event.writes(record, "payout_intent", toResource(record), [statusEvent(record.status)])
    return { record, writes: [Write.update(table, record, before.version), ...events] as ReadonlyArray<Write> }
  })

/**
 * POST /payout_intents (D8): 201 with the payout in `requires_approval`. The same
 * `merchant_reference` again with the same fields answers the original (200, nothing new);
 * with any field changed, 409 `idempotency_conflict` (4.9 merchant_reference rule 5).
 *
 * @since 0.1.0
 */
export const create = (context: Operation.RequestContext, params: CreateParams) =>
  underReference(context, params, (id, fp) =>
    Effect.gen(function*() {
      const { principal } = context
      if (!(yield* knownBanks).has(params.destination.bank)) {
        return yield* ValidationFailed.at("destination.bank", `Unknown bank ${JSON.stringify(params.destination.bank)}; use a code from discovery.`)
      }
      const route = yield* payoutRoute(principal.merchant, principal.environment, params.destination.bank)
      if (route === undefined) {
        return yield* new PaymentConfigurationUnavailable({
          param: "destination.bank",
          message: `No installed provider pays out to ${params.destination.bank} in the ${principal.environment} environment.`
        })
      }
      const now = yield* Clock.currentTimeMillis
      // D12: a payout draws from the available balance. The commit checks it again atomically
      // (Ledger): a payout that lost the balance to another decides again here.
      if ((yield* Balances.available(scopeOf(principal), params.currency, now)) < BigInt(params.amount)) {
        return yield* new BalanceInsufficient({
          param: "amount",
          message: `The available ${params.currency} balance does not cover this payout.`
        })
      }
      const record = Table.construct(Record, {
        id,
        ...scopeOf(principal),
        status: "requires_approval",
        amount: params.amount,
        currency: params.currency,
        merchantReference: params.merchant_reference,
        destination: params.destination,
        // D13: the account that pays it out, fixed now for its whole life.
        providerCode: route.provider.code,
        providerAccount: route.providerAccount,
        description: params.description ?? null,
        metadata: params.metadata ?? null,
        fingerprint: fp,
        ...Table.firstWrite(now)
      })
      const events = yield* Event.writes(record, "payout_intent", toResource(record), ["payout_intent.created"])
      return { response: ApiResponse.json(201, toResource(record), context.requestId), writes: [Write.insert(table, record), ...events] }
    }))

const load = (principal: Principal, id: string) => Resources.load(kind, principal, id)

/** GET /payout_intents query: the filters of 4.3 that apply to payouts. @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({
  currency: Schema.optional(Currency),
  ...Pagination.sharedFilters
})
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

const reads = Resources.kindReads(
  kind,
  StatusSchema.literals,
  (params: ListParams, status) => Effect.succeed({ currency: params.currency, merchantReference: params.merchant_reference, status }),
  toResource
)

/** GET /payout_intents/{id} (D3): another merchant's or environment's is the same 404 (4.2). @since 0.1.0 */
export const retrieve = reads.retrieve
/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = reads.retrieveJson
/** GET /payout_intents (D3, D6): keyset pages, newest first. @since 0.1.0 */
export const list = reads.list
/** `list`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const listJson = reads.listJson

/**
 * POST /payout_intents/{id}/cancel (3.3, 4.10, D3, D8): only while `requires_approval`; any
 * other status is 409 `payout_not_cancelable`. 200 with the payout, `canceled`. Retried with
 * the same `Idempotency-Key` it replays its 200.
 *
 * @since 0.1.0
 */
export const cancel = (context: Operation.RequestContext, id: string) =>
  Operation.run({
    context,
    route: "POST /payout_intents/{id}/cancel",
    canonical: { id },
    resource: "payout intent",
    decide: Effect.gen(function*() {
      const payout = yield* load(context.principal, id)
      if (payout.status !== "requires_approval") {
        return yield* new PayoutNotCancelable({
          message: `This payout intent is ${payout.status}: only a payout awaiting approval can be canceled.`
        })
      }
      const { record, writes } = yield* change(payout, { status: "canceled" }, yield* Clock.currentTimeMillis)
      return { response: ApiResponse.json(200, toResource(record), context.requestId), writes }
    })
  })

/**
 * Approve a payout (D8): a back-office operation of the host, not a merchant route. The payout
 * becomes `processing` (event `payout_intent.processing`) and a durable task sends it to its
 * provider. Only a payout awaiting approval can be approved: otherwise nothing changes and the
 * answer says why.
 *
 * @since 0.1.0
 */
export const approve = (scope: Scope, id: string): Effect.Effect<
  "approved" | "not_found" | "not_awaiting_approval",
  StorageError,
  Storage | IdGenerator
> =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const found = yield* storage.get(table, scope, id)
    if (Option.isNone(found)) return "not_found" as const
    if (found.value.status !== "requires_approval") return "not_awaiting_approval" as const
    const now = yield* Clock.currentTimeMillis
    const { writes } = yield* change(found.value, { status: "processing" }, now)
    const task = yield* Task.make({ ...scope, kind: "payout_intent.send", resourceId: id, dueAt: now, now })
    yield* storage.commit([...writes, Write.insert(Task.table, task)])
    return "approved" as const
  }).pipe(retryWhileStale)

/**
 * Run the send task of an approved payout: the provider's outcome moves it to `succeeded` or
 * `failed` through `providerOutcomeWrites`, the door its notifications take too; an
 * unavailable provider is asked again with back-off.
 *
 * @since 0.1.0
 */
export const send = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const found = yield* storage.get(table, { merchantId: task.merchantId, environment: task.environment }, task.resourceId)
    if (Option.isNone(found) || found.value.status !== "processing") return Task.done()
    const payout = found.value
    const route = yield* routeOf(payout)
    const now0 = yield* Clock.currentTimeMillis
    if (route === undefined || route.provider.sendPayout === undefined) {
      const { writes } = yield* change(payout, noProvider("payout_unavailable", "No installed provider pays out to this bank."), now0)
      return Task.done(writes)
    }
    const answer = yield* boundedCall(
      route.provider.code,
      route.provider.sendPayout({
        payoutIntentId: payout.id,
        environment: payout.environment,
        amount: payout.amount,
        currency: payout.currency,
        providerBank: route.providerBank,
        accountNumber: payout.destination.account_number,
        accountName: payout.destination.account_name
      }),
      "sendPayout"
    ).pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    const result = answer.right
    switch (result._tag) {
      case "Succeeded":
      case "Failed":
      case "Canceled": {
        // The same door a provider's notification of the payout takes.
        const writes = yield* providerOutcomeWrites(
          payout,
          route.provider.code,
          result._tag === "Succeeded"
            ? { status: "succeeded" }
            : result._tag === "Failed"
            ? { status: "failed", failureCode: result.failureCode, failureMessage: result.failureMessage }
            : { status: "failed" }
        )
        return Task.done(writes === "other_provider" ? [] : writes)
      }
      case "Action":
      case "Processing":
      case "Pending":
        // Still at the provider: ask again later.
        return Task.retry(task, now, null)
    }
  })

/**
 * The writes a provider's report of a payout makes, whoever reports it (the send task, or a D11
 * notification): a `processing` payout
 * sent through `provider` becomes `succeeded` or `failed`, with its event. None for a payout in
 * any other status (not yet approved, or already final: a terminal payout never moves) or one
 * another provider serves.
 *
 * @since 0.1.0
 */
export const providerOutcomeWrites = (
  payout: PayoutIntentRecord,
  provider: string,
  outcome: { readonly status: "succeeded" | "failed"; readonly failureCode?: string | undefined; readonly failureMessage?: string | undefined }
): Effect.Effect<ReadonlyArray<Write> | "other_provider", StorageError, ProviderRegistry | IdGenerator | Storage> =>
  Effect.gen(function*() {
    const route = payout.providerCode === null ? yield* deploymentRoute(payout.environment, payout.destination.bank) : undefined
    if ((payout.providerCode ?? route?.provider.code) !== provider) return "other_provider" as const
    if (payout.status !== "processing") return []
    const now = yield* Clock.currentTimeMillis
    const payoutFailed = failure("payout_failed")
    const patch = outcome.status === "succeeded"
      ? { status: "succeeded" as const, providerCode: provider }
      : {
        status: "failed" as const,
        providerCode: provider,
        failureCode: outcome.failureCode ?? payoutFailed.failureCode,
        failureMessage: outcome.failureMessage ?? payoutFailed.failureMessage
      }
    return (yield* change(payout, patch, now)).writes
  })
