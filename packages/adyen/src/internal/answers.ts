/**
 * Adyen's answers read as Tender's: a `resultCode` (and refusal reason) as the port's one update
 * type, and a payment's answer (its action: a QR code or a redirect) as a create's result.
 */
import type { Types } from "@adyen/api-library"
import type { ProviderPaymentResult, ProviderPaymentStatus } from "@tender/core/Provider"
import { failure } from "@tender/core/ProviderKit"
import { failureOf } from "./failures.js"

/** A payment's status from Adyen's `resultCode` (and refusal reason). */
export const statusOf = (resultCode: string | undefined, refusalReasonCode?: string, refusalReason?: string): ProviderPaymentStatus => {
  switch (resultCode) {
    case "Authorised":
      return { _tag: "Succeeded" }
    case "Received":
      return { _tag: "Processing" }
    case "Refused":
    case "Error":
      return { _tag: "Failed", ...failureOf(refusalReasonCode, refusalReason) }
    case "Cancelled":
      return { _tag: "Failed", ...failure("payment_expired") }
    default:
      return { _tag: "Pending" }
  }
}

// Adyen names no expiry for a bank redirect; the bank's session is shorter than Tender's own expiry.
const REDIRECT_TTL_MS = 30 * 60 * 1000

/** A create's result from Adyen's answer, at `now` (epoch ms). */
export const resultOf = (response: Types.checkout.PaymentResponse, now: number): ProviderPaymentResult => {
  const psp = response.pspReference
  if (psp === undefined) return { _tag: "Failed", providerPaymentId: null, ...failureOf(response.refusalReasonCode, response.refusalReason) }
  const action = response.action as Record<string, unknown> | undefined
  if (action?.["type"] === "qrCode" && typeof action["qrCodeData"] === "string") {
    const expiresAt = typeof action["expiresAt"] === "string" ? new Date(action["expiresAt"]) : null
    return {
      _tag: "Action",
      providerPaymentId: psp,
      nextAction: {
        type: "display_qr_code",
        qr_data: action["qrCodeData"],
        ...(typeof action["url"] === "string" ? { qr_image_url: action["url"] } : {}),
        ...(expiresAt === null || Number.isNaN(expiresAt.getTime()) ? {} : { expires_at: expiresAt.toISOString() })
      }
    }
  }
  if (action?.["type"] === "redirect" && typeof action["url"] === "string") {
    return {
      _tag: "Action",
      providerPaymentId: psp,
      nextAction: { type: "redirect_to_url", url: action["url"], expires_at: new Date(now + REDIRECT_TTL_MS).toISOString() }
    }
  }
  const s = statusOf(response.resultCode, response.refusalReasonCode, response.refusalReason)
  return s._tag === "Failed" ? { ...s, providerPaymentId: psp } : { _tag: "Processing", providerPaymentId: psp }
}
