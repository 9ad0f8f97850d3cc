/**
 * Payment intents: create (4.1), get (4.2), list (4.3). A create runs as an `Operation`:
 * reserve the idempotency key and merchant_reference together; decide, calling the
 * provider outside any transaction with our id as its idempotency key (`Routing`); commit
 * the intent, the stored response and the reservations' outcome together.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Schema } from "effect"
import { capabilitiesOfPayment } from "../providers/ProviderAccounts.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import { fingerprint, nonEmpty } from "../requests/Canonical.js"
import * as Operation from "../requests/Operation.js"
import { CheckoutModeNotAllowed, PaymentIntentUnexpectedState, ValidationFailed } from "../resources/Errors.js"
import { IdGenerator, isWellFormed, prefixes } from "../resources/Ids.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import { Country, Currency, MerchantReference } from "../resources/Schemas.js"
import { payerData, resolveRoutes } from "../routing/Discovery.js"
import * as Routing from "../routing/Routing.js"
import { scopeOf, Storage, Write } from "../storage/Storage.js"
import * as Table from "../storage/Table.js"
import * as Task from "../storage/Task.js"
import { HostedCheckout } from "./HostedCheckout.js"
import type { CreateParams } from "./PaymentIntent.js"
import { isTerminal, PaymentIntentRecord, Status, table, toCreatedResource, toResource, toResourceJson } from "./PaymentIntent.js"
import * as Lifecycle from "./PaymentIntentLifecycle.js"

const route = "POST /payment_intents"

// ---------------------------------------------------------------------------
// Canonical form (4.9 merchant_reference rule 4, D5)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------

/**
 * Decide and build the intent, and the writes that store it (the provider's answer applied by
 * `PaymentIntentLifecycle.applyUpdate`). Fails with the API error the caller sees; never writes.
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

    // Fields not set here are null until the intent's lifecycle sets them. Validation is the
    // request's, already done; the status rules are checked before the write (`checked`).
    const base = Table.construct(PaymentIntentRecord, {
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
      customer: n.customer,
      paymentMethodOptions: n.payment_method_options ?? null,
      returnUrl: n.return_url ?? null,
      deviceFingerprint: n.device_fingerprint ?? null,
      metadata: n.metadata ?? null,
      externalReference: n.external_reference ?? null,
      fingerprint: fp,
      ...Table.firstWrite(now)
    })
    const constraints = { amount: n.amount, country: n.country, currency: n.currency, checkoutMode: mode }
    const payer = payerData(n.customer, n.payment_method_options)
    const candidates = n.payment_method === undefined
      ? []
      : yield* resolveRoutes(principal, constraints, n.payment_method, payer)

    if (mode === "hosted") {
      // 4.1.1/4.1.2: the payer completes the flow on the hosted page; the method (if any)
      // was checked for a healthy configured route, and the provider is called from there.
      const hosted = (yield* HostedCheckout).urlFor(id, now)
      const record = {
        ...base,
        nextAction: { type: "redirect_to_url" as const, url: hosted.url, expires_at: new Date(hosted.expiresAt).toISOString() }
      }
      return { record, writes: yield* Lifecycle.created(record) }
    }
    const routed = yield* Routing.createPayment(candidates, payer, {
      paymentIntentId: base.id,
      environment: base.environment,
      amount: base.amount,
      currency: base.currency,
      country: base.country,
      customer: base.customer,
      returnUrl: base.returnUrl
    }, base.merchantId)
    // The provider's answer decides the intent as every provider update does (`applyUpdate`).
    const { result } = routed
    return yield* Lifecycle.applyUpdate(base, result, {
      _tag: "create",
      stored: false,
      fields: { providerCode: routed.provider, providerAccount: routed.providerAccount, providerPaymentId: result.providerPaymentId }
    }, now)
  })

const kind: Resources.Kind<PaymentIntentRecord> = { table, noun: "payment intent" }

/**
 * POST /payment_intents (4.1, 4.9). Always answers with a rendered response: errors are
 * rendered in the D1 shape and stored or released per D5.
 *
 * @since 0.1.0
 */
