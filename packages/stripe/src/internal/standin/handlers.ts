/**
 * What the Stripe stand-in does with a request the description allowed: the lifecycle of
 * payment intents, Checkout Sessions and refunds, with Stripe's idempotency rules.
 */
import { openApiOf, type StandInAnswer, type StandInRequest } from "@tender/testing/StandIn"
import * as O from "./objects.js"

/** The stand-in's state. */
export interface StripeState {
  baseUrl: string
  readonly paymentIntents: Map<string, Record<string, unknown>>
  readonly checkoutSessions: Map<string, Record<string, unknown>>
  readonly refunds: Map<string, Record<string, unknown>>
  readonly charges: Map<string, Record<string, unknown>>
  readonly events: Array<Record<string, unknown>>
  /** Idempotency-Key → the request it was first used with and the answer given. */
  readonly idempotency: Map<string, { readonly fingerprint: string; readonly answer: StandInAnswer }>
  readonly declines: Array<{ code: string; declineCode?: string | undefined; message?: string | undefined }>
  /** Events the API calls caused, delivered when the test flushes. */
  readonly outbox: Array<Record<string, unknown>>
  readonly selfCheck: (problems: ReadonlyArray<string>) => void
}

/** Stripe's `last_payment_error` for a failed attempt. */
export const lastPaymentError = (error: { code: string; declineCode?: string | undefined; message?: string | undefined }) => ({
  type: "card_error",
  code: error.code,
  ...(error.declineCode === undefined ? {} : { decline_code: error.declineCode }),
  message: error.message ?? "Your payment was declined."
})

const publicFields = (object: Record<string, unknown>) => Object.fromEntries(Object.entries(object).filter(([k]) => !k.startsWith("__")))

/** Records an event of the object, both checked against the description. */
export const emit = (state: StripeState, type: string, object: Record<string, unknown>): Record<string, unknown> => {
  const visible = publicFields(object)
  const e = O.event(type, visible, object["livemode"] as boolean)
  const api = openApiOf(O.extract)
  state.selfCheck([...api.checkComponent("event", e), ...api.checkComponent(String(visible["object"]), visible)])
  state.events.push(e)
  return e
}

/** The payer paid: a charge, the intent `succeeded`, its event. */
export const succeed = (state: StripeState, pi: Record<string, unknown>, received: number = pi["amount"] as number): Array<Record<string, unknown>> => {
  const ch = O.charge(pi)
  state.charges.set(ch["id"] as string, ch)
  Object.assign(pi, { status: "succeeded", next_action: null, processing: null, amount_received: received, latest_charge: ch["id"] })
  return [emit(state, "payment_intent.succeeded", pi)]
}

const ok = (object: Record<string, unknown>): StandInAnswer => ({ status: 200, body: publicFields(object) })

const invalid = (message: string, extra: Record<string, unknown> = {}, status = 400): StandInAnswer => ({
  status,
  body: O.error("invalid_request_error", message, extra)
})

const missing = (kind: string, id: string, param: string): StandInAnswer => invalid(`No such ${kind}: '${id}'`, { code: "resource_missing", param }, 404)

const list = (url: string, items: Iterable<Record<string, unknown>>): StandInAnswer => ({
  status: 200,
  body: { object: "list", data: [...items].map(publicFields), has_more: false, url }
})

const livemodeOf = (request: StandInRequest) => (request.headers["authorization"] ?? "").includes("_live_")

const CANCELABLE = ["requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"]

