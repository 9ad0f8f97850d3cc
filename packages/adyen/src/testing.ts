/**
 * A stand-in of Adyen's Checkout API (v72) for integration tests, on the `StandIn` framework:
 * it serves HTTPS with the test certificate of `TestTls` (Adyen's SDK speaks HTTPS only), checks
 * every request's JSON body against Adyen's published OpenAPI description (a trimmed extract,
 * `src/standin/openapi-extract.json`), answers in the shapes of the description's examples,
 * and sends Adyen's standard notifications, each item signed with the endpoint's HMAC key by
 * the SDK's own `hmacValidator` and the whole checked against Adyen's Webhooks description.
 * The payer's side is driven by the test (`pay`, `failPayment`, `settleRefund`).
 * docs/providers/adyen.md.
 *
 * @since 0.1.0
 */
// The SDK is CommonJS whose exports Node cannot name statically: its namespace, then its members.
import Adyen from "@adyen/api-library"
import * as StandIn from "@tender/testing/StandIn"
import * as TestTls from "@tender/testing/TestTls"
import type { IncomingMessage } from "node:http"
import { type AdyenItem, type AdyenPayment, type AdyenRefund, type AdyenState, handlers, paymentItem, refundItem } from "./internal/standin/handlers.js"
import * as O from "./internal/standin/objects.js"

const { hmacValidator } = Adyen

export type { AdyenItem, AdyenPayment, AdyenRefund }

/** Where the stand-in sends notifications, and the HMAC key (hex) it signs their items with. @since 0.1.0 @category models */
export interface AdyenEndpoint {
  readonly url: string
  readonly hmacKey: string
}

/** A delivered notification request: its body and the endpoint's answer. @since 0.1.0 @category models */
export interface AdyenDelivery {
  readonly notification: Record<string, unknown>
  readonly status: number
  readonly body: string
}

/** A running Adyen stand-in. @since 0.1.0 @category models */
export interface AdyenStandIn extends StandIn.StandIn {
  /** The Checkout API version of the description it checks against (`v72`). */
  readonly apiVersion: string
  /** The base address for the adapter's `apiBase`: `url` with the version path. */
  readonly apiBase: string
  /** The test CA the stand-in's certificate is signed by (PEM), for the adapter's `ca`. */
  readonly ca: string
  readonly payments: ReadonlyMap<string, AdyenPayment>
  readonly refunds: ReadonlyMap<string, AdyenRefund>
  /** Every notification request sent, in order. */
  readonly notifications: ReadonlyArray<Record<string, unknown>>
  /** Sends notifications to this endpoint from now on. */
  readonly addEndpoint: (endpoint: AdyenEndpoint) => void
  /** The payer pays a pending payment: an AUTHORISATION item (success). */
  readonly pay: (pspReference: string) => Promise<ReadonlyArray<AdyenDelivery>>
  /** The payment is refused later: an AUTHORISATION item (no success) with Adyen's reason. */
  readonly failPayment: (pspReference: string, reason: string) => Promise<ReadonlyArray<AdyenDelivery>>
  /** The next payment is refused at once with Adyen's refusal reason and its code. */
  readonly refuseNextPayment: (refusal: { readonly refusalReason: string; readonly refusalReasonCode: string }) => void
  /** A received refund settles: a REFUND item (success, or not), or REFUND_FAILED. */
  readonly settleRefund: (pspReference: string, outcome?: "succeeded" | "failed" | "refund_failed") => Promise<ReadonlyArray<AdyenDelivery>>
  /** Sends the items the API calls caused (CANCELLATION), held until now, in one request. */
  readonly flush: () => Promise<ReadonlyArray<AdyenDelivery>>
  /** Sends items in one request, each signed, to every endpoint (Adyen batches them). */
  readonly notify: (items: ReadonlyArray<AdyenItem>, options?: { readonly live?: boolean }) => Promise<ReadonlyArray<AdyenDelivery>>
  /** The item of a payment's event, for `notify`. */
  readonly paymentItem: (pspReference: string, eventCode: string, success: boolean, reason?: string) => AdyenItem
}

/** The description the stand-in checks against, with the source commit it was extracted from. @since 0.1.0 @category models */
export const extract: O.AdyenExtract = O.extract

const precheck = (req: IncomingMessage) => {
  const key = req.headers["x-api-key"]
  if (typeof key !== "string" || key === "") {
    return { answer: { status: 401, body: O.serviceError(401, "000", "HTTP Status Response - Unauthorized", "security") }, problems: null }
  }
  return null
}

const signer = new hmacValidator()

/** A signed notification item, as Adyen sends it. */
const signed = (item: AdyenItem, hmacKey: string) => {
  const body = { ...item, eventDate: new Date().toISOString().replace(/\.\d{3}Z$/, "+00:00") }
  return { NotificationRequestItem: { ...body, additionalData: { hmacSignature: signer.calculateHmac(body as never, hmacKey) } } }
}

