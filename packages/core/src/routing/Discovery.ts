/**
 * Discovery (4.6, 2.4) and routing (4.1, 7). Eligible methods are the union over the
 * merchant's configured routes that are healthy and match amount, country, currency,
 * checkout mode, environment and the optional provider pin. Nothing provider-local leaks.
 *
 * @since 0.1.0
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import type { Route } from "../merchants/Merchants.js"
import { accountOf } from "../merchants/Merchants.js"
import { NextActionType } from "../paymentIntents/NextAction.js"
import { familyOf } from "../providers/internal/payerFamilies.js"
import type { PayerField, PaymentProvider, ProviderMethod, ProviderPayer } from "../providers/Provider.js"
import { amountInRange, payerFieldPath, ProviderRegistry } from "../providers/Provider.js"
import type { Principal } from "../requests/Authentication.js"
import { PaymentConfigurationUnavailable, RoutingUnavailable, ValidationFailed } from "../resources/Errors.js"
import { Amount, CheckoutMode, Country, Currency, Environment, withMessage } from "../resources/Schemas.js"
import { RouteHealth } from "./RouteHealth.js"

/** GET /payment_methods/options query (4.6, D3 `provider` pin). @since 0.1.0 @category request */
export const DiscoveryParams = Schema.Struct({
  amount: Amount,
  country: Country,
  currency: Currency,
  checkout_mode: Schema.optional(CheckoutMode),
  provider: Schema.optional(withMessage(Schema.String.pipe(Schema.pattern(/^[a-z0-9_]{1,64}$/)), "must be a provider code"))
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type DiscoveryParams = typeof DiscoveryParams.Type

/** One eligible method (2.4). @since 0.1.0 @category wire */
export const DiscoveredMethod = Schema.Struct({
  category: Schema.String,
  code: Schema.String,
  label: Schema.String,
  next_action_types: Schema.Array(NextActionType),
  options: Schema.Struct({
    banks: Schema.Array(Schema.Struct({ code: Schema.String, label: Schema.String })),
    payer: Schema.Record({ key: Schema.String, value: Schema.Struct({ required: Schema.Boolean }) })
  })
}).annotations({ identifier: "PaymentMethodOption" })
/** @since 0.1.0 @category wire */
export type DiscoveredMethod = typeof DiscoveredMethod.Type

/** The discovery response (2.4). @since 0.1.0 @category wire */
export const DiscoveryResponse = Schema.Struct({
  country: Schema.String,
  currency: Schema.String,
  environment: Environment,
  methods: Schema.Array(DiscoveredMethod)
}).annotations({ identifier: "PaymentMethodDiscovery" })
/** @since 0.1.0 @category wire */
export type DiscoveryResponse = typeof DiscoveryResponse.Type

/** What a route is asked to serve. @since 0.1.0 @category models */
export interface Constraints {
  readonly amount: string
  readonly country: string
  readonly currency: string
  readonly checkoutMode: CheckoutMode
  readonly provider?: string | undefined
}

/** A configured route with its provider's declaration of the method. @since 0.1.0 @category models */
export interface Candidate {
  readonly route: Route
  readonly provider: PaymentProvider
  readonly method: ProviderMethod
}

const serves = (m: ProviderMethod, principal: Principal, c: Constraints): boolean =>
  m.environments.includes(principal.environment) &&
  m.countries.includes(c.country) &&
  m.currencies.includes(c.currency) &&
  m.checkoutModes.includes(c.checkoutMode) &&
  amountInRange(m, c.amount)

/**
 * The adapter of a route on the merchant's own account (D13), when the merchant holds that
 * account of the route's provider and it can be used now; else the route is not a candidate.
 */
const accountProvider = (registry: ProviderRegistry["Type"], principal: Principal, code: string, accountId: string) => {
  const account = accountOf(principal.merchant, accountId)
  if (account === undefined || account.provider !== code || account.environment !== principal.environment) return undefined
  const built = registry.forAccount(principal.merchant.id, account)
  return built._tag === "Ready" ? built.provider : undefined
}

/** The merchant's configured routes that match the constraints, healthy or not, by priority. @since 0.1.0 */
export const configuredCandidates = (principal: Principal, c: Constraints, method?: string) =>
  Effect.map(ProviderRegistry, (registry) => {
    const out: Array<Candidate> = []
    const routes = [...principal.merchant.routes].sort((a, b) => a.priority - b.priority)
    for (const route of routes) {
      if (method !== undefined && route.method !== method) continue
      if (!route.environments.includes(principal.environment)) continue
      if (c.provider !== undefined && route.provider !== c.provider) continue
      const provider = route.providerAccount === undefined || route.providerAccount === null
        ? registry.get(route.provider)
        : accountProvider(registry, principal, route.provider, route.providerAccount)
      const declared = provider?.methods.find((m) => m.method === route.method)
      if (provider === undefined || declared === undefined || !serves(declared, principal, c)) continue
      out.push({ route, provider, method: declared })
    }
    return out
  })

/** Keep the healthy candidates. @since 0.1.0 */
export const healthy = (candidates: ReadonlyArray<Candidate>) =>
  Effect.flatMap(RouteHealth, (health) => Effect.filter(candidates, (c) => health.isHealthy(c.route)))

/** The discovery answer: the provider-neutral union over healthy matching routes (4.6). @since 0.1.0 */
export const discover = (principal: Principal, params: DiscoveryParams) =>
  Effect.gen(function*() {
    const checkoutMode = params.checkout_mode ?? "hosted"
    // A mode the team policy denies has no eligible method: create would refuse it (4.1.5, 4.1.6).
    const allowed = principal.merchant.allowedCheckoutModes.includes(checkoutMode)
    const candidates = allowed ? yield* healthy(yield* configuredCandidates(principal, { ...params, checkoutMode })) : []
    const byCode = new Map<string, { first: ProviderMethod; actions: Set<string>; banks: Map<string, string>; payer: Map<string, boolean> }>()
    for (const { method } of candidates) {
      let entry = byCode.get(method.method)
      if (entry === undefined) {
        entry = { first: method, actions: new Set(), banks: new Map(), payer: new Map() }
        byCode.set(method.method, entry)
      }
      // In hosted mode the action is always redirect_to_url (2.3).
      entry.actions.add(checkoutMode === "hosted" ? "redirect_to_url" : method.nextActionType)
      for (const bank of method.banks) if (!entry.banks.has(bank.code)) entry.banks.set(bank.code, bank.label)
      for (const [field, spec] of Object.entries(method.payer)) {
        // A field any eligible route requires is required: data collected for it satisfies every route.
        entry.payer.set(field, (entry.payer.get(field) ?? false) || spec.required)
      }
    }
    const methods: Array<DiscoveredMethod> = [...byCode.values()].map((e) => ({
      category: e.first.category,
      code: e.first.method,
      label: e.first.label,
      next_action_types: [...e.actions] as Array<NextActionType>,
      options: {
        banks: [...e.banks].map(([code, label]) => ({ code, label })),
        payer: Object.fromEntries([...e.payer].map(([field, required]) => [field, { required }]))
      }
    }))
    return { country: params.country, currency: params.currency, environment: principal.environment, methods } satisfies DiscoveryResponse
  })

/**
 * Payer data of a create request, under discovery's field names (2.2 mapping table): the spec's
 * fields, and any other a method's payer family declares (`payment_method_options.<name>`).
 *
 * @since 0.1.0
 */
export interface PayerData {
  readonly customer_name?: string | undefined
  readonly customer_phone?: string | undefined
  readonly account_name?: string | undefined
  readonly account_number?: string | undefined
  readonly bank?: string | undefined
  readonly name_th?: string | undefined
  readonly [field: string]: string | undefined
}

/** The payer data a customer and payment method options hold, under discovery's names (2.2 mapping table). @since 0.1.0 */
export const payerData = (
  customer: { readonly name?: string | undefined; readonly phone?: string | undefined },
  options: Readonly<Record<string, string | undefined>> | null | undefined
): PayerData => ({ ...options, customer_name: customer.name, customer_phone: customer.phone })

/** Where each discovery payer field goes in the create request (2.2). @since 0.1.0 */
export const createRequestPath: Record<PayerField, string> = {
  customer_name: "customer.name",
  customer_phone: "customer.phone",
  account_name: "payment_method_options.account_name",
  account_number: "payment_method_options.account_number",
  bank: "payment_method_options.bank",
  name_th: "payment_method_options.name_th"
}

/**
 * Resolve the routes that can execute `method` for this request, best first. Unknown
 * method or bank: 400. Nothing configured for it: 422 `payment_configuration_unavailable`.
 * Configured but none healthy: 422 `routing_unavailable`. Option fields no candidate
 * accepts: 400. In merchant mode, payer fields the first route requires: 400.
 *
 * @since 0.1.0
 */
export const resolveRoutes = (principal: Principal, c: Constraints, method: string, payer: PayerData) =>
  Effect.gen(function*() {
    const registry = yield* ProviderRegistry
    const known = registry.all.flatMap((p) => p.methods.filter((m) => m.method === method))
    if (known.length === 0) {
      return yield* ValidationFailed.at("payment_method", `Unknown payment method ${JSON.stringify(method)}; use a code from GET /payment_methods/options.`)
    }
    if (payer.bank !== undefined && !known.some((m) => m.banks.some((b) => b.code === payer.bank))) {
      return yield* ValidationFailed.at(
        "payment_method_options.bank",
        `Unknown bank ${JSON.stringify(payer.bank)} for ${method}; use a code from discovery options.banks.`
      )
    }
    const unavailable = () => {
      const environment = principal.environment
      // Routes of the method, none for the key's environment (a live key, test-only routes): say so, it is the fix.
      const elsewhere = [...new Set(principal.merchant.routes.filter((r) => r.method === method).flatMap((r) => r.environments))]
      const message = elsewhere.length > 0 && !elsewhere.includes(environment)
        ? `${method} has no route in the ${environment} environment of this key: this merchant's ${method} routes serve ${elsewhere.join(" and ")} only.`
        : `${method} has no configured execution for this amount, country, currency and checkout mode in the ${environment} environment.`
      return new PaymentConfigurationUnavailable({ param: "payment_method", message })
    }
    let candidates = yield* configuredCandidates(principal, c, method)
    if (candidates.length === 0) return yield* unavailable()
    if (payer.bank !== undefined) {
      candidates = candidates.filter((x) => x.method.banks.some((b) => b.code === payer.bank))
      if (candidates.length === 0) {
        return yield* new PaymentConfigurationUnavailable({
          param: "payment_method_options.bank",
          message: `${method} has no configured execution for bank ${payer.bank}.`
        })
      }
    }
    // Option fields are accepted only where some candidate route asks for them.
    const optionProblems = Object.keys(payer)
      .filter((f) => f !== "customer_name" && f !== "customer_phone")
      .filter((f) => payer[f] !== undefined && !candidates.some((x) => x.method.payer[f] !== undefined))
      .map((f) => ({ param: payerFieldPath(f), message: `${payerFieldPath(f)} is not accepted by ${method}` }))
    if (optionProblems.length > 0) return yield* ValidationFailed.many(optionProblems)
    const live = yield* healthy(candidates)
    if (live.length === 0) {
      return yield* new RoutingUnavailable({ message: `No healthy route is available for ${method} right now; retry later or choose another method.` })
    }
    return live
  })

/**
 * What a route refuses of the payer data (400 in merchant mode): the fields it requires that the
 * request lacks, and values its payer family's format refuses, each at its create-request path.
 *
 * @since 0.1.0
 */
export const payerProblems = (candidate: Candidate, payer: PayerData): Array<{ readonly param: string; readonly message: string }> => {
  const { method } = candidate
  const problems: Array<{ readonly param: string; readonly message: string }> = []
  for (const [field, spec] of Object.entries(method.payer)) {
    const value = payer[field]
    const path = payerFieldPath(field)
    if (value === undefined) {
      if (spec.required) problems.push({ param: path, message: `${path} is required by ${method.method}` })
      continue
    }
    const format = familyOf(method)?.fields[field]?.format
    const checked = format === undefined ? undefined : Schema.decodeUnknownEither(format)(value)
    if (checked !== undefined && Either.isLeft(checked)) {
      const said = ParseResult.ArrayFormatter.formatErrorSync(checked.left)[0]?.message ?? "is not valid"
      problems.push({ param: path, message: `${path} ${said}` })
    }
  }
  return problems
}

/** 0.1.0's name of `payerProblems`. @since 0.1.0 */
export const missingPayerFields = payerProblems

/**
 * The payer data a route's provider gets (`ProviderPaymentRequest.payer`): the fields of its
 * method's family that the payer gave, a bank choice as the provider's own code; null for a
 * method that takes none.
 *
 * @since 0.1.0
 */
export const providerPayer = (candidate: Candidate, payer: PayerData): ProviderPayer | null => {
  const { method } = candidate
  const family = familyOf(method)
  if (family === undefined) return null
  const fields: Record<string, string> = {}
  for (const field of Object.keys(method.payer)) {
    const value = payer[field]
    if (value === undefined) continue
    fields[field] = family.fields[field]?.bank === true ? method.banks.find((b) => b.code === value)?.providerCode ?? value : value
  }
  return { family: family.family, fields }
}
