/**
 * The payer's side of a hosted intent (1, 2.3, 4.1.1, 4.1.2): what the hosted page reads and
 * the operations it performs. The page's link was verified by the HTTP binding
 * (`HostedCheckout.check`); everything here acts for the intent's own merchant and environment.
 *
 * `pay` freezes the payer's choice: the provider is called outside any transaction with our
 * intent id as its idempotency key (`Routing.createPayment`), then the method, the payer's
 * data and the provider's answer are written in one versioned change, decided as every provider
 * update is (`PaymentIntentLifecycle.applyUpdate`: an action with `payment_intent.requires_action`,
 * the intent now awaiting the payer's action at the provider).
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { Merchants } from "../merchants/Merchants.js"
import type * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import { PaymentIntentUnexpectedState, ValidationFailed } from "../resources/Errors.js"
import { randomBase62 } from "../resources/Ids.js"
import type { PayerData } from "../routing/Discovery.js"
import { discover, payerData, payerProblems, resolveRoutes } from "../routing/Discovery.js"
import * as Routing from "../routing/Routing.js"
import { scopeOf, Storage } from "../storage/Storage.js"
import type { PaymentIntentRecord } from "./PaymentIntent.js"
import { isTerminal, table } from "./PaymentIntent.js"
import * as Lifecycle from "./PaymentIntentLifecycle.js"
import * as Receipts from "./Receipts.js"

/** A hosted intent by id, whatever its merchant: the verified link is the authority. @since 0.1.0 */
export const load = (id: string) =>
  Effect.map(Storage, (s) => s.find(table, id)).pipe(
    Effect.flatten,
    Effect.map(Option.filter((intent) => intent.checkoutMode === "hosted"))
  )

/**
 * The intent's merchant acting in the intent's environment: discovery and routing see the
 * merchant's routes and team policy exactly as its API key would.
 *
 * @since 0.1.0
 */
export const principalOf = (intent: PaymentIntentRecord) =>
  Effect.gen(function*() {
    const merchant = yield* (yield* Merchants).findMerchant(intent.merchantId)
    if (Option.isNone(merchant)) return yield* Effect.dieMessage(`payment intent ${intent.id} names a missing merchant`)
    return { merchant: merchant.value, environment: intent.environment, apiKeyId: "hosted_checkout" } satisfies Principal
  })

/** Whether the payer may still choose and pay: a hosted intent awaiting its payer with no payment at a provider yet. @since 0.1.0 */
export const awaitingChoice = (intent: PaymentIntentRecord): boolean => intent.status === "requires_action" && intent.providerPaymentId === null

/**
 * The methods the page offers (4.1.6: discovery for the intent's amount, country, currency and
 * hosted mode); a method given at create (4.1.2) is the only one, when discovery still offers it.
 *
 * @since 0.1.0
 */
export const methodsFor = (principal: Principal, intent: PaymentIntentRecord) =>
  Effect.map(
    discover(principal, { amount: intent.amount, country: intent.country, currency: intent.currency, checkout_mode: "hosted" }),
    (found) => found.methods.filter((m) => intent.paymentMethod === null || m.code === intent.paymentMethod)
  )

/** The payer data the intent holds already (from create), under discovery's names (2.2). @since 0.1.0 */
export const payerDataOf = (intent: PaymentIntentRecord): PayerData => payerData(intent.customer, intent.paymentMethodOptions)

const defined = <A extends object>(o: A) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as A

const notPayable = (intent: PaymentIntentRecord) =>
  new PaymentIntentUnexpectedState({
    message: isTerminal(intent.status)
      ? `This payment is ${intent.status}.`
      : "A payment method was chosen already for this payment."
  })

/**
 * Pay with `method` and the payer's data (already format-checked as the API checks a create
 * body): the route rules of create (unknown method or bank, fields the route requires: 400 with
 * the create request's `param`), the provider called, and the choice frozen. A request that
 * lost a race with another (the same payer in two tabs) answers the intent as the winner left it.
 *
 * @since 0.1.0
 */
