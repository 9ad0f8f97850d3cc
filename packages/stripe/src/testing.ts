/**
 * A stand-in of Stripe's API for integration tests, on the `StandIn` framework: every request
 * Stripe's SDK sends is checked against Stripe's published OpenAPI description (a trimmed
 * extract of API version 2023-08-16, `src/standin/openapi-extract.json`); answers are
 * shaped like Stripe's published fixtures; notifications are signed with the SDK's own
 * `webhooks.generateTestHeaderString`. It keeps the state of payment intents (PromptPay: a QR
 * code to pay), Checkout Sessions, refunds and idempotency keys; the payer's side is driven by
 * the test (`pay`, `failPayment`, `completeCheckout`, `settleRefund`). docs/providers/stripe.md.
 *
 * @since 0.1.0
 */
import * as StandIn from "@tender/testing/StandIn"
import type { IncomingMessage } from "node:http"
import Stripe from "stripe"
import { emit, emitted, handlers, lastPaymentError, served, type StripeState, succeed } from "./internal/standin/handlers.js"
import * as O from "./internal/standin/objects.js"

/** Where the stand-in sends Stripe's notifications, and the endpoint secret it signs with. @since 0.1.0 @category models */
export interface StripeEndpoint {
  readonly url: string
  readonly secret: string
}

/** A delivered notification: the event and the endpoint's answer. @since 0.1.0 @category models */
export interface StripeDelivery {
  readonly event: Record<string, unknown>
  readonly status: number
  readonly body: string
}

/** A running Stripe stand-in. @since 0.1.0 @category models */
export interface StripeStandIn extends StandIn.StandIn {
  /** The API version of the description it checks against (`2023-08-16`). */
  readonly apiVersion: string
  readonly paymentIntents: ReadonlyMap<string, Record<string, unknown>>
  readonly checkoutSessions: ReadonlyMap<string, Record<string, unknown>>
  readonly refunds: ReadonlyMap<string, Record<string, unknown>>
  /** Every event, in order. */
  readonly events: ReadonlyArray<Record<string, unknown>>
  /** Sends events to this endpoint from now on. */
  readonly addEndpoint: (endpoint: StripeEndpoint) => void
  /** The payer pays a payment intent awaiting its action: `payment_intent.succeeded` (`amountReceived`: another amount than asked). */
  readonly pay: (paymentIntentId: string, options?: { readonly amountReceived?: number }) => Promise<ReadonlyArray<StripeDelivery>>
  /** The payment settles later: `payment_intent.processing`. */
  readonly process: (paymentIntentId: string) => Promise<ReadonlyArray<StripeDelivery>>
  /** The payment fails with Stripe's code: `payment_intent.payment_failed`. */
  readonly failPayment: (paymentIntentId: string, error: { code: string; declineCode?: string; message?: string }) => Promise<ReadonlyArray<StripeDelivery>>
  /** The payer pays a Checkout Session: its payment intent succeeds. */
  readonly completeCheckout: (sessionId: string) => Promise<ReadonlyArray<StripeDelivery>>
  /** A pending refund settles: `refund.updated` (and `charge.refunded` when it succeeded). */
  readonly settleRefund: (refundId: string, outcome?: "succeeded" | "failed") => Promise<ReadonlyArray<StripeDelivery>>
  /** The next confirmation is declined with Stripe's 402 `card_error`. */
  readonly declineNextConfirm: (error: { code: string; declineCode?: string; message?: string }) => void
  /** Sends the events the API calls caused (`payment_intent.canceled`, `refund.created`), held until now. */
  readonly flush: () => Promise<ReadonlyArray<StripeDelivery>>
  /** Sends one event (signed) to every endpoint, as Stripe would again on a retry. */
  readonly deliver: (event: Record<string, unknown>) => Promise<ReadonlyArray<StripeDelivery>>
}

/** The description the stand-in checks against, with the source commit it was extracted from. @since 0.1.0 @category models */
export const extract: O.StripeExtract = O.extract

const KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/

const precheck = (apiVersion: string) => (req: IncomingMessage) => {
  const auth = req.headers.authorization ?? ""
  const key = auth.startsWith("Bearer ") ? auth.slice(7) : ""
  if (!KEY.test(key)) {
    return {
      answer: { status: 401, body: O.error("invalid_request_error", "Invalid API Key provided.") },
      problems: null
    }
  }
  const version = req.headers["stripe-version"]
  if (version !== undefined && version !== apiVersion) {
    const problems = [`Stripe-Version ${String(version)}: the description is of API version ${apiVersion}`]
    return { answer: { status: 400, body: O.error("invalid_request_error", problems[0]!) }, problems }
  }
  return null
}

/**
 * Starts a Stripe stand-in on 127.0.0.1. Point the SDK at it with `host`, `port` and
 * `protocol: "http"`, and assert `refusals` is empty after each test.
 *
 * @since 0.1.0 @category constructors
 */