/**
 * Starts an Adyen stand-in on 127.0.0.1 over HTTPS. Point the adapter at it with
 * `apiBase: standIn.apiBase` and `ca: standIn.ca`, and assert `refusals` is empty after each test.
 * With `merchantAccount`, a request for another account is refused with Adyen's 403.
 *
 * @since 0.1.0 @category constructors
 */
export const start = async (options: { readonly endpoints?: ReadonlyArray<AdyenEndpoint>; readonly merchantAccount?: string } = {}): Promise<AdyenStandIn> => {
  const endpoints: Array<AdyenEndpoint> = [...(options.endpoints ?? [])]
  const state: AdyenState = {
    payments: new Map(),
    refunds: new Map(),
    idempotency: new Map(),
    refusals: [],
    outbox: [],
    merchantAccount: options.merchantAccount
  }
  const notifications: Array<Record<string, unknown>> = []
  let baseUrl = ""
  const standIn = await StandIn.start({
    name: "adyen",
    extract: O.extract,
    bodyFormat: "json",
    tls: { key: TestTls.key, cert: TestTls.cert },
    refusal: (problems, status) => O.serviceError(status, status >= 500 ? "000" : "702", problems.join("; "), status >= 500 ? "internal" : "validation"),
    precheck,
    handle: (request) => handlers(state, baseUrl, request),
    // Every operation of the extract is served; `notify` checks each item against its event's webhook schema.
    components: Object.values(O.extract.notifications)
  })
  baseUrl = standIn.url
  const api = StandIn.openApiOf(O.extract)

  const notify = async (items: ReadonlyArray<AdyenItem>, notifyOptions: { readonly live?: boolean } = {}): Promise<ReadonlyArray<AdyenDelivery>> => {
    const out: Array<AdyenDelivery> = []
    for (const endpoint of endpoints) {
      const notification = { live: notifyOptions.live === true ? "true" : "false", notificationItems: items.map((i) => signed(i, endpoint.hmacKey)) }
      // Each item against its own event's webhook schema (a batch mixes events).
      const problems = notification.notificationItems.flatMap((item) => {
        const schema = O.extract.notifications[item.NotificationRequestItem.eventCode]
        return schema === undefined
          ? [`the extract has no webhook schema for ${item.NotificationRequestItem.eventCode}`]
          : api.checkComponent(schema, { live: notification.live, notificationItems: [item] })
      })
      if (problems.length > 0) standIn.refusals.push({ kind: "response", method: "NOTIFICATION", path: endpoint.url, problems })
      notifications.push(notification)
      const res = await fetch(endpoint.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Adyen HttpPost Notification Service" },
        body: JSON.stringify(notification)
      })
      out.push({ notification, status: res.status, body: await res.text() })
    }
    return out
  }
  const payment = (psp: string) => {
    const p = state.payments.get(psp)
    if (p === undefined) throw new Error(`the stand-in holds no payment ${psp}`)
    if (p.resultCode !== "Pending" && p.resultCode !== "RedirectShopper") throw new Error(`payment ${psp} is ${p.resultCode}: the payer cannot pay it`)
    return p
  }

  return {
    ...standIn,
    apiVersion: O.extract.apiVersion,
    apiBase: `${standIn.url}/${O.extract.apiVersion}`,
    ca: TestTls.ca,
    payments: state.payments,
    refunds: state.refunds,
    notifications,
    addEndpoint: (endpoint) => endpoints.push(endpoint),
    refuseNextPayment: (refusal) => state.refusals.push(refusal),
    notify,
    flush: () => {
      const items = state.outbox.splice(0)
      return items.length === 0 ? Promise.resolve([]) : notify(items)
    },
    paymentItem: (psp, eventCode, success, reason) => {
      const p = state.payments.get(psp)
      if (p === undefined) throw new Error(`the stand-in holds no payment ${psp}`)
      return paymentItem(p, eventCode, success, reason)
    },
    pay: (psp) => {
      const p = payment(psp)
      p.resultCode = "Authorised"
      return notify([paymentItem(p, "AUTHORISATION", true)])
    },
    failPayment: (psp, reason) => {
      const p = payment(psp)
      Object.assign(p, { resultCode: "Refused", refusalReason: reason })
      return notify([paymentItem(p, "AUTHORISATION", false, reason)])
    },
    settleRefund: (psp, outcome = "succeeded") => {
      const refund = state.refunds.get(psp)
      if (refund === undefined || refund.status !== "received") throw new Error(`no received refund ${psp}`)
      refund.status = outcome === "succeeded" ? "succeeded" : "failed"
      if (outcome !== "succeeded") {
        const p = state.payments.get(refund.paymentPspReference)
        if (p !== undefined) p.refunded -= refund.amount.value
      }
      return notify([
        outcome === "refund_failed"
          ? refundItem(refund, "REFUND_FAILED", true, "Refund failed at the bank")
          : refundItem(refund, "REFUND", outcome === "succeeded", outcome === "succeeded" ? undefined : "Refund declined")
      ])
    }
  }
}
