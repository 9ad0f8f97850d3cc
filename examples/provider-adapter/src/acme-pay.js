/**
 * The Acme Pay adapter again, in plain JavaScript with Promises (docs/provider-adapters.md,
 * "Without Effect"): the same provider as `AcmePay.ts`, written as a host team without
 * Effect would write it, and wrapped into Tender's Provider port by `defineProvider`.
 *
 * A thrown error means Acme could not be reached or answered with a fault: Tender counts it
 * against the route's health and routes elsewhere (or answers 422 `routing_unavailable`). A
 * decline is an answer (`{ _tag: "Declined" }`), never a throw.
 */
import { defineProvider } from "@tender/server"
import { tenderCodeOf } from "./acme-failures.js"
import { methods } from "./acme-methods.js"

/**
 * @param {{ apiKey: string, baseUrl: string, timeoutMillis?: number }} options
 *   `timeoutMillis` below Tender's 20 s provider timeout, so a slow call is abandoned on the wire.
 */
export const acmePay = ({ apiKey, baseUrl, timeoutMillis = 15_000 }) => {
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
        return { _tag: "Declined", providerPaymentId: charge.id, failureCode, failureMessage }
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

    async refund(refund, { signal }) {
      const result = await acme("POST", `${chargePath(refund.payment)}/refunds`, refund.refundId, { reference: refund.refundId, amount: refund.amount }, signal)
      if (result.status === "succeeded") return { _tag: "Succeeded" }
      if (result.status === "pending") return { _tag: "Pending" }
      return { _tag: "Failed", failureCode: tenderCodeOf(result.failure_code, "refund_failed"), failureMessage: "Acme could not refund the payment." }
    }
  })
}
