/**
 * The Promise API on the core services: each method is the core operation the HTTP handler
 * of the same route calls (`Handlers.ts`), with the merchant named by the host instead of
 * found from a key pair. Bodies are decoded with the schemas the HTTP API decodes them with,
 * so every rule (validation, idempotency, merchant_reference, state checks) is the same.
 */
import type { ApiResponse, Authentication } from "@tender/core"
import {
  Errors,
  Idempotency,
  Merchants,
  PaymentIntent,
  PaymentIntentCancel,
  PaymentIntents,
  PayoutIntent,
  PayoutIntents,
  Refund,
  Refunds,
  RouteHealth,
  Seed,
  WebhookEndpoint
} from "@tender/core"
import type { ManagedRuntime } from "effect"
import { Clock, Effect, Option, type Schema } from "effect"
import type * as Api from "../Api.js"
import { merchantResource } from "../Api.js"
import { TenderError } from "../TenderError.js"
import { asQuery, decode, fromResponse, run } from "./run.js"

/** A runtime holding every core service (`createTender` builds it). */
export type Runtime = ManagedRuntime.ManagedRuntime<any, unknown>

const environmentOf = (environment: unknown): Effect.Effect<Api.Environment, Errors.ValidationFailed> =>
  environment === "test" || environment === "live"
    ? Effect.succeed(environment)
    : Effect.fail(Errors.ValidationFailed.at("environment", "environment must be test or live"))

const findMerchant = (id: unknown) =>
  Effect.gen(function*() {
    if (typeof id !== "string" || id === "") return yield* Errors.ValidationFailed.at("merchant", "merchant must be a merchant id")
    const found = yield* (yield* Merchants.Merchants).findMerchant(id)
    if (Option.isNone(found)) return yield* new Errors.ResourceNotFound({ param: "merchant", message: `No merchant ${JSON.stringify(id)}.` })
    return found.value
  })

/**
 * The host acting as the merchant. Idempotency keys are held per caller (4.9): the host's
 * calls for one merchant and environment are one caller, apart from every key pair's.
 */
const principalOf = (scope: Api.MerchantScope) =>
  Effect.gen(function*() {
    const environment = yield* environmentOf(scope.environment)
    const merchant = yield* findMerchant(scope.merchant)
    return { merchant, environment, apiKeyId: `host_${environment}_${merchant.id}` } satisfies Authentication.Principal
  })

const contextOf = (options: Api.WriteOptions, requestId: string) =>
  Effect.gen(function*() {
    const principal = yield* principalOf(options)
    const idempotencyKey = yield* Idempotency.validateKey(options.idempotencyKey)
    return { principal, requestId, idempotencyKey }
  })

type Context = Effect.Effect.Success<ReturnType<typeof contextOf>>

const scopeOf = (principal: Authentication.Principal) => ({ merchantId: principal.merchant.id, environment: principal.environment })

