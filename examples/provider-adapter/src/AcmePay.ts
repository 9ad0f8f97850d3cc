/**
 * A provider adapter for "Acme Pay", a fictional PSP spoken to over HTTP (JSON):
 * `POST /v1/charges`, `POST /v1/charges/:id/confirm`, `GET /v1/charges/:id`,
 * `POST /v1/charges/:id/receipts`, `POST /v1/charges/:id/refunds`, `POST /v1/charges/:id/cancel`,
 * and Acme's signed notifications. The mapping both ways is pure and tested without a
 * network; the effectful part is a thin shell around `fetch` (docs/provider-adapters.md).
 */
import { Provider, ProviderKit, ProviderNotification } from "@tender/core"
import { Effect, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { tenderCodeOf } from "./acme-failures.js"
import { methods } from "./acme-methods.js"

export const code = "acme"

/**
 * Acme's code in Tender's words, with the message of the one list (ProviderKit.failure): a code
 * Acme names that is not one of Tender's is `otherwise`'s.
 */
const failureOf = (acmeCode: string | undefined, otherwise: ProviderKit.FailureCode) => {
  const tender = tenderCodeOf(acmeCode, otherwise)
  return ProviderKit.failure(Object.hasOwn(ProviderKit.failureMessages, tender) ? tender as ProviderKit.FailureCode : otherwise)
}

/** What Acme can serve, in Tender's terms (acme-methods.js, shared with the adapter without Effect). */
export { methods }

/** Acme's charge, decoded strictly: anything else is treated as an outage. */
export const AcmeCharge = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("pending", "paid", "declined", "canceled"),
  qr_payload: Schema.optional(Schema.String),
  decline_code: Schema.optional(Schema.String),
  decline_message: Schema.optional(Schema.String),
  /** What the payer paid, minor units, once paid: Tender checks it against the intent's amount (D11). */
  amount_paid: Schema.optional(Schema.String)
})
export type AcmeCharge = typeof AcmeCharge.Type

/** Acme's refund of a charge, decoded strictly. */
export const AcmeRefund = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("pending", "succeeded", "failed"),
  failure_code: Schema.optional(Schema.String),
  failure_message: Schema.optional(Schema.String)
})
export type AcmeRefund = typeof AcmeRefund.Type

/** Pure: Tender's refund -> Acme's request body (our refund id as its reference). */
export const toAcmeRefund = (r: Provider.ProviderRefundRequest) => ({ reference: r.refundId, amount: r.amount })

/** Pure: Acme's refund as it stands -> the refund's status (D10). */
export const refundStatusOf = (r: AcmeRefund): Provider.ProviderRefundStatus =>
  r.status === "succeeded"
    ? { _tag: "Succeeded" }
    : r.status === "failed"
    ? { _tag: "Failed", ...failureOf(r.failure_code, "refund_failed") }
    : { _tag: "Pending" }

/** Pure: Tender's request -> Acme's request body. */
export const toAcmeCharge = (r: Provider.ProviderPaymentRequest) => ({
  reference: r.paymentIntentId,
  method: r.providerMethod,
  amount: r.amount,
  currency: r.currency,
  payer_name: r.customer.name ?? null
})

// Tender's words, never Acme's: its codes and messages stay inside the adapter (D11).
const declined = (c: AcmeCharge) => failureOf(c.decline_code, "payment_declined")

/** Pure: Acme's answer to a create -> Tender's result. */
export const fromAcmeCharge = (c: AcmeCharge): Provider.ProviderPaymentResult => {
  if (c.status === "declined") return { _tag: "Failed", providerPaymentId: c.id, ...declined(c) }
  return c.qr_payload === undefined || c.status === "paid"
    ? { _tag: "Processing", providerPaymentId: c.id }
    : { _tag: "Action", providerPaymentId: c.id, nextAction: { type: "display_qr_code", qr_data: c.qr_payload } }
}

/** Ended unpaid at Acme (its QR code expired, or Tender canceled it): the payer can no longer pay. */
const expired = ProviderKit.failure("payment_expired")

/** Pure: Acme's charge as it stands -> the payment's status. */
export const statusOf = (c: AcmeCharge): Provider.ProviderPaymentStatus =>
  c.status === "paid"
    ? { _tag: "Succeeded", amount: c.amount_paid ?? null }
    : c.status === "declined"
    ? { _tag: "Failed", ...declined(c) }
    : c.status === "canceled"
    ? { _tag: "Failed", ...expired }
    : { _tag: "Pending" }

/** Acme's notification: one event per charge change, `livemode` its environment. */
export const AcmeEvent = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  livemode: Schema.Boolean,
  data: Schema.Struct({
    id: Schema.String,
    reference: Schema.NullOr(Schema.String),
    amount: Schema.NullOr(Schema.String),
    currency: Schema.NullOr(Schema.String),
    decline_code: Schema.NullOr(Schema.String)
  })
})

/** Pure: Acme's event -> Tender's notice (D11), in Tender's codes. */
export const noticeOf = (e: typeof AcmeEvent.Type): ProviderNotification.ProviderNotice => {
  const common = { eventId: e.id, providerPaymentId: e.data.id, paymentIntentId: e.data.reference, environment: e.livemode ? "live" as const : "test" as const }
  switch (e.type) {
    case "charge.paid":
      return { _tag: "PaymentSucceeded", ...common, amount: e.data.amount, currency: e.data.currency }
    case "charge.declined":
      return {
        _tag: "PaymentFailed",
        ...common,
        ...failureOf(e.data.decline_code ?? undefined, "payment_declined")
      }
    case "charge.canceled":
      return { _tag: "PaymentFailed", ...common, ...expired }
    default:
      return { _tag: "Ignored", eventId: e.id }
  }
}

