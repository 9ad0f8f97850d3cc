/**
 * What the Adyen stand-in does with a request the description allowed: PromptPay payments (a
 * QR code to pay), Thai online banking (a redirect to the bank), cancels and refunds by the
 * payment's pspReference, with Adyen's idempotency rules. Outcomes Adyen tells later (a
 * cancel's, a refund's) are held as notification items until the test sends them.
 */
import type { StandInAnswer, StandInRequest } from "@tender/testing/StandIn"
import * as O from "./objects.js"

/** A payment as the stand-in holds it. */
export interface AdyenPayment {
  readonly pspReference: string
  readonly merchantAccount: string
  readonly merchantReference: string
  readonly amount: { readonly value: number; readonly currency: string }
  readonly paymentMethod: Readonly<Record<string, unknown>>
  readonly returnUrl: string
  resultCode: "Pending" | "RedirectShopper" | "Authorised" | "Refused" | "Cancelled"
  refusalReason: string | null
  /** The payer action Adyen answered with (a `qrCode` or a `redirect`), if any. */
  action: Readonly<Record<string, unknown>> | null
  /** Refunded or being refunded, minor units. */
  refunded: number
}

/** A refund as the stand-in holds it. */
export interface AdyenRefund {
  readonly pspReference: string
  readonly paymentPspReference: string
  readonly merchantAccount: string
  readonly reference: string | null
  readonly amount: { readonly value: number; readonly currency: string }
  status: "received" | "succeeded" | "failed"
}

/** A notification item before it is signed. */
export interface AdyenItem {
  readonly pspReference: string
  readonly originalReference?: string | undefined
  readonly merchantAccountCode: string
  readonly merchantReference: string
  readonly eventCode: string
  readonly success: "true" | "false"
  readonly reason?: string | undefined
  readonly amount: { readonly value: number; readonly currency: string }
  readonly paymentMethod?: string | undefined
}

/** The stand-in's state. */
export interface AdyenState {
  readonly payments: Map<string, AdyenPayment>
  readonly refunds: Map<string, AdyenRefund>
  /** Idempotency-Key → the request it was first used with and the answer given. */
  readonly idempotency: Map<string, { readonly fingerprint: string; readonly answer: StandInAnswer }>
  /** Refusals the test queued for the next payments. */
  readonly refusals: Array<{ readonly refusalReason: string; readonly refusalReasonCode: string }>
  /** Items the API calls caused (CANCELLATION), sent when the test flushes. */
  readonly outbox: Array<AdyenItem>
  /** The merchant account the stand-in knows, when the test set one. */
  readonly merchantAccount: string | undefined
}

/** The Thai online banking issuers the stand-in knows (Adyen's MOLPay ids). */
export const issuers = ["molpay_bangkokbank", "molpay_kbank", "molpay_krungthaibank", "molpay_scb", "molpay_krungsribank"]

const unprocessable = (errorCode: string, message: string): StandInAnswer => ({ status: 422, body: O.serviceError(422, errorCode, message) })

/** The item of a payment's event. */
export const paymentItem = (payment: AdyenPayment, eventCode: string, success: boolean, reason?: string): AdyenItem => ({
  pspReference: payment.pspReference,
  merchantAccountCode: payment.merchantAccount,
  merchantReference: payment.merchantReference,
  eventCode,
  success: success ? "true" : "false",
  ...(reason === undefined ? {} : { reason }),
  amount: payment.amount,
  paymentMethod: String(payment.paymentMethod["type"])
})

/** The item of a refund's event. */
export const refundItem = (refund: AdyenRefund, eventCode: string, success: boolean, reason?: string): AdyenItem => ({
  pspReference: refund.pspReference,
  originalReference: refund.paymentPspReference,
  merchantAccountCode: refund.merchantAccount,
  merchantReference: refund.reference ?? "",
  eventCode,
  success: success ? "true" : "false",
  ...(reason === undefined ? {} : { reason }),
  amount: refund.amount
})

