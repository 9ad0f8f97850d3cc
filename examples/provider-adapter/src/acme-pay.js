/**
 * The Acme Pay adapter again, in plain JavaScript with Promises (docs/provider-adapters.md,
 * "Without Effect"): the same provider as `AcmePay.ts`, written as a host team without
 * Effect would write it, and wrapped into Tender's Provider port by `defineProvider`.
 *
 * A thrown error means Acme could not be reached or answered with a fault: Tender counts it
 * against the route's health and routes elsewhere (or answers 422 `routing_unavailable`). A
 * decline is an answer (`{ _tag: "Failed" }`), never a throw. In `parseNotification` a throw
 * means the notification could not be verified: Tender answers 400 and stores nothing.
 *
 * Every capability of the port: create, confirm, status, refund, cancel (D10) and Acme's signed
 * notifications (D11). It passes @tender/testing's provider contract suite
 * (test/contract.test.ts).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { defineProvider } from "@tender/server"
import { tenderCodeOf } from "./acme-failures.js"
import { methods } from "./acme-methods.js"

/** How old a notification's signed timestamp may be: an older one is a replay. */
const toleranceSeconds = 300

/**
 * Verify Acme's `acme-signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`)
 * over the exact bytes received; throws when it does not verify.
 *
 * @param {string | undefined} header
 * @param {Uint8Array} body
 * @param {string} secret
 */
const verify = (header, body, secret) => {
  const parts = Object.fromEntries((header ?? "").split(",").map((p) => /** @type {[string, string]} */ (p.split("=", 2))))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || parts.v1 === undefined) throw new Error("acme: no signature")
  if (Math.abs(Date.now() / 1000 - t) > toleranceSeconds) throw new Error("acme: the signature is too old")
  const expected = createHmac("sha256", secret).update(`${t}.`).update(body).digest()
  const given = Buffer.from(parts.v1, "hex")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error("acme: the signature does not match")
}

/**
 * @param {{ apiKey: string, baseUrl: string, webhookSecret?: string, timeoutMillis?: number }} options
 *   `timeoutMillis` below Tender's 20 s provider timeout, so a slow call is abandoned on the wire;
 *   `webhookSecret` verifies Acme's notifications (without it the adapter takes none).
 */
export const acmePay = ({ apiKey, baseUrl, webhookSecret, timeoutMillis = 15_000 }) => {
  /**
   * One call to Acme. Tender's id (the intent's, or the refund's) is Acme's idempotency key: a
   * retried task cannot pay or refund twice. `signal` fires when Tender stops waiting.
   */
  const acme = async (method, path, idempotencyKey, body, signal) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMillis)])
    })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    return res.json()
  }
  /** Acme's charge as Tender reads a payment's status; a body Acme never sends is an outage. */
  const status = (charge) => {
    switch (charge?.status) {
      case "paid":
        // What the payer paid: Tender checks it against the intent's amount (D11).
        return { _tag: "Succeeded", amount: charge.amount_paid ?? null }
      case "pending":
        return { _tag: "Pending" }
      case "declined":
        // Tender's words, never Acme's: its codes and messages stay inside the adapter (D11).
        return { _tag: "Failed", failureCode: tenderCodeOf(charge.decline_code, "payment_declined"), failureMessage: "Acme declined the payment." }
      case "canceled":
        // Ended unpaid at Acme: the payer can no longer pay it.
        return { _tag: "Failed", failureCode: "payment_expired", failureMessage: "The payer did not pay in time." }
      default:
        throw new Error("unexpected body")
    }
  }
  const chargePath = (payment) => `/v1/charges/${encodeURIComponent(payment.providerPaymentId)}`

  return defineProvider({
    code: "acme",
    methods,

    async createPayment(request, { signal }) {
      // Acme is configured for live payments only (methods): a test one never reaches it.
      if (request.environment !== "live") throw new Error(`Acme serves live payments only, not ${request.environment}`)
      const charge = await acme("POST", "/v1/charges", request.paymentIntentId, {
        reference: request.paymentIntentId,
        method: request.providerMethod,
        amount: request.amount,
        currency: request.currency,
        payer_name: request.customer.name ?? null
      }, signal)
      if (charge.status === "declined") {
        const { failureCode, failureMessage } = status(charge)
        return { _tag: "Failed", providerPaymentId: charge.id, failureCode, failureMessage }
      }
      return charge.qr_payload === undefined || charge.status === "paid"
        ? { _tag: "Processing", providerPaymentId: charge.id }
        : { _tag: "Action", providerPaymentId: charge.id, nextAction: { type: "display_qr_code", qr_data: charge.qr_payload } }
    },

    async confirmPayment(payment, { signal }) {
      return status(await acme("POST", `${chargePath(payment)}/confirm`, payment.paymentIntentId, {}, signal))
    },

    async getPaymentStatus(payment, { signal }) {
      return status(await acme("GET", chargePath(payment), payment.paymentIntentId, undefined, signal))
    },

    // D10: Tender's cancel, told to Acme so the QR code can no longer be paid; our intent id is
    // the idempotency key, so a cancel task run twice answers the same.
    async cancelPayment(payment, { signal }) {
      const charge = await acme("POST", `${chargePath(payment)}/cancel`, payment.paymentIntentId, {}, signal)
      if (charge.status === "canceled") return { _tag: "Canceled" }
      if (charge.status === "paid") return { _tag: "Succeeded", amount: charge.amount_paid ?? null }
      throw new Error(`Acme left the charge ${charge.status}`)
    },

    async refund(refund, { signal }) {
      const result = await acme("POST", `${chargePath(refund.payment)}/refunds`, refund.refundId, { reference: refund.refundId, amount: refund.amount }, signal)
      if (result.status === "succeeded") return { _tag: "Succeeded" }
      if (result.status === "pending") return { _tag: "Pending" }
      return { _tag: "Failed", failureCode: tenderCodeOf(result.failure_code, "refund_failed"), failureMessage: "Acme could not refund the payment." }
    },

    // D11: Acme's notification, verified over the exact bytes, read into Tender's notices.
    ...(webhookSecret === undefined ? {} : {
      async parseNotification(request) {
        verify(request.headers["acme-signature"], request.body, webhookSecret)
        const event = JSON.parse(Buffer.from(request.body).toString("utf8"))
        const charge = event.data
        const common = { eventId: event.id, providerPaymentId: charge.id, paymentIntentId: charge.reference ?? null, environment: event.livemode ? "live" : "test" }
        /** @type {import("@tender/core").ProviderNotification.ProviderNotice} */
        const notice = event.type === "charge.paid"
          ? { _tag: "PaymentSucceeded", ...common, amount: charge.amount ?? null, currency: charge.currency ?? null }
          : event.type === "charge.canceled"
          ? { _tag: "PaymentFailed", ...common, failureCode: "payment_expired", failureMessage: "The payer did not pay in time." }
          : event.type === "charge.declined"
          ? { _tag: "PaymentFailed", ...common, failureCode: tenderCodeOf(charge.decline_code ?? undefined, "payment_declined"), failureMessage: "Acme declined the payment." }
          : { _tag: "Ignored", eventId: event.id }
        return { notices: [notice], answer: { status: 200, contentType: "application/json", body: "{\"received\":true}" } }
      }
    })
  })
}