/** Whether `header` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) signs `body` with `secret`, no older than 5 minutes. */
export const verified = (header: string | undefined, body: Uint8Array, secret: string, nowSeconds: number): boolean => {
  const parts = Object.fromEntries((header ?? "").split(",").map((p) => p.split("=", 2) as [string, string]))
  const t = Number(parts["t"])
  if (!Number.isInteger(t) || parts["v1"] === undefined || Math.abs(nowSeconds - t) > 300) return false
  const expected = createHmac("sha256", secret).update(`${t}.`).update(body).digest()
  const given = Buffer.from(parts["v1"], "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export interface AcmeOptions {
  readonly apiKey: string
  readonly baseUrl: string
  /** Below Tender's 20 s provider timeout, so the request is abandoned on the wire. Default 15 s. */
  readonly timeoutMillis?: number | undefined
  /** The secret Acme signs its notifications with; without it the adapter takes none. */
  readonly webhookSecret?: string | undefined
}

/** The adapter. */
export const make = (options: AcmeOptions): Provider.PaymentProvider => {
  const unavailable = (reason: string) => new Provider.ProviderUnavailable({ provider: code, reason })
  /** One call to Acme; every outage (network, non-2xx, an unexpected body) is `ProviderUnavailable`. */
  const request = (method: "GET" | "POST", path: string, idempotencyKey: string, body?: unknown) =>
    Effect.tryPromise({
      try: (signal) =>
        fetch(`${options.baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            "content-type": "application/json",
            // Tender's intent id (a refund's id for a refund) as Acme's idempotency key: a retried task cannot pay or refund twice.
            "idempotency-key": idempotencyKey
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMillis ?? 15_000)])
        }),
      catch: (e) => unavailable(e instanceof Error ? e.message : String(e))
    }).pipe(
      Effect.filterOrFail((res) => res.ok, (res) => unavailable(`HTTP ${res.status}`)),
      Effect.flatMap((res) => Effect.tryPromise({ try: () => res.json(), catch: () => unavailable("invalid JSON") }))
    )
  const decoded = <A, I>(schema: Schema.Schema<A, I>) => (json: unknown) =>
    Effect.mapError(Schema.decodeUnknown(schema)(json), () => unavailable("unexpected body"))
  const call = (method: "GET" | "POST", path: string, idempotencyKey: string, body?: unknown) =>
    Effect.flatMap(request(method, path, idempotencyKey, body), decoded(AcmeCharge))
  const charge = (p: Provider.ProviderPaymentRef) => `/v1/charges/${encodeURIComponent(p.providerPaymentId)}`
  return {
    code,
    methods,
    createPayment: (request) =>
      // Acme is configured for live payments only (methods): a test one never reaches it.
      request.environment === "live"
        ? Effect.map(call("POST", "/v1/charges", ProviderKit.idempotencyKey("create", request), toAcmeCharge(request)), fromAcmeCharge)
        : Effect.fail(unavailable(`Acme serves live payments only, not ${request.environment}`)),
    confirmPayment: (payment) => Effect.map(call("POST", `${charge(payment)}/confirm`, payment.paymentIntentId, {}), statusOf),
    getPaymentStatus: (payment) => Effect.map(call("GET", charge(payment), payment.paymentIntentId), statusOf),
    submitReceipt: (payment, receipt) =>
      Effect.map(
        call("POST", `${charge(payment)}/receipts`, payment.paymentIntentId, {
          content_type: receipt.contentType,
          sha256: receipt.sha256,
          data: Buffer.from(receipt.bytes).toString("base64")
        }),
        statusOf
      ),
    // D10: Tender's cancel, told to Acme; our intent id is the idempotency key, so a cancel task run twice answers the same.
    cancelPayment: (payment) =>
      Effect.flatMap(
        call("POST", `${charge(payment)}/cancel`, ProviderKit.idempotencyKey("cancel", payment), {}),
        (c): Effect.Effect<Provider.ProviderCancelResult, Provider.ProviderUnavailable> =>
          c.status === "canceled"
            ? Effect.succeed({ _tag: "Canceled" })
            : c.status === "paid"
            ? Effect.succeed({ _tag: "Succeeded", amount: c.amount_paid ?? null })
            : Effect.fail(unavailable(`Acme left the charge ${c.status}`))
      ),
    // D11: verified over the exact bytes, then read; anything unverifiable or unreadable is refused.
    ...(options.webhookSecret === undefined ? {} : {
      parseNotification: (request: ProviderNotification.ProviderNotificationRequest) =>
        Effect.gen(function*() {
          const refused = (reason: string) => new ProviderNotification.NotificationUnverified({ provider: code, reason })
          if (!verified(request.headers["acme-signature"], request.body, options.webhookSecret!, Math.floor(Date.now() / 1000))) {
            return yield* refused("bad signature")
          }
          const event = yield* Effect.try({ try: () => JSON.parse(Buffer.from(request.body).toString("utf8")) as unknown, catch: () => refused("not JSON") })
          const decoded = yield* Effect.mapError(Schema.decodeUnknown(AcmeEvent)(event), () => refused("not an Acme event"))
          return { notices: [noticeOf(decoded)], answer: ProviderNotification.receivedAnswer }
        })
    }),
    // D10: our refund id is the idempotency key, so the refund task run twice refunds once.
    refund: (refund) =>
      request("POST", `${charge(refund.payment)}/refunds`, ProviderKit.idempotencyKey("refund", refund), toAcmeRefund(refund)).pipe(
        Effect.flatMap(decoded(AcmeRefund)),
        Effect.map(refundStatusOf)
      )
  }
}
