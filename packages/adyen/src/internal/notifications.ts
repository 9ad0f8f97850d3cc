/**
 * Adyen's standard notifications (D11): one request carries several items, each signed on its
 * own with the endpoint's HMAC key (verified with the SDK's `hmacValidator`), each its own
 * notice, deduplicated by Adyen's `pspReference` and event code. Every item must verify, or the
 * request is refused whole and nothing is stored. Adyen expects `[accepted]` in answer. Our ids
 * come back as `merchantReference`: the payment intent's for a payment, the refund's for a refund.
 */
// The SDK is CommonJS whose exports Node cannot name statically: its namespace, then its members.
import Adyen from "@adyen/api-library"
import { failure } from "@tender/core/ProviderKit"
import {
  type NotificationAnswer,
  NotificationUnverified,
  type ParsedNotification,
  type ProviderNotice,
  type ProviderNotificationRequest
} from "@tender/core/ProviderNotification"
import type { Environment } from "@tender/core/Schemas"
import { Effect } from "effect"
import { failureOf } from "./failures.js"

const { hmacValidator } = Adyen

/** What Adyen expects back: 200 with the text `[accepted]`. */
export const acceptedAnswer: NotificationAnswer = { status: 200, contentType: "text/plain", body: "[accepted]" }

/** One item as Adyen sends it (the fields the adapter reads). */
interface Item {
  readonly pspReference: string
  readonly originalReference?: string | undefined
  readonly merchantReference: string
  readonly eventCode: string
  readonly success: string
  readonly reason?: string | undefined
  readonly amount: { readonly value: number; readonly currency: string }
  readonly additionalData?: Readonly<Record<string, string>> | undefined
}

/** Absent, or text: a signed item whose optional fields have another shape is not Adyen's (400), never read as one. */
const optionalString = (u: unknown): boolean => u === undefined || typeof u === "string"

const isItem = (x: unknown): x is Item => {
  if (x === null || typeof x !== "object") return false
  const i = x as Record<string, unknown>
  const amount = i["amount"] as Record<string, unknown> | undefined
  return typeof i["pspReference"] === "string" && typeof i["eventCode"] === "string" && typeof i["success"] === "string" &&
    typeof i["merchantReference"] === "string" && optionalString(i["originalReference"]) && optionalString(i["reason"]) &&
    amount !== null && typeof amount === "object" &&
    Number.isSafeInteger(amount["value"]) && typeof amount["currency"] === "string"
}

/** The items of a body, or null when it is not Adyen's notification shape. */
const itemsOf = (body: Uint8Array): { live: boolean; items: ReadonlyArray<Item> } | null => {
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"))
  } catch {
    return null
  }
  const wrappers = (json as { notificationItems?: unknown } | null)?.notificationItems
  if (!Array.isArray(wrappers) || wrappers.length === 0) return null
  const items = wrappers.map((w) => (w as { NotificationRequestItem?: unknown } | null)?.NotificationRequestItem)
  if (!items.every(isItem)) return null
  return { live: (json as { live?: unknown }).live === "true", items }
}

/** Adyen's refusal reason text may carry its code: `"Not enough balance"` or `"12:Not enough balance"`. */
const reasonOf = (reason: string | undefined) => {
  const m = /^(\d+)\s*:\s*(.*)$/.exec(reason ?? "")
  return m === null ? failureOf(null, reason) : failureOf(m[1], m[2])
}

/** The notice of one verified item. */
export const noticeOf = (item: Item, environment: Environment): ProviderNotice => {
  const eventId = `${item.pspReference}:${item.eventCode}`
  const success = item.success === "true"
  const payment = { eventId, providerPaymentId: item.pspReference, paymentIntentId: item.merchantReference, environment }
  switch (item.eventCode) {
    case "AUTHORISATION":
      return success
        ? { _tag: "PaymentSucceeded", ...payment, amount: String(item.amount.value), currency: item.amount.currency }
        : { _tag: "PaymentFailed", ...payment, ...reasonOf(item.reason) }
    case "CANCELLATION":
    case "OFFER_CLOSED":
      // A cancel Adyen refused leaves the payment as it was: its AUTHORISATION tells the rest.
      return success
        ? { _tag: "PaymentFailed", ...payment, ...failure("payment_expired") }
        : { _tag: "Ignored", eventId }
    case "REFUND":
    case "REFUND_FAILED": {
      const refund = {
        eventId,
        refundId: item.merchantReference,
        providerRefundId: item.pspReference,
        providerPaymentId: item.originalReference ?? null,
        environment
      }
      return success && item.eventCode === "REFUND"
        ? { _tag: "RefundSucceeded", ...refund }
        : { _tag: "RefundFailed", ...refund, ...failure("refund_failed") }
    }
    default:
      return { _tag: "Ignored", eventId }
  }
}

const validator = new hmacValidator()

const verifies = (item: Item, keys: ReadonlyArray<string>): boolean =>
  keys.some((key) => {
    try {
      return validator.validateHMAC(item as never, key)
    } catch {
      // No signature, or a key that is not hex.
      return false
    }
  })

/** Verifies every item with one of the HMAC keys and reads each as a notice. */
export const parse = (keys: ReadonlyArray<string>) => (request: ProviderNotificationRequest): Effect.Effect<ParsedNotification, NotificationUnverified> =>
  Effect.suspend(() => {
    const parsed = itemsOf(request.body)
    if (parsed === null) return Effect.fail(new NotificationUnverified({ provider: "adyen", reason: "the body is not an Adyen notification" }))
    const bad = parsed.items.findIndex((item) => !verifies(item, keys))
    if (bad !== -1) {
      return Effect.fail(new NotificationUnverified({ provider: "adyen", reason: `item ${bad}'s hmacSignature does not verify with any HMAC key` }))
    }
    const environment: Environment = parsed.live ? "live" : "test"
    return Effect.succeed({ notices: parsed.items.map((item) => noticeOf(item, environment)), answer: acceptedAnswer })
  })