const createIntent = (state: StripeState, request: StandInRequest): StandInAnswer => {
  const b = request.body as Record<string, any>
  const types: Array<string> = b.payment_method_types ?? (b.payment_method_data?.type !== undefined ? [b.payment_method_data.type] : ["card"])
  const pi = O.paymentIntent({
    amount: b.amount,
    currency: b.currency,
    livemode: livemodeOf(request),
    metadata: b.metadata ?? {},
    paymentMethodTypes: types,
    description: b.description ?? null,
    receiptEmail: b.receipt_email ?? null
  })
  state.paymentIntents.set(pi["id"] as string, pi)
  if (b.confirm !== true) return ok(pi)
  const type = b.payment_method_data?.type
  if (type === undefined && b.payment_method === undefined) {
    return invalid("You must provide a payment method to confirm this PaymentIntent.", { code: "payment_intent_unexpected_state" })
  }
  if (type === "promptpay" && b.currency !== "thb") {
    return invalid("The currency provided (" + String(b.currency) + ") is invalid for PromptPay: only thb is supported.", {
      code: "payment_intent_invalid_parameter",
      param: "currency"
    })
  }
  const decline = state.declines.shift()
  if (decline !== undefined) {
    Object.assign(pi, { last_payment_error: lastPaymentError(decline) })
    return { status: 402, body: O.error("card_error", lastPaymentError(decline).message, { ...lastPaymentError(decline), payment_intent: publicFields(pi) }) }
  }
  if (type === "promptpay") {
    Object.assign(pi, { status: "requires_action", next_action: O.promptPayAction(state.baseUrl, pi["id"] as string, b.amount) })
  } else {
    Object.assign(pi, { status: "processing", processing: types[0] === "card" ? { type: "card" } : null })
  }
  return ok(pi)
}

const cancelIntent = (state: StripeState, id: string, request: StandInRequest): StandInAnswer => {
  const pi = state.paymentIntents.get(id)
  if (pi === undefined) return missing("payment_intent", id, "intent")
  if (!CANCELABLE.includes(pi["status"] as string)) {
    return invalid(`You cannot cancel this PaymentIntent because it has a status of ${String(pi["status"])}.`, {
      code: "payment_intent_unexpected_state",
      payment_intent: publicFields(pi)
    })
  }
  const reason = (request.body as Record<string, unknown>)["cancellation_reason"] ?? null
  Object.assign(pi, { status: "canceled", next_action: null, canceled_at: O.now(), cancellation_reason: reason })
  state.outbox.push(emit(state, "payment_intent.canceled", pi))
  return ok(pi)
}