const createPayment = (state: AdyenState, baseUrl: string, b: Record<string, any>): StandInAnswer => {
  const method = b["paymentMethod"] as Record<string, unknown>
  const type = method["type"]
  if (type !== "promptpay" && type !== "molpay_ebanking_TH") return unprocessable("905", `Payment details are not supported: ${String(type)}`)
  if (b["amount"].currency !== "THB") return unprocessable("138", "Invalid currency specified")
  if (type === "molpay_ebanking_TH" && !issuers.includes(String(method["issuer"]))) return unprocessable("905", "Invalid issuer")
  const payment: AdyenPayment = {
    pspReference: O.pspReference(),
    merchantAccount: b["merchantAccount"],
    merchantReference: b["reference"],
    amount: { value: b["amount"].value, currency: b["amount"].currency },
    paymentMethod: method,
    returnUrl: b["returnUrl"],
    resultCode: type === "promptpay" ? "Pending" : "RedirectShopper",
    refusalReason: null,
    action: null,
    refunded: 0
  }
  state.payments.set(payment.pspReference, payment)
  const base = { pspReference: payment.pspReference, merchantReference: payment.merchantReference, amount: payment.amount }
  const refusal = state.refusals.shift()
  if (refusal !== undefined) {
    Object.assign(payment, { resultCode: "Refused", refusalReason: refusal.refusalReason })
    return { status: 200, body: { ...base, resultCode: "Refused", refusalReason: refusal.refusalReason, refusalReasonCode: refusal.refusalReasonCode } }
  }
  if (type === "promptpay") {
    const qrCodeData = O.promptPayPayload(payment.amount.value, payment.pspReference)
    const action = {
      type: "qrCode",
      paymentMethodType: "promptpay",
      qrCodeData,
      url: `https://test.adyen.com/hpp/generateQRCodeImage.shtml?url=${encodeURIComponent(qrCodeData)}`,
      expiresAt: new Date(Date.now() + 15 * 60 * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")
    }
    payment.action = action
    return { status: 200, body: { ...base, resultCode: "Pending", action } }
  }
  // The shape of the description's `ideal` redirect example, to the stand-in's bank page address.
  const action = {
    ...(O.example("post-payments", "200", "ideal")["action"] as object),
    paymentMethodType: type,
    url: `${baseUrl}/hpp/bank/${payment.pspReference}`,
    method: "GET"
  }
  payment.action = action
  return { status: 200, body: { ...base, resultCode: "RedirectShopper", action } }
}

const modification = (state: AdyenState, psp: string, b: Record<string, any>, kind: "cancel" | "refund"): StandInAnswer => {
  const payment = state.payments.get(psp)
  if (payment === undefined || payment.merchantAccount !== b["merchantAccount"]) {
    return unprocessable("167", "Original pspReference required for this operation")
  }
  const pspReference = O.pspReference()
  const common = {
    merchantAccount: payment.merchantAccount,
    paymentPspReference: psp,
    pspReference,
    ...(b["reference"] === undefined ? {} : { reference: b["reference"] }),
    status: "received"
  }
  if (kind === "cancel") {
    const cancelable = payment.resultCode === "Pending" || payment.resultCode === "RedirectShopper"
    if (cancelable) payment.resultCode = "Cancelled"
    state.outbox.push({ ...paymentItem(payment, "CANCELLATION", cancelable, cancelable ? undefined : "Payment is not cancelable"), pspReference: psp })
    return { status: 201, body: common }
  }
  if (payment.resultCode !== "Authorised") return unprocessable("167", "Original pspReference required for this operation")
  if (b["amount"].currency !== payment.amount.currency) return unprocessable("138", "Invalid currency specified")
  if (b["amount"].value <= 0 || payment.refunded + b["amount"].value > payment.amount.value) return unprocessable("137", "Invalid amount specified")
  payment.refunded += b["amount"].value
  const refund: AdyenRefund = {
    pspReference,
    paymentPspReference: psp,
    merchantAccount: payment.merchantAccount,
    reference: b["reference"] ?? null,
    amount: b["amount"],
    status: "received"
  }
  state.refunds.set(pspReference, refund)
  return { status: 201, body: { ...common, amount: refund.amount } }
}

const route = (state: AdyenState, baseUrl: string, request: StandInRequest): StandInAnswer => {
  const b = request.body as Record<string, any>
  if (state.merchantAccount !== undefined && b["merchantAccount"] !== state.merchantAccount) {
    return { status: 403, body: O.serviceError(403, "901", "Invalid Merchant Account", "security") }
  }
  const psp = request.operation.pathParams["paymentPspReference"] ?? ""
  switch (request.operation.operationId) {
    case "post-payments":
      return createPayment(state, baseUrl, b)
    case "post-payments-paymentPspReference-cancels":
      return modification(state, psp, b, "cancel")
    case "post-payments-paymentPspReference-refunds":
      return modification(state, psp, b, "refund")
    default:
      return unprocessable("000", `the stand-in does not serve ${request.operation.operationId}`)
  }
}

/** Handles a request, replaying the first answer of a repeated Idempotency-Key (Adyen's rule). */
export const handlers = (state: AdyenState, baseUrl: string, request: StandInRequest): StandInAnswer => {
  const key = request.headers["idempotency-key"]
  const fingerprint = `${request.operation.method} ${request.operation.template} ${JSON.stringify(request.operation.pathParams)} ${request.rawBody}`
  if (key !== undefined) {
    const known = state.idempotency.get(key)
    if (known !== undefined) {
      return known.fingerprint === fingerprint
        ? { ...known.answer, headers: { "idempotent-replayed": "true" } }
        : unprocessable("704", "The Idempotency-Key was used with a different request")
    }
  }
  const answer = route(state, baseUrl, request)
  // Only a processed request is kept: a refused one may be sent again, as at Adyen.
  if (key !== undefined && answer.status < 400) state.idempotency.set(key, { fingerprint, answer })
  return answer
}