export const start = async (options: { readonly endpoints?: ReadonlyArray<StripeEndpoint> } = {}): Promise<StripeStandIn> => {
  const endpoints: Array<StripeEndpoint> = [...(options.endpoints ?? [])]
  const signer = new Stripe("sk_test_standin")
  const state: StripeState = {
    baseUrl: "",
    paymentIntents: new Map(),
    checkoutSessions: new Map(),
    refunds: new Map(),
    charges: new Map(),
    events: [],
    idempotency: new Map(),
    declines: [],
    outbox: [],
    selfCheck: (problems) => {
      if (problems.length > 0) standIn.refusals.push({ kind: "response", method: "EVENT", path: "", problems })
    }
  }
  const standIn = await StandIn.start({
    name: "stripe",
    extract: O.extract,
    refusal: (problems, status) =>
      O.error(status >= 500 ? "api_error" : "invalid_request_error", problems.join("; "), status === 404 ? { code: "resource_missing" } : {}),
    precheck: precheck(O.extract.apiVersion),
    handle: (request) => handlers(state, request),
    serves: served,
    components: emitted
  })
  state.baseUrl = standIn.url

  const deliver = async (event: Record<string, unknown>): Promise<ReadonlyArray<StripeDelivery>> => {
    const out: Array<StripeDelivery> = []
    for (const endpoint of endpoints) {
      const payload = JSON.stringify(event, null, 2)
      const header = signer.webhooks.generateTestHeaderString({ payload, secret: endpoint.secret })
      const res = await fetch(endpoint.url, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": header,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
        },
        body: payload
      })
      out.push({ event, status: res.status, body: await res.text() })
    }
    return out
  }
  const emitAll = async (events: ReadonlyArray<Record<string, unknown>>) => {
    const out: Array<StripeDelivery> = []
    for (const e of events) out.push(...await deliver(e))
    return out
  }
  const intent = (id: string) => {
    const pi = state.paymentIntents.get(id)
    if (pi === undefined) throw new Error(`the stand-in holds no payment intent ${id}`)
    return pi
  }
  const payable = (pi: Record<string, unknown>) => {
    if (pi["status"] !== "requires_action" && pi["status"] !== "processing") {
      throw new Error(`payment intent ${String(pi["id"])} is ${String(pi["status"])}: the payer cannot pay it`)
    }
  }

  return {
    ...standIn,
    apiVersion: O.extract.apiVersion,
    paymentIntents: state.paymentIntents,
    checkoutSessions: state.checkoutSessions,
    refunds: state.refunds,
    events: state.events,
    addEndpoint: (endpoint) => endpoints.push(endpoint),
    deliver,
    flush: () => emitAll(state.outbox.splice(0)),
    declineNextConfirm: (error) => state.declines.push(error),
    pay: (id, options) => {
      const pi = intent(id)
      payable(pi)
      return emitAll(succeed(state, pi, options?.amountReceived))
    },
    process: (id) => {
      const pi = intent(id)
      payable(pi)
      // `processing` details exist for cards only in this API version.
      Object.assign(pi, { status: "processing", next_action: null, processing: null })
      return emitAll([emit(state, "payment_intent.processing", pi)])
    },
    failPayment: (id, error) => {
      const pi = intent(id)
      payable(pi)
      Object.assign(pi, {
        status: "requires_payment_method",
        next_action: null,
        last_payment_error: lastPaymentError(error)
      })
      return emitAll([emit(state, "payment_intent.payment_failed", pi)])
    },
    completeCheckout: (sessionId) => {
      const session = state.checkoutSessions.get(sessionId)
      if (session === undefined || session["status"] !== "open") throw new Error(`no open Checkout Session ${sessionId}`)
      const data = (session["__payment_intent_data"] ?? {}) as Record<string, unknown>
      const pi = O.paymentIntent({
        amount: session["amount_total"] as number,
        currency: session["currency"] as string,
        livemode: session["livemode"] as boolean,
        metadata: (data["metadata"] ?? {}) as Record<string, unknown>,
        paymentMethodTypes: ["card"],
        description: null,
        receiptEmail: null
      })
      state.paymentIntents.set(pi["id"] as string, pi)
      Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: pi["id"] })
      return emitAll([emit(state, "checkout.session.completed", session), ...succeed(state, pi)])
    },
    settleRefund: (refundId, outcome = "succeeded") => {
      const re = state.refunds.get(refundId)
      if (re === undefined || re["status"] !== "pending") throw new Error(`no pending refund ${refundId}`)
      const events = []
      if (outcome === "succeeded") {
        re["status"] = "succeeded"
        events.push(emit(state, "refund.updated", re))
        const ch = state.charges.get(re["charge"] as string)
        if (ch !== undefined) {
          ch["amount_refunded"] = (ch["amount_refunded"] as number) + (re["amount"] as number)
          ch["refunded"] = ch["amount_refunded"] === ch["amount"]
          events.push(emit(state, "charge.refunded", ch))
        }
      } else {
        Object.assign(re, { status: "failed", failure_reason: "unknown" })
        events.push(emit(state, "refund.updated", re))
      }
      return emitAll(events)
    }
  }
}
