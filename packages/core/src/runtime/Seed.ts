/**
 * The seed format: merchants, key pairs (in clear in the file, stored hashed), allowed
 * checkout modes and provider routes with a health flag. See docs/seed-format.md.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option, ParseResult, Schema } from "effect"
import type { ApiKey, Merchant } from "../merchants/Merchants.js"
import * as Merchants from "../merchants/Merchants.js"
import { ProviderRegistry } from "../providers/Provider.js"
import * as ProviderAccounts from "../providers/ProviderAccounts.js"
import { CheckoutMode, Environment, withMessage } from "../resources/Schemas.js"
import * as RouteHealth from "../routing/RouteHealth.js"

const strict = { parseOptions: { errors: "all", onExcessProperty: "error" } } as const

/** @since 0.1.0 @category schemas */
export const SeedApiKey = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)),
  public_key: Schema.String.pipe(Schema.pattern(/^pk_(test|live)_[A-Za-z0-9]{8,}$/)),
  secret_key: Schema.String.pipe(Schema.pattern(/^sk_(test|live)_[A-Za-z0-9]{16,}$/)),
  revoked: Schema.optional(Schema.Boolean)
}).annotations(strict)

/** @since 0.1.0 @category schemas */
export const SeedRoute = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)),
  method: Schema.String.pipe(Schema.minLength(1)),
  provider: Schema.String.pipe(Schema.minLength(1)),
  environments: Schema.optional(Schema.Array(Environment)),
  priority: Schema.optional(Schema.Int),
  healthy: Schema.optional(Schema.Boolean),
  /** One of the merchant's `provider_accounts` (D13); absent: the deployment's own account. */
  provider_account: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
}).annotations(strict)

/**
 * One payment method's fee (D12): `rate_bps` basis points of the amount (0 to 10,000) plus
 * `fixed_amount` minor units of the payment's currency (default "0").
 *
 * @since 0.1.0 @category schemas
 */
export const SeedFee = Schema.Struct({
  rate_bps: withMessage(Schema.Int.pipe(Schema.between(0, 10_000)), "must be an integer from 0 to 10000 (basis points)"),
  fixed_amount: Schema.optional(
    withMessage(Schema.String.pipe(Schema.pattern(/^(0|[1-9]\d{0,17})$/)), "must be an integer string of minor units, at most 18 digits")
  )
}).annotations(strict)

/** @since 0.1.0 @category schemas */
export const SeedMerchant = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)),
  name: Schema.String,
  allowed_checkout_modes: Schema.Array(CheckoutMode),
  api_keys: Schema.Array(SeedApiKey),
  routes: Schema.Array(SeedRoute),
  /** The platform's fee per payment method code (D12). */
  fees: Schema.optional(Schema.Record({ key: Schema.String.pipe(Schema.minLength(1)), value: SeedFee })),
  /** Days a payment stays pending before it is available (D12). Default 0. */
  settlement_delay_days: Schema.optional(withMessage(Schema.Int.pipe(Schema.between(0, 30)), "must be an integer from 0 to 30")),
  /** The merchant's own provider accounts (D13), credentials in clear: sealed when applied. */
  provider_accounts: Schema.optional(Schema.Array(ProviderAccounts.AccountInput))
}).annotations(strict)

/** A seed merchant's balance settings as the directory stores them (D12). @since 0.1.0 */
export const balanceSettings = (m: Pick<typeof SeedMerchant.Type, "fees" | "settlement_delay_days">) => ({
  ...(m.fees === undefined ? {} : {
    fees: Object.fromEntries(Object.entries(m.fees).map(([method, f]) => [method, { rateBps: f.rate_bps, fixedAmount: f.fixed_amount ?? "0" }]))
  }),
  ...(m.settlement_delay_days === undefined ? {} : { settlementDelayDays: m.settlement_delay_days })
})

/** @since 0.1.0 @category schemas */
export const Seed = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  merchants: Schema.Array(SeedMerchant)
}).annotations(strict)
/** @since 0.1.0 @category schemas */
export type Seed = typeof Seed.Type

