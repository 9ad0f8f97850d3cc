/**
 * The Promise API's host-only surfaces, which have no HTTP endpoint: merchants and their key
 * pairs (spec 5, D2), and route health (spec 2.3). Named in the style of the merchant methods
 * (`retrieve`, not `get`).
 */
import { Balances, Errors, Merchants, ProviderAccounts, RouteHealth, Seed, type StorageError } from "@tender/core"
import { Clock, Effect, Option } from "effect"
import type { ManagedRuntime } from "effect"
import type * as Api from "../PromiseTypes.js"
import { merchantResource } from "../PromiseTypes.js"
import * as Arguments from "./arguments.js"
import type { Services } from "./rows.js"
import { decode, run } from "./run.js"

/** The merchant `id`, or 404 naming `merchant`. */
export const findMerchant = (id: string): Effect.Effect<Merchants.Merchant, Errors.ResourceNotFound | StorageError.StorageError, Merchants.Merchants> =>
  Effect.gen(function*() {
    const found = yield* (yield* Merchants.Merchants).findMerchant(id)
    if (Option.isNone(found)) return yield* new Errors.ResourceNotFound({ param: "merchant", message: `No merchant ${JSON.stringify(id)}.` })
    return found.value
  })

/**
 * A merchant from the seed format's fields, checked as a seed's are (docs/seed-format.md), its
 * provider accounts' credentials checked by their adapters and sealed (D13): a bad one is 400
 * naming the field, never echoing it.
 */
const merchantOf = (params: Api.MerchantParams) =>
  Effect.gen(function*() {
    const decoded = yield* decode(Seed.SeedMerchant, { ...params, api_keys: [] })
    const seed = yield* Seed.decode({ merchants: [decoded] }).pipe(
      Effect.mapError((e) => Errors.ValidationFailed.at(/provider account/.test(e.message) ? "provider_accounts" : "routes", e.message))
    )
    const merchant = Seed.toDirectory(seed, 0).merchants[0]!
    const inputs = decoded.provider_accounts ?? []
    yield* ProviderAccounts.checkUnique(merchant.id, inputs)
    const accounts = yield* ProviderAccounts.seal(merchant.id, inputs)
    return accounts.length === 0 ? merchant : { ...merchant, providerAccounts: accounts }
  })

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

/** `tender.merchants`, `tender.keys` and `tender.routes` on `runtime`. */
export const make = (runtime: ManagedRuntime.ManagedRuntime<Services, unknown>) => {
  const call = <A>(effect: Effect.Effect<A, unknown, Services>) => run(runtime, () => effect)

  const merchants: Api.MerchantsApi = {
    create: (params) =>
      call(Effect.gen(function*() {
        const body = yield* Arguments.of("merchants.create").body(params)
        const merchant = yield* merchantOf(body as Api.MerchantParams)
        const store = yield* Merchants.Merchants
        if (Option.isSome(yield* store.findMerchant(merchant.id))) {
          return yield* Errors.ValidationFailed.at("id", `A merchant ${JSON.stringify(merchant.id)} exists already.`)
        }
        yield* ProviderAccounts.putChecked(merchant)
        return merchantResource(merchant)
      })),
    retrieve: (id) => call(Effect.map(Effect.flatMap(Arguments.of("merchants.retrieve").id(id), findMerchant), merchantResource)),
    update: (id, params) =>
      call(Effect.gen(function*() {
        const check = Arguments.of("merchants.update")
        const valid = yield* check.id(id)
        const body = yield* check.body(params)
        yield* findMerchant(valid)
        const merchant = yield* merchantOf({ ...body, id: valid } as Api.MerchantParams)
        yield* ProviderAccounts.putChecked(merchant)
        return merchantResource(merchant)
      }))
  }

  const keys: Api.KeysApi = {
    issue: (merchant, environment) =>
      call(Effect.gen(function*() {
        const check = Arguments.of("keys.issue")
        const found = yield* findMerchant(yield* check.name(merchant, "merchant"))
        const env = yield* check.environment(environment)
        return issued(yield* Merchants.issueKeyPair(found.id, env))
      })),
    rotate: (publicKey) =>
      call(Effect.gen(function*() {
        const old = yield* findKey(yield* Arguments.of("keys.rotate").publicKey(publicKey))
        if (old.revokedAt !== null) return yield* Errors.ValidationFailed.at("public_key", "This API key is revoked: issue a new pair instead.")
        return issued(yield* Merchants.rotateKeyPair(old))
      })),
    revoke: (publicKey) =>
      call(Effect.gen(function*() {
        const key = yield* findKey(yield* Arguments.of("keys.revoke").publicKey(publicKey))
        yield* (yield* Merchants.Merchants).revokeApiKey(key.id, yield* Clock.currentTimeMillis)
      }))
  }

  /** Route health, the host's word (spec 2.3): `name` and `available` decoded first, so `"no"` is refused rather than taken for true. */
  const availability =
    (method: string, param: string, set: (h: RouteHealth.RouteHealth["Type"], name: string, available: boolean) => Effect.Effect<void, unknown>) =>
    (name: string, available: boolean): Promise<void> =>
      call(Effect.gen(function*() {
        const check = Arguments.of(method)
        const valid = yield* check.name(name, param)
        const on = yield* check.boolean(available, "available")
        return yield* set(yield* RouteHealth.RouteHealth, valid, on)
      }))

  const routes: Api.RoutesApi = {
    setAvailable: availability("routes.setAvailable", "routeId", (h, route, available) => h.setRouteAvailable(route, available)),
    setProviderAvailable: availability("routes.setProviderAvailable", "provider", (h, provider, available) => h.setProviderAvailable(provider, available))
  }

  /** D12: the host's corrections of a balance, and the platform's fee revenue. */
  const balances: Api.BalancesApi = {
    adjust: (params, options) =>
      call(Effect.gen(function*() {
        const check = Arguments.of("balances.adjust")
        const body = yield* check.body(params)
        const scope = yield* check.scope(options)
        const merchant = yield* findMerchant(scope.merchant)
        const valid = yield* decode(Balances.AdjustParams, body)
        return yield* Balances.adjust({ merchantId: merchant.id, environment: scope.environment }, valid)
      })),
    feeRevenue: (environment) =>
      call(Effect.gen(function*() {
        const env = yield* Arguments.of("balances.feeRevenue").environment(environment)
        return yield* Balances.feeRevenue(env)
      }))
  }

  return { merchants, keys, routes, balances }
}