export const create = (context: Operation.RequestContext, params: CreateParams) =>
  Effect.gen(function*() {
    const n = normalize(params)
    const fp = createFingerprint(n)
    const id = yield* (yield* IdGenerator).make(prefixes.paymentIntent)
    const storage = yield* Storage
    return yield* Operation.run({
      context,
      route,
      canonical: n,
      resource: "payment intent",
      // 4.9 merchant_reference rule 2: the original intent; 200, since nothing was created.
      reference: Resources.reference(storage, kind, context, toCreatedResource, {
        resourceType: "payment_intent",
        reference: n.merchant_reference,
        fingerprint: fp,
        resourceId: id
      }),
      decide: Effect.map(decide(context.principal, n, id, fp), ({ record, writes }) => ({
        response: ApiResponse.json(201, toCreatedResource(record), context.requestId),
        writes
      }))
    })
  })

// ---------------------------------------------------------------------------
// Get and list
// ---------------------------------------------------------------------------

const notFound = (id: string) => Resources.notFound(kind.noun, id)

/** GET /payment_intents/{id} (4.2): another merchant's or environment's id is a plain 404. @since 0.1.0 */
export const retrieve = (principal: Principal, id: string) => reads.retrieve(principal, id)

/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = (principal: Principal, id: string) => reads.retrieveJson(principal, id)

/**
 * POST /payment_intents/{id}/confirm (4.5, D3): ask the routed provider to confirm a pending
 * payment. The request is recorded as a durable task, answered 200 with the intent as it is
 * now; the provider's answer moves the intent later, read by polling GET or by its events
 * (3.1.5, 3.1.6). A terminal intent, or one not yet at a provider (hosted, before the payer
 * chose on the hosted page), or one whose method's provider cannot confirm (`capabilitiesOf`), is
 * 409 `payment_intent_unexpected_state`.
 *
 * @since 0.1.0
 */
export const confirm = (context: Operation.RequestContext, id: string) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    return yield* Operation.run({
      context,
      route: "POST /payment_intents/{id}/confirm",
      canonical: { id },
      resource: "payment intent",
      decide: Effect.gen(function*() {
        if (!isWellFormed(prefixes.paymentIntent, id)) {
          return yield* ValidationFailed.at("id", "id must be a payment intent id: dord_ followed by 24 letters and digits")
        }
        const found = yield* storage.get(table, scopeOf(context.principal), id)
        if (Option.isNone(found)) return yield* notFound(id)
        const intent = found.value
        if (isTerminal(intent.status)) {
          return yield* new PaymentIntentUnexpectedState({
            message: `This payment intent is ${intent.status}: a terminal payment intent cannot be confirmed.`
          })
        }
        if (intent.providerPaymentId === null) {
          return yield* new PaymentIntentUnexpectedState({
            message: "This payment intent has no payment at a provider yet: the payer completes it on the hosted checkout page."
          })
        }
        if (!(yield* capabilitiesOfPayment(intent)).confirm) {
          return yield* new PaymentIntentUnexpectedState({
            message:
              "This payment's provider cannot be asked to confirm its method: it tells the outcome by notification, and the payment expires with its payer action."
          })
        }
        const now = yield* Clock.currentTimeMillis
        const task = yield* Task.make({ ...scopeOf(context.principal), kind: "payment_intent.confirm", resourceId: id, dueAt: now, now })
        return {
          response: ApiResponse.json(200, toResource(intent), context.requestId),
          writes: [Write.insert(Task.table, task)]
        }
      })
    })
  })

/** GET /payment_intents query (4.3). @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({
  country: Schema.optional(Country),
  currency: Schema.optional(Currency),
  ...Pagination.createdFields,
  merchant_reference: Schema.optional(MerchantReference),
  status: Schema.optional(Pagination.ValueList.annotations({
    description: "One or more statuses: a single value, a comma-separated list, or the parameter repeated"
  }))
})
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

/** GET /payment_intents (4.3, D6): keyset pages, newest first. @since 0.1.0 */
export const list = (principal: Principal, params: ListParams) => reads.list(principal, params)

/** `list`'s answer as the JSON text the HTTP binding sends, its items rendered once per record (`PaymentIntent.toResourceJson`). @since 0.1.0 */
export const listJson = (principal: Principal, params: ListParams) => reads.listJson(principal, params)

const reads = Resources.reads(
  (principal, id) => Resources.load(kind, principal, id),
  (view) => (principal, params: ListParams) =>
    Resources.listPage(
      table,
      principal,
      params,
      Status.literals,
      view,
      (status) => Effect.succeed({ country: params.country, currency: params.currency, merchantReference: params.merchant_reference, status })
    ),
  toResource,
  toResourceJson
)