/** A seed that does not hold together. @since 0.1.0 @category errors */
export class InvalidSeed extends Schema.TaggedError<InvalidSeed>()("InvalidSeed", { message: Schema.String }) {}

/**
 * A seed merchant's provider account id that another merchant in the store already holds (D13:
 * an account id names its notification door, so it is unique across merchants): nothing of the
 * seed is written. `heldBy` names the merchants that hold it.
 *
 * @since 0.1.0 @category errors
 */
export class ProviderAccountHeld extends Schema.TaggedError<ProviderAccountHeld>()("ProviderAccountHeld", {
  accountId: Schema.String,
  merchantId: Schema.String,
  heldBy: Schema.Array(Schema.String),
  message: Schema.String
}) {}

const held = (accountId: string, merchantId: string, heldBy: ReadonlyArray<string>) =>
  new ProviderAccountHeld({
    accountId,
    merchantId,
    heldBy,
    message: `seed: merchant ${merchantId}'s provider account id ${JSON.stringify(accountId)} is already held by merchant ${
      heldBy.join(", ")
    }; account ids are unique across merchants (each names its notification door): give one of them another id (docs/seed-format.md)`
  })

/** The first of the seed's provider account ids another merchant of the store holds, as `ProviderAccountHeld`. */
const checkHeld = (seed: Seed) =>
  Effect.gen(function*() {
    const merchants = yield* Merchants.Merchants
    for (const m of seed.merchants) {
      for (const a of m.provider_accounts ?? []) {
        const others = (yield* merchants.findProviderAccount(a.id)).map((h) => h.merchant.id).filter((id) => id !== m.id)
        if (others.length > 0) return yield* held(a.id, m.id, [...new Set(others)])
      }
    }
  })

/** Line and column (1-based) of a character offset in `text`. */
const lineColumn = (text: string, offset: number) => {
  const before = text.slice(0, offset).split("\n")
  return `line ${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`
}

/**
 * Why the seed file at `path` (resolved) could not be read or parsed, in words naming the seed
 * and the path: its read error (`ENOENT`, `EACCES`, `EISDIR`) or the JSON syntax error of its
 * `text`, placed by line and column. Shared by every loader (createTender, the demo server,
 * `tender seed check`) so they all say it the same way.
 *
 * @since 0.1.0 @category errors
 */
export const fileProblem = (path: string, error: unknown, text?: string): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  if (code === "ENOENT") return `seed file ${path} does not exist`
  if (code === "EACCES") return `seed file ${path} cannot be read (permission denied)`
  if (code === "EISDIR") return `seed file ${path} is a directory, not a JSON file`
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof SyntaxError) {
    // Node's wording changes between versions; the position it names does not.
    const at = /at position (\d+)/.exec(message)
    if (text !== undefined && text.trim() === "") return `seed file ${path} is empty: it needs a JSON object { "merchants": [...] }`
    if (at !== null && text !== undefined) return `seed file ${path} is not valid JSON: syntax error at ${lineColumn(text, Number(at[1]))}`
    if (/Unexpected end/.test(message)) return `seed file ${path} is not valid JSON: it ends before its JSON does`
    return `seed file ${path} is not valid JSON: ${message}`
  }
  return `seed file ${path} cannot be read: ${message}`
}

/** Why a route cannot name its `provider_account` (D13: one of the merchant's, same provider and environment). */
const accountProblem = (m: typeof SeedMerchant.Type, r: typeof SeedRoute.Type): string | undefined => {
  if (r.provider_account === undefined) return undefined
  const account = m.provider_accounts?.find((a) => a.id === r.provider_account)
  if (account === undefined) return `provider_account ${r.provider_account} is not one of merchant ${m.id}'s provider_accounts`
  if (account.provider !== r.provider) return `provider_account ${account.id} is a ${account.provider} account, the route's provider is ${r.provider}`
  if (r.environments !== undefined && r.environments.some((e) => e !== account.environment)) {
    return `provider_account ${account.id} is a ${account.environment} account: the route's environments can only be ["${account.environment}"]`
  }
  return undefined
}