/** The Promise API of one instance. */
export const make = (runtime: Runtime) => {
  const call = <A>(make: (requestId: string) => Effect.Effect<A, unknown, any>) => run(runtime, make)

  /** An operation as the merchant the host names (`principalOf`), with this call's request id. */
  const asMerchant = <A>(options: Api.MerchantScope, f: (principal: Authentication.Principal, requestId: string) => Effect.Effect<A, unknown, any>) =>
    call((rid) => Effect.flatMap(principalOf(options), (principal) => f(principal, rid)))

  /** A create: the body decoded as its HTTP route decodes it, run under the caller's idempotency key. */
  const creating = <P>(schema: Schema.Schema<P, any>, create: (context: Context, params: P) => Effect.Effect<ApiResponse.ApiResponse, unknown, any>) =>
  <Out>(params: unknown, options: Api.WriteOptions): Promise<Out> =>
    call((id) =>
      Effect.gen(function*() {
        const context = yield* contextOf(options, id)
        return yield* create(context, yield* decode(schema, params))
      })
    ).then((r) => fromResponse<Out>(r))

  /** A list: the query decoded as its URL would carry it (`asQuery`), for the merchant the host names. */
  const listing = <Q, A>(schema: Schema.Schema<Q, any>, list: (principal: Authentication.Principal, query: Q) => Effect.Effect<A, unknown, any>) =>
  (query: Readonly<Record<string, unknown>> | undefined, options: Api.MerchantScope): Promise<A> =>
    call(() =>
      Effect.gen(function*() {
        const principal = yield* principalOf(options)
        return yield* list(principal, yield* decode(schema, asQuery(query)))
      })
    )

  /** A retrieve: the resource `id` of the merchant the host names, as GET answers it. */
  const getting = <A>(retrieve: (principal: Authentication.Principal, id: string) => Effect.Effect<A, unknown, any>) =>
  (id: string, options: Api.MerchantScope): Promise<A> => asMerchant(options, (p) => retrieve(p, id))

  /** A POST on one resource without a body (confirm, cancel, delete): run under the caller's idempotency key, answered as its route answers. */
  const acting = (act: (context: Context, id: string) => Effect.Effect<ApiResponse.ApiResponse, unknown, any>) =>
  <Out>(id: string, options: Api.WriteOptions): Promise<Out> =>
    call((rid) => Effect.flatMap(contextOf(options, rid), (c) => act(c, id))).then((r) => fromResponse<Out>(r))

  /** A resource's create, retrieve and list, each decoded and answered as its HTTP route. */
  const resource = <P, A, Q, L>(
    createParams: Schema.Schema<P, any>,
    create: (context: Context, params: P) => Effect.Effect<ApiResponse.ApiResponse, unknown, any>,
    retrieve: (principal: Authentication.Principal, id: string) => Effect.Effect<A, unknown, any>,
    listParams: Schema.Schema<Q, any>,
    list: (principal: Authentication.Principal, query: Q) => Effect.Effect<L, unknown, any>
  ) => ({ create: creating(createParams, create), get: getting(retrieve), list: listing(listParams, list) })

  const refunds: Api.RefundsApi = resource(Refund.CreateParams, Refunds.create, Refunds.retrieve, Refunds.ListParams, Refunds.list)

  const payments: Api.PaymentsApi = {
    ...resource(PaymentIntent.CreateParams, PaymentIntents.create, PaymentIntents.retrieve, PaymentIntents.ListParams, PaymentIntents.list),
    confirm: acting(PaymentIntents.confirm),
    cancel: (id, params, options) =>
      call((rid) =>
        Effect.gen(function*() {
          const context = yield* contextOf(options, rid)
          return yield* PaymentIntentCancel.cancel(context, id, yield* decode(PaymentIntentCancel.CancelParams, params ?? {}))
        })
      ).then((r) => fromResponse(r)),
    refund: (id, params, options) => refunds.create({ ...params, payment_intent: id }, options)
  }

  const payouts: Api.PayoutsApi = {
    ...resource(PayoutIntent.CreateParams, PayoutIntents.create, PayoutIntents.retrieve, PayoutIntents.ListParams, PayoutIntents.list),
    cancel: acting(PayoutIntents.cancel),
    approve: (id, options) =>
      asMerchant(options, (principal, rid) =>
        Effect.gen(function*() {
          const outcome = yield* PayoutIntents.approve(scopeOf(principal), id)
          if (outcome === "not_found") return yield* new Errors.ResourceNotFound({ param: "id", message: `No payout intent ${JSON.stringify(id)}.` })
          const payout = yield* PayoutIntents.retrieve(principal, id)
          if (outcome === "not_awaiting_approval") {
            // D8 names no wire code for this (approval is not a merchant route): the host's own.
            return yield* Effect.fail(
              new TenderError({
                code: "payout_not_approvable",
                status: 409,
                message: `This payout intent is ${payout.status}: only a payout awaiting approval can be approved.`,
                requestId: rid
              })
            )
          }
          return payout
        })
      )
  }

  const webhookEndpoints: Api.WebhookEndpointsApi = {
    ...resource(WebhookEndpoint.CreateParams, WebhookEndpoint.create, WebhookEndpoint.retrieve, WebhookEndpoint.ListParams, WebhookEndpoint.list),
    delete: acting(WebhookEndpoint.remove),
    rotateSecret: (id, options) =>
      asMerchant(options, (principal) => Effect.map(WebhookEndpoint.rotateSecret(scopeOf(principal), id, options.graceMillis), (secret) => ({ secret })))
  }

  /** A merchant from the seed format's fields, checked as a seed's are (docs/seed-format.md). */
  const merchantOf = (params: Api.MerchantParams) =>
    Effect.gen(function*() {
      const decoded = yield* decode(Seed.SeedMerchant, { ...params, api_keys: [] })
      const seed = yield* Seed.decode({ merchants: [decoded] }).pipe(Effect.mapError((e) => Errors.ValidationFailed.at("routes", e.message)))
      return Seed.toDirectory(seed, 0).merchants[0]!
    })

  const merchants: Api.MerchantsApi = {
    create: (params) =>
      call(() =>
        Effect.gen(function*() {
          const merchant = yield* merchantOf(params)
          const store = yield* Merchants.Merchants
          if (Option.isSome(yield* store.findMerchant(merchant.id))) {
            return yield* Errors.ValidationFailed.at("id", `A merchant ${JSON.stringify(merchant.id)} exists already.`)
          }
          yield* store.putMerchant(merchant)
          return merchantResource(merchant)
        })
      ),
    get: (id) => call(() => Effect.map(findMerchant(id), merchantResource)),
    update: (id, params) =>
      call(() =>
        Effect.gen(function*() {
          yield* findMerchant(id)
          const merchant = yield* merchantOf({ ...params, id })
          yield* (yield* Merchants.Merchants).putMerchant(merchant)
          return merchantResource(merchant)
        })
      )
  }

  const issued = (k: Merchants.IssuedKeyPair): Api.IssuedKeyPair => ({
    id: k.apiKey.id,
    merchant: k.apiKey.merchantId,
    environment: k.apiKey.environment,
    public_key: k.publicKey,
    secret_key: k.secretKey
  })
  const findKey = (publicKey: string) =>
    Effect.flatMap(Merchants.Merchants, (store) => store.findKeyByPublicKey(publicKey)).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new Errors.ResourceNotFound({ param: "public_key", message: `No API key ${JSON.stringify(publicKey)}.` })),
        onSome: Effect.succeed
      }))
    )

  const keys: Api.KeysApi = {
    issue: (merchant, environment) =>
      call(() =>
        Effect.gen(function*() {
          const env = yield* environmentOf(environment)
          const found = yield* findMerchant(merchant)
          return issued(yield* Merchants.issueKeyPair(found.id, env))
        })
      ),
    rotate: (publicKey) =>
      call(() =>
        Effect.gen(function*() {
          const old = yield* findKey(publicKey)
          if (old.revokedAt !== null) return yield* Errors.ValidationFailed.at("public_key", "This API key is revoked: issue a new pair instead.")
          return issued(yield* Merchants.rotateKeyPair(old))
        })
      ),
    revoke: (publicKey) =>
      call(() =>
        Effect.gen(function*() {
          const key = yield* findKey(publicKey)
          yield* (yield* Merchants.Merchants).revokeApiKey(key.id, yield* Clock.currentTimeMillis)
        })
      )
  }

  const routes: Api.RoutesApi = {
    setAvailable: (routeId, available) => call(() => Effect.flatMap(RouteHealth.RouteHealth, (h) => h.setRouteAvailable(routeId, available))),
    setProviderAvailable: (provider, available) =>
      call(() => Effect.flatMap(RouteHealth.RouteHealth, (h) => h.setProviderAvailable(provider, available)))
  }

  return { payments, refunds, payouts, webhookEndpoints, merchants, keys, routes }
}