export const pay = (intent: PaymentIntentRecord, method: string, entered: PayerData) =>
  Effect.gen(function*() {
    if (!awaitingChoice(intent)) return yield* notPayable(intent)
    if (intent.paymentMethod !== null && method !== intent.paymentMethod) {
      // 4.1.2: a method given at create is the intent's; the page does not offer another.
      return yield* ValidationFailed.at("payment_method", `This payment takes ${intent.paymentMethod} only.`)
    }
    const principal = yield* principalOf(intent)
    const offered = yield* methodsFor(principal, intent)
    if (!offered.some((m) => m.code === method)) {
      return yield* ValidationFailed.at("payment_method", `Unknown payment method ${JSON.stringify(method)}; choose one of the methods shown.`)
    }
    const payer: PayerData = { ...payerDataOf(intent), ...defined(entered) }
    const constraints = { amount: intent.amount, country: intent.country, currency: intent.currency, checkoutMode: "hosted" as const }
    const candidates = yield* resolveRoutes(principal, constraints, method, payer)
    // 7: a customer field the route requires is missing -> 400, as a merchant-mode create answers.
    const missing = candidates[0] === undefined ? [] : payerProblems(candidates[0], payer)
    if (missing.length > 0) return yield* ValidationFailed.many(missing)
    const routed = yield* Routing.createPayment(candidates, payer, {
      paymentIntentId: intent.id,
      environment: intent.environment,
      amount: intent.amount,
      currency: intent.currency,
      country: intent.country,
      customer: { ...intent.customer, ...defined({ name: payer.customer_name, phone: payer.customer_phone }) },
      // The provider sends the payer back to the page, which follows the intent to its end (4.1.4).
      returnUrl: intent.nextAction?.type === "redirect_to_url" ? intent.nextAction.url : null
    }, intent.merchantId)
    const now = yield* Clock.currentTimeMillis
    // Every payer field but the customer's two lives in payment_method_options (2.2 mapping table).
    const { customer_name: _name, customer_phone: _phone, ...options } = defined(payer) as Readonly<Record<string, string>>
    const frozen = {
      paymentMethod: method,
      customer: { ...intent.customer, ...defined({ name: payer.customer_name, phone: payer.customer_phone }) },
      paymentMethodOptions: Object.keys(options).length > 0 ? options : null,
      providerCode: routed.provider,
      providerAccount: routed.providerAccount,
      providerPaymentId: routed.result.providerPaymentId
    }
    const { record, writes } = yield* Lifecycle.applyUpdate(intent, routed.result, { _tag: "create", stored: true, fields: frozen }, now)
    const committed = yield* Effect.either((yield* Storage).commit(writes))
    if (committed._tag === "Right") return record
    if (committed.left._tag !== "StaleVersion") return yield* Effect.fail(committed.left)
    // Another request changed the intent first: the payer sees what it left.
    const current = yield* load(intent.id)
    return Option.isSome(current) ? current.value : record
  })

/**
 * Attach the payer's transfer slip as the intent's receipt (4.4), exactly as the API does;
 * the answer is the API's (a D1 body when refused), so the page shows the API's message.
 *
 * @since 0.1.0
 */
export const submitReceipt = (intent: PaymentIntentRecord, bytes: Uint8Array) =>
  Effect.gen(function*() {
    const principal = yield* principalOf(intent)
    return yield* Receipts.submit({ principal, requestId: `req_${randomBase62()}` }, intent.id, { _tag: "File", bytes })
  })

/** The API's message in a rendered refusal, for the page. @since 0.1.0 */
export const refusal = (response: ApiResponse.ApiResponse): string | undefined => {
  if (response.status < 400) return undefined
  try {
    const body = JSON.parse(response.body) as { error?: { message?: string } }
    return body.error?.message
  } catch {
    return undefined
  }
}

/** Reload an intent in its own scope. @since 0.1.0 */
export const reload = (intent: PaymentIntentRecord) => Effect.flatMap(Storage, (s) => s.get(table, scopeOf(intent), intent.id))