const createRefund = (state: StripeState, request: StandInRequest): StandInAnswer => {
  const b = request.body as Record<string, any>
  const id: string | undefined = b.payment_intent
  const pi = id === undefined ? undefined : state.paymentIntents.get(id)
  if (pi === undefined) return id === undefined ? invalid("One of charge or payment_intent is required.") : missing("payment_intent", id, "payment_intent")
  if (pi["status"] !== "succeeded") {
    return invalid(`This PaymentIntent (${id}) does not have a successful charge to refund.`, { code: "charge_not_refundable" })
  }
  const taken = [...state.refunds.values()]
    .filter((r) => r["payment_intent"] === id && r["status"] !== "failed" && r["status"] !== "canceled")
    .reduce((sum, r) => sum + (r["amount"] as number), 0)
  const amount: number = b.amount ?? (pi["amount"] as number) - taken
  if (amount <= 0 || taken + amount > (pi["amount"] as number)) {
    return invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${(pi["amount"] as number) - taken})`, {
      code: "amount_too_large",
      param: "amount"
    })
  }
  const re = O.refund({ amount, intent: pi, metadata: b.metadata ?? {} })
  re["livemode"] = pi["livemode"]
  state.refunds.set(re["id"] as string, re)
  state.outbox.push(emit(state, "refund.created", re))
  return ok(re)
}

const createSession = (state: StripeState, request: StandInRequest): StandInAnswer => {
  const b = request.body as Record<string, any>
  const items: Array<Record<string, any>> = b.line_items ?? []
  const currency = items[0]?.price_data?.currency
  if (b.mode !== "payment" || items.length === 0 || currency === undefined) {
    return invalid("The stand-in serves Checkout in payment mode with line_items[].price_data.", { param: "line_items" })
  }
  const total = items.reduce((sum, i) => sum + (i.price_data.unit_amount ?? 0) * (i.quantity ?? 1), 0)
  const id = O.stripeId(livemodeOf(request) ? "cs_live" : "cs_test")
  const session = O.shape("checkout.session", "checkout.session", {
    id,
    object: "checkout.session",
    amount_subtotal: total,
    amount_total: total,
    cancel_url: b.cancel_url ?? null,
    client_reference_id: b.client_reference_id ?? null,
    created: O.now(),
    currency,
    customer_email: b.customer_email ?? null,
    expires_at: b.expires_at ?? O.now() + 24 * 3600,
    livemode: livemodeOf(request),
    metadata: b.metadata ?? {},
    mode: "payment",
    payment_intent: null,
    payment_method_types: b.payment_method_types ?? ["card"],
    payment_status: "unpaid",
    status: "open",
    success_url: b.success_url,
    url: `${state.baseUrl}/c/pay/${id}`,
    __payment_intent_data: b.payment_intent_data ?? {}
  })
  state.checkoutSessions.set(id, session)
  return ok(session)
}

const expireSession = (state: StripeState, id: string): StandInAnswer => {
  const session = state.checkoutSessions.get(id)
  if (session === undefined) return missing("checkout.session", id, "session")
  if (session["status"] !== "open") {
    return invalid(`This Checkout Session is not in an expireable state.`, { code: "checkout_session_unexpected_state" })
  }
  Object.assign(session, { status: "expired", url: null })
  state.outbox.push(emit(state, "checkout.session.expired", session))
  return ok(session)
}

const get = (map: Map<string, Record<string, unknown>>, id: string, kind: string, param: string) => {
  const found = map.get(id)
  return found === undefined ? missing(kind, id, param) : ok(found)
}

/** What the stand-in answers, by operationId: its keys are the operations it serves (`served`). */
const routes: Record<string, (state: StripeState, request: StandInRequest, p: Readonly<Record<string, string>>) => StandInAnswer> = {
  PostPaymentIntents: (state, request) => createIntent(state, request),
  GetPaymentIntentsIntent: (state, _, p) => get(state.paymentIntents, p["intent"]!, "payment_intent", "intent"),
  PostPaymentIntentsIntentCancel: (state, request, p) => cancelIntent(state, p["intent"]!, request),
  GetPaymentIntents: (state) => list("/v1/payment_intents", state.paymentIntents.values()),
  PostRefunds: (state, request) => createRefund(state, request),
  GetRefundsRefund: (state, _, p) => get(state.refunds, p["refund"]!, "refund", "refund"),
  GetRefunds: (state, request) => {
    const pi = request.query["payment_intent"]
    return list("/v1/refunds", [...state.refunds.values()].filter((r) => pi === undefined || r["payment_intent"] === pi))
  },
  PostCheckoutSessions: (state, request) => createSession(state, request),
  GetCheckoutSessionsSession: (state, _, p) => get(state.checkoutSessions, p["session"]!, "checkout.session", "session"),
  PostCheckoutSessionsSessionExpire: (state, _, p) => expireSession(state, p["session"]!),
  GetCheckoutSessions: (state) => list("/v1/checkout/sessions", state.checkoutSessions.values()),
  GetEventsId: (state, _, p) => {
    const e = state.events.find((x) => x["id"] === p["id"])
    return e === undefined ? missing("event", p["id"]!, "id") : ok(e)
  }
}

/** The operations the stand-in serves: their checks compile when it starts (`StandIn.start`'s `serves`). */
export const served: ReadonlyArray<string> = Object.keys(routes)

/** The component schemas `emit` checks: the event and the objects events carry. */
export const emitted: ReadonlyArray<string> = ["event", "payment_intent", "checkout.session", "refund", "charge"]

const route = (state: StripeState, request: StandInRequest): StandInAnswer => {
  const handle = routes[request.operation.operationId]
  return handle === undefined
    ? invalid(`The stand-in does not serve ${request.operation.method} ${request.operation.template}.`)
    : handle(state, request, request.operation.pathParams)
}

/**
 * Answers a request. A POST with an `Idempotency-Key` seen before answers the first answer
 * again when the body is the same, and Stripe's `idempotency_error` when it is not.
 */
export const handlers = (state: StripeState, request: StandInRequest): StandInAnswer => {
  const key = request.headers["idempotency-key"]
  if (request.operation.method !== "POST" || key === undefined) return route(state, request)
  const fingerprint = `${request.operation.method} ${request.operation.template} ${JSON.stringify(request.operation.pathParams)} ${request.rawBody}`
  const seen = state.idempotency.get(key)
  if (seen !== undefined) {
    if (seen.fingerprint !== fingerprint) {
      return {
        status: 400,
        body: O.error(
          "idempotency_error",
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`
        )
      }
    }
    return { ...seen.answer, headers: { "idempotent-replayed": "true" } }
  }
  const answer = route(state, request)
  // Stripe keeps an answer for the key unless it was a 5xx (then the request may be retried).
  if (answer.status < 500) state.idempotency.set(key, { fingerprint, answer })
  return answer
}
