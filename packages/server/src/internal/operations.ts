/**
 * The Promise API on the core services: each method is the core operation the HTTP handler
 * of the same route calls (`Handlers.ts`), with the merchant named by the host instead of
 * found from a key pair. Bodies are decoded with the schemas the HTTP API decodes them with,
 * so every rule (validation, idempotency, merchant_reference, state checks) is the same.
 */
import type { ApiResponse, Authentication } from "@tender/core"
import {
  Errors,
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
import * as Arguments from "./arguments.js"
import { asQuery, decode, fromResponse, run } from "./run.js"

/** A runtime holding every core service (`createTender` builds it). */
export type Runtime = ManagedRuntime.ManagedRuntime<any, unknown>

const findMerchant = (id: string) =>
  Effect.gen(function*() {
    const found = yield* (yield* Merchants.Merchants).findMerchant(id)
    if (Option.isNone(found)) return yield* new Errors.ResourceNotFound({ param: "merchant", message: `No merchant ${JSON.stringify(id)}.` })
    return found.value
  })

/**
 * The host acting as the merchant (`scope` decoded already). Idempotency keys are held per
 * caller (4.9): the host's calls for one merchant and environment are one caller, apart from
 * every key pair's.
 */
const principalOf = (scope: Api.MerchantScope) =>
  Effect.map(findMerchant(scope.merchant), (merchant) =>
    ({ merchant, environment: scope.environment, apiKeyId: `host_${scope.environment}_${merchant.id}` }) satisfies Authentication.Principal)

/** A POST's context: `options` decoded (merchant, environment, `idempotencyKey`) for `method`. */
const contextOf = (method: string, options: unknown, requestId: string) =>
  Effect.gen(function*() {
    const write = yield* Arguments.of(method).write(options)
    const principal = yield* principalOf(write)
    return { principal, requestId, idempotencyKey: write.idempotencyKey }
  })

type Context = Effect.Effect.Success<ReturnType<typeof contextOf>>

const scopeOf = (principal: Authentication.Principal) => ({ merchantId: principal.merchant.id, environment: principal.environment })

/** The Promise API of one instance. */
export const make = (runtime: Runtime) => {
  const call = <A>(make: (requestId: string) => Effect.Effect<A, unknown, any>) => run(runtime, make)

  /** The merchant `options` names, decoded for `method`. */
  const principalFor = (method: string, options: unknown) => Effect.flatMap(Arguments.of(method).scope(options), principalOf)

  /** An operation of `method` as the merchant its `options` name, with this call's request id. */
  const asMerchant = <A>(method: string, options: unknown, f: (principal: Authentication.Principal, requestId: string) => Effect.Effect<A, unknown, any>) =>
    call((rid) => Effect.flatMap(principalFor(method, options), (principal) => f(principal, rid)))

  /** An operation of `method` on the resource `id`, as the merchant its `options` name. */
  const onResource = <A>(method: string, id: unknown, options: unknown, f: (principal: Authentication.Principal, id: string, requestId: string) => Effect.Effect<A, unknown, any>) =>
    call((rid) =>
      Effect.gen(function*() {
        const valid = yield* Arguments.of(method).id(id)
        return yield* f(yield* principalFor(method, options), valid, rid)
      })
    )

  /** A create: the body decoded as its HTTP route decodes it, run under the caller's idempotency key. */
  const creating = <P>(method: string, schema: Schema.Schema<P, any>, create: (context: Context, params: P) => Effect.Effect<ApiResponse.ApiResponse, unknown, any>) =>
  <Out>(params: unknown, options: Api.WriteOptions): Promise<Out> =>
    call((id) =>
      Effect.gen(function*() {
        const body = yield* Arguments.of(method).body(params)
        const context = yield* contextOf(method, options, id)
        return yield* create(context, yield* decode(schema, body))
      })
    ).then((r) => fromResponse<Out>(r))

  /** A list: the query decoded as its URL would carry it (`asQuery`), for the merchant the host names. */
  const listing = <Q, A>(method: string, schema: Schema.Schema<Q, any>, list: (principal: Authentication.Principal, query: Q) => Effect.Effect<A, unknown, any>) =>
  (query: Readonly<Record<string, unknown>> | undefined, options: Api.MerchantScope): Promise<A> =>
    asMerchant(method, options, (principal) =>
      Effect.gen(function*() {
        const given = yield* Arguments.of(method).optionalBody(query, "query")
        return yield* list(principal, yield* decode(schema, asQuery(given)))
      }))

  /** A retrieve: the resource `id` of the merchant the host names, as GET answers it. */
  const getting = <A>(method: string, retrieve: (principal: Authentication.Principal, id: string) => Effect.Effect<A, unknown, any>) =>
  (id: string, options: Api.MerchantScope): Promise<A> => onResource(method, id, options, retrieve)

  /** A POST on one resource without a body (confirm, cancel, delete): run under the caller's idempotency key, answered as its route answers. */
  const acting = (method: string, act: (context: Context, id: string) => Effect.Effect<ApiResponse.ApiResponse, unknown, any>) =>
  <Out>(id: string, options: Api.WriteOptions): Promise<Out> =>
    call((rid) =>
      Effect.gen(function*() {
        const valid = yield* Arguments.of(method).id(id)
        return yield* act(yield* contextOf(method, options, rid), valid)
      })
    ).then((r) => fromResponse<Out>(r))

  /** A resource's create, retrieve and list (`name.create`, …), each decoded and answered as its HTTP route. */
  const resource = <P, A, Q, L>(
    name: string,
    createParams: Schema.Schema<P, any>,
    create: (context: Context, params: P) => Effect.Effect<ApiResponse.ApiResponse, unknown, any>,
    retrieve: (principal: Authentication.Principal, id: string) => Effect.Effect<A, unknown, any>,
    listParams: Schema.Schema<Q, any>,
    list: (principal: Authentication.Principal, query: Q) => Effect.Effect<L, unknown, any>
  ) => ({
    create: creating(`${name}.create`, createParams, create),
    get: getting(`${name}.get`, retrieve),
    list: listing(`${name}.list`, listParams, list)
  })

  const refunds: Api.RefundsApi = resource("refunds", Refund.CreateParams, Refunds.create, Refunds.retrieve, Refunds.ListParams, Refunds.list)

  const payments: Api.PaymentsApi = {
    ...resource("payments", PaymentIntent.CreateParams, PaymentIntents.create, PaymentIntents.retrieve, PaymentIntents.ListParams, PaymentIntents.list),
    confirm: acting("payments.confirm", PaymentIntents.confirm),
    cancel: (id, params, options) =>
      call((rid) =>
        Effect.gen(function*() {
          const args = Arguments.of("payments.cancel")
          const valid = yield* args.id(id)
          const body = yield* args.optionalBody(params, "params")
          const context = yield* contextOf("payments.cancel", options, rid)
          return yield* PaymentIntentCancel.cancel(context, valid, yield* decode(PaymentIntentCancel.CancelParams, body))
        })
      ).then((r) => fromResponse(r)),
    refund: (id, params, options) =>
      call((rid) =>
        Effect.gen(function*() {
          const args = Arguments.of("payments.refund")
          const valid = yield* args.id(id)
          const body = yield* args.optionalBody(params, "params")
          const context = yield* contextOf("payments.refund", options, rid)
          return yield* Refunds.create(context, yield* decode(Refund.CreateParams, { ...body, payment_intent: valid }))
        })
      ).then((r) => fromResponse(r))
  }

  const payouts: Api.PayoutsApi = {
    ...resource("payouts", PayoutIntent.CreateParams, PayoutIntents.create, PayoutIntents.retrieve, PayoutIntents.ListParams, PayoutIntents.list),
    cancel: acting("payouts.cancel", PayoutIntents.cancel),
    approve: (id, options) =>
      onResource("payouts.approve", id, options, (principal, id, rid) =>
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
        }))
  }

  const webhookEndpoints: Api.WebhookEndpointsApi = {
    ...resource("webhookEndpoints", WebhookEndpoint.CreateParams, WebhookEndpoint.create, WebhookEndpoint.retrieve, WebhookEndpoint.ListParams, WebhookEndpoint.list),
    delete: acting("webhookEndpoints.delete", WebhookEndpoint.remove),
    rotateSecret: (id, options) =>
      call(() =>
        Effect.gen(function*() {
          const args = Arguments.of("webhookEndpoints.rotateSecret")
          const valid = yield* args.id(id)
          const rotate = yield* args.rotate(options)
          const principal = yield* principalOf(rotate)
          return { secret: yield* WebhookEndpoint.rotateSecret(scopeOf(principal), valid, rotate.graceMillis) }
        })
      )
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
          const merchant = yield* merchantOf(yield* Arguments.of("merchants.create").body(params) as Effect.Effect<Api.MerchantParams, Errors.ValidationFailed>)
          const store = yield* Merchants.Merchants
          if (Option.isSome(yield* store.findMerchant(merchant.id))) {
            return yield* Errors.ValidationFailed.at("id", `A merchant ${JSON.stringify(merchant.id)} exists already.`)
          }
          yield* store.putMerchant(merchant)
          return merchantResource(merchant)
        })
      ),
    get: (id) => call(() => Effect.map(Effect.flatMap(Arguments.of("merchants.get").id(id), findMerchant), merchantResource)),
    update: (id, params) =>
      call(() =>
        Effect.gen(function*() {
          const args = Arguments.of("merchants.update")
          const valid = yield* args.id(id)
          const body = yield* args.body(params)
          yield* findMerchant(valid)
          const merchant = yield* merchantOf({ ...body, id: valid } as Api.MerchantParams)
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
          const args = Arguments.of("keys.issue")
          const found = yield* findMerchant(yield* args.name(merchant, "merchant"))
          const env = yield* args.environment(environment)
          return issued(yield* Merchants.issueKeyPair(found.id, env))
        })
      ),
    rotate: (publicKey) =>
      call(() =>
        Effect.gen(function*() {
          const old = yield* findKey(yield* Arguments.of("keys.rotate").publicKey(publicKey))
          if (old.revokedAt !== null) return yield* Errors.ValidationFailed.at("public_key", "This API key is revoked: issue a new pair instead.")
          return issued(yield* Merchants.rotateKeyPair(old))
        })
      ),
    revoke: (publicKey) =>
      call(() =>
        Effect.gen(function*() {
          const key = yield* findKey(yield* Arguments.of("keys.revoke").publicKey(publicKey))
          yield* (yield* Merchants.Merchants).revokeApiKey(key.id, yield* Clock.currentTimeMillis)
        })
      )
  }

  /** Route health, the host's word (spec 2.3): `name` and `available` decoded first, so `"no"` is refused rather than taken for true. */
  const availability = (method: string, param: string, set: (h: RouteHealth.RouteHealth["Type"], name: string, available: boolean) => Effect.Effect<void, unknown>) =>
  (name: string, available: boolean): Promise<void> =>
    call(() =>
      Effect.gen(function*() {
        const args = Arguments.of(method)
        const valid = yield* args.name(name, param)
        const on = yield* args.boolean(available, "available")
        return yield* set(yield* RouteHealth.RouteHealth, valid, on)
      })
    )

  const routes: Api.RoutesApi = {
    setAvailable: availability("routes.setAvailable", "routeId", (h, route, available) => h.setRouteAvailable(route, available)),
    setProviderAvailable: availability("routes.setProviderAvailable", "provider", (h, provider, available) => h.setProviderAvailable(provider, available))
  }

  return { payments, refunds, payouts, webhookEndpoints, merchants, keys, routes }
}
