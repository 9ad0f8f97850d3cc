/**
 * The simulator's notifications (D11, docs/test-environment.md), public in `Simulator`: a
 * JSON event signed as Stripe signs its own, `tender-simulator-signature: t=<unix seconds>,
 * v1=<hex HMAC-SHA256(secret, t + "." + body)>`, so the whole notification path can be walked
 * in test mode, and tests sign one with `signNotification`.
 */
import { Clock, Effect, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { failure } from "../../providers/internal/providerFailures.js"
import type { ParsedNotification, ProviderNotice, ProviderNotificationRequest } from "../../providers/ProviderNotification.js"
import { NotificationUnverified, receivedAnswer } from "../../providers/ProviderNotification.js"
import { code } from "./simulator.js"

/** `Simulator.signatureHeader`. */
export const signatureHeader = "tender-simulator-signature"

/** `Simulator.defaultNotificationSecret`. */
export const defaultNotificationSecret = "simulator_notification_test_secret"

/** `Simulator.signatureToleranceSeconds`. */
export const signatureToleranceSeconds = 300

/** `Simulator.SimulatorEvent`. */
export const SimulatorEvent = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)),
  type: Schema.String,
  livemode: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  data: Schema.optionalWith(
    Schema.Struct({
      payment_intent: Schema.optional(Schema.String),
      provider_payment_id: Schema.optional(Schema.String),
      amount: Schema.optional(Schema.String),
      currency: Schema.optional(Schema.String),
      refund: Schema.optional(Schema.String),
      provider_refund_id: Schema.optional(Schema.String),
      payout_intent: Schema.optional(Schema.String),
      provider_payout_id: Schema.optional(Schema.String),
      failure_code: Schema.optional(Schema.String),
      failure_message: Schema.optional(Schema.String)
    }),
    { default: () => ({}) }
  )
})
/** `Simulator.SimulatorEvent`, as sent. */
export type SimulatorEvent = typeof SimulatorEvent.Encoded

const hmac = (secret: string, timestamp: number, body: Uint8Array) => createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")

/** `Simulator.signNotification`. */
export const signNotification = (options: {
  readonly body: string | Uint8Array
  readonly secret?: string | undefined
  readonly timestamp?: number | undefined
}): string => {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
  const body = typeof options.body === "string" ? Buffer.from(options.body) : options.body
  return `t=${timestamp},v1=${hmac(options.secret ?? defaultNotificationSecret, timestamp, body)}`
}

const unverified = (reason: string) => new NotificationUnverified({ provider: code, reason })

/** Whether one of the header's `v1` signatures is ours over `t` and the body, within the tolerance of `now`. */
const verify = (header: string | undefined, body: Uint8Array, secret: string, nowSeconds: number) => {
  if (header === undefined) return unverified(`no ${signatureHeader} header`)
  const parts = header.split(",").map((p) => p.trim().split("="))
  const t = Number(parts.find(([k]) => k === "t")?.[1])
  if (!Number.isSafeInteger(t)) return unverified("the signature has no timestamp")
  if (Math.abs(nowSeconds - t) > signatureToleranceSeconds) return unverified("the signature's timestamp is outside the tolerance")
  const expected = Buffer.from(hmac(secret, t, body), "hex")
  const matches = parts.some(([k, v]) => {
    if (k !== "v1" || v === undefined || !/^[0-9a-f]{64}$/.test(v)) return false
    return timingSafeEqual(Buffer.from(v, "hex"), expected)
  })
  return matches ? undefined : unverified("no signature matches")
}

// An event without a failure of its own is the general decline.
const failureOf = (data: SimulatorEvent["data"]) => {
  const declined = failure("payment_declined")
  return { failureCode: data?.failure_code ?? declined.failureCode, failureMessage: data?.failure_message ?? declined.failureMessage }
}

/** The notice an event says, by its type; a type Tender does not act on is `Ignored`. */
const noticeOf = (event: typeof SimulatorEvent.Type): ProviderNotice => {
  const d = event.data
  const environment = event.livemode ? "live" as const : "test" as const
  const payment = { eventId: event.id, providerPaymentId: d.provider_payment_id ?? "", paymentIntentId: d.payment_intent ?? null, environment }
  const refund = {
    eventId: event.id,
    refundId: d.refund ?? null,
    providerRefundId: d.provider_refund_id ?? "",
    providerPaymentId: d.provider_payment_id ?? null,
    environment
  }
  const payout = { eventId: event.id, payoutIntentId: d.payout_intent ?? null, providerPayoutId: d.provider_payout_id ?? "", environment }
  switch (event.type) {
    case "payment.succeeded":
      return { _tag: "PaymentSucceeded", ...payment, amount: d.amount ?? null, currency: d.currency ?? null }
    case "payment.processing":
      return { _tag: "PaymentProcessing", ...payment }
    case "payment.failed":
      return { _tag: "PaymentFailed", ...payment, ...failureOf(d) }
    case "refund.succeeded":
      return { _tag: "RefundSucceeded", ...refund }
    case "refund.failed":
      return { _tag: "RefundFailed", ...refund, ...failureOf(d) }
    case "payout.succeeded":
      return { _tag: "PayoutSucceeded", ...payout }
    case "payout.failed":
      return { _tag: "PayoutFailed", ...payout, ...failureOf(d) }
    default:
      return { _tag: "Ignored", eventId: event.id }
  }
}

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(SimulatorEvent))
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The simulator's `parseNotification`, verifying with `secret`. */
export const parseNotification = (secret: string) => (request: ProviderNotificationRequest): Effect.Effect<ParsedNotification, NotificationUnverified> =>
  Effect.gen(function*() {
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const refused = verify(request.headers[signatureHeader], request.body, secret, now)
    if (refused !== undefined) return yield* refused
    let text: string
    try {
      text = utf8.decode(request.body)
    } catch {
      return yield* unverified("the body is not UTF-8")
    }
    const event = decodeEvent(text)
    if (event._tag === "Left") return yield* unverified("the body is not a simulator event")
    return { notices: [noticeOf(event.right)], answer: receivedAnswer }
  })