/** Parse and check a seed: unique ids, key pairs whose halves name one environment. @since 0.1.0 */
export const decode = (input: unknown): Effect.Effect<Seed, InvalidSeed> =>
  Effect.gen(function*() {
    const seed = yield* Schema.decodeUnknown(Seed)(input).pipe(
      Effect.mapError((e) =>
        new InvalidSeed({
          message: ParseResult.ArrayFormatter.formatErrorSync(e)
            .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`)
            .join("; ")
        })
      )
    )
    const seen = new Set<string>()
    const unique = (kind: string, id: string) =>
      seen.has(`${kind}:${id}`) ? Effect.fail(new InvalidSeed({ message: `duplicate ${kind} id ${id}` })) : Effect.sync(() => seen.add(`${kind}:${id}`))
    for (const m of seed.merchants) {
      yield* unique("merchant", m.id)
      for (const k of m.api_keys) {
        yield* unique("api key", k.id)
        yield* unique("public key", k.public_key)
        if (Merchants.environmentOfPublicKey(k.public_key) !== Merchants.environmentOfSecretKey(k.secret_key)) {
          return yield* new InvalidSeed({ message: `api key ${k.id}: public and secret keys name different environments` })
        }
      }
      for (const a of m.provider_accounts ?? []) {
        const holders = seed.merchants.filter((o) => (o.provider_accounts ?? []).some((b) => b.id === a.id)).map((o) => o.id)
        if (holders.length > 1) {
          return yield* new InvalidSeed({
            message: `provider account id ${JSON.stringify(a.id)} is held by merchants ${holders.join(" and ")}: account ids are unique across merchants`
          })
        }
        yield* unique("provider account", a.id)
      }
      for (const r of m.routes) {
        yield* unique("route", r.id)
        const problem = accountProblem(m, r)
        if (problem !== undefined) return yield* new InvalidSeed({ message: `route ${r.id}: ${problem}` })
      }
    }
    return seed
  })

const environmentsOfAccount = (m: typeof SeedMerchant.Type, id: string | undefined) => {
  const account = id === undefined ? undefined : m.provider_accounts?.find((a) => a.id === id)
  return account === undefined ? undefined : [account.environment]
}

/** The merchants and hashed keys a seed declares (provider accounts are sealed by `apply`). @since 0.1.0 */
export const toDirectory = (seed: Seed, now: number): { merchants: Array<Merchant>; apiKeys: Array<ApiKey> } => ({
  merchants: seed.merchants.map((m) => ({
    id: m.id,
    name: m.name,
    allowedCheckoutModes: m.allowed_checkout_modes,
    routes: m.routes.map((r, i) => ({
      id: r.id,
      method: r.method,
      provider: r.provider,
      // A route on an account serves the account's environment (D13).
      environments: r.environments ?? environmentsOfAccount(m, r.provider_account) ?? ["test", "live"],
      priority: r.priority ?? i,
      ...(r.provider_account === undefined ? {} : { providerAccount: r.provider_account })
    })),
    ...balanceSettings(m)
  })),
  apiKeys: seed.merchants.flatMap((m) =>
    m.api_keys.map((k) => ({
      id: k.id,
      merchantId: m.id,
      environment: Merchants.environmentOfPublicKey(k.public_key) ?? "test",
      publicKey: k.public_key,
      secretHash: Merchants.hashSecret(k.secret_key),
      revokedAt: k.revoked === true ? now : null,
      createdAt: now,
      seeded: true as const
    }))
  )
})

/**
 * Every merchant's provider accounts checked and sealed (D13), before anything is written: a seed
 * with one bad account, or with accounts while no `ProviderRegistry` (or no key) is given, writes
 * nothing and fails `InvalidSeed` naming the field, never a secret.
 */
const sealAccounts = (seed: Seed) =>
  Effect.gen(function*() {
    if (seed.merchants.every((m) => (m.provider_accounts ?? []).length === 0)) return seed.merchants.map(() => [])
    const registry = yield* Effect.serviceOption(ProviderRegistry)
    if (Option.isNone(registry)) return yield* new InvalidSeed({ message: "the seed holds provider accounts, and no provider registry is given to seal them" })
    return yield* Effect.forEach(seed.merchants, (m) => {
      const path = `merchants.${m.id}.provider_accounts`
      return ProviderAccounts.seal(m.id, m.provider_accounts ?? [], path)
    }).pipe(
      Effect.provideService(ProviderRegistry, registry.value),
      Effect.catchTag("ValidationFailed", (e) => new InvalidSeed({ message: e.details?.map((d) => d.message).join("; ") ?? e.message }))
    )
  })

/**
 * Write a seed's merchants and keys into whatever `Merchants` store is provided (memory,
 * PostgreSQL, ...). Idempotent: applying it again replaces merchants and keys by id, but
 * never clears a revocation.
 *
 * A provider account id another merchant of the store holds fails `ProviderAccountHeld`, naming
 * the id and the merchants, before anything is written.
 *
 * The seed is authoritative for the keys it declares: a key an earlier seed declared that this
 * one no longer does is revoked (a store shared by restarts, such as PostgreSQL, would otherwise
 * keep authenticating it). Keys issued at run time (`Merchants.issueKeyPair`) are not the seed's
 * and stay as they are. docs/seed-format.md, "Removing a key".
 *
 * @since 0.1.0
 */
export const apply = (seed: Seed) =>
  Effect.gen(function*() {
    const merchants = yield* Merchants.Merchants
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const directory = toDirectory(seed, now)
    const accounts = yield* sealAccounts(seed)
    yield* checkHeld(seed)
    yield* Effect.forEach(
      directory.merchants,
      (m, i) =>
        merchants.putMerchant(accounts[i]!.length === 0 ? m : { ...m, providerAccounts: accounts[i]! }).pipe(
          // Another process took one of its ids since the check: named as the check names it.
          Effect.catchTag("UniqueViolation", (e) => Effect.zipRight(checkHeld(seed), Effect.fail(e)))
        ),
      { discard: true }
    )
    yield* Effect.forEach(directory.apiKeys, merchants.putApiKey, { discard: true })
    const revoked = yield* merchants.revokeSeededKeysExcept(directory.apiKeys.map((k) => k.publicKey), now)
    if (revoked.length > 0) {
      yield* Effect.logInfo("tender: revoked API keys no longer in the seed").pipe(Effect.annotateLogs("key_ids", revoked.join(",")))
    }
  })

/** Applies the seed when built, into the `Merchants` store provided to it. @since 0.1.0 @category layers */
export const layerApply = (seed: Seed) => Layer.effectDiscard(apply(seed))

/**
 * `RouteHealth` on the `Merchants` store provided, with the routes the seed marks `healthy: false`
 * down until the host says otherwise, and the breaker's `breaker` options (`RouteHealth.layer`). @since 0.1.0 @category layers
 */
export const layerRouteHealth = (seed: Seed, breaker: RouteHealth.BreakerOptions = {}) =>
  RouteHealth.layer({
    ...breaker,
    routesDown: seed.merchants.flatMap((m) => m.routes.filter((r) => r.healthy === false).map((r) => r.id)),
    routes: seed.merchants.flatMap((m) => m.routes.map((r) => ({ id: r.id, provider: r.provider, providerAccount: r.provider_account ?? null })))
  })

/** In-memory `Merchants` and `RouteHealth` layers from a seed (its provider accounts sealed with the `ProviderRegistry` provided). @since 0.1.0 @category layers */
export const layer = (seed: Seed) =>
  layerRouteHealth(seed).pipe(Layer.provideMerge(Layer.orDie(layerApply(seed).pipe(Layer.provideMerge(Merchants.layerMemory())))))
