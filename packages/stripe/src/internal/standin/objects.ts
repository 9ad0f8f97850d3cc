/**
 * Stripe objects as the stand-in answers with them: each starts from Stripe's published
 * fixture (fixtures3.json), keeps only the fields the 2023-08-16 description names, and takes
 * the stand-in's own values for what the lifecycle decides.
 */
import { crc16, loadExtract, type OpenApiExtract, tlv } from "@tender/testing/StandIn"
import { randomBytes } from "node:crypto"

/** The extract with its fixtures, as `stripe-extract.ts` writes it. */
export interface StripeExtract extends OpenApiExtract {
  readonly apiVersion: string
  readonly source: unknown
  readonly fixtures: Readonly<Record<string, Record<string, unknown>>>
}

/** Stripe's published description (trimmed) and fixtures. */
export const extract: StripeExtract = loadExtract<StripeExtract>([
  // From src/ the JSON sits in src/standin; from dist/ it ships under src/ too.
  new URL("../../standin/openapi-extract.json", import.meta.url),
  new URL("../../../src/standin/openapi-extract.json", import.meta.url)
])

/** A Stripe-like id: prefix and 24 random base-62 characters. */
export const stripeId = (prefix: string): string => {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  return `${prefix}_${[...randomBytes(24)].map((b) => alphabet[b % 62]).join("")}`
}

/** Seconds since the epoch, as Stripe's timestamps are. */
export const now = (): number => Math.floor(Date.now() / 1000)

/** The fixture of `fixture`, cut to the fields `schema` names, with `values` over it. */
export const shape = (fixture: string, schema: string, values: Record<string, unknown>): Record<string, unknown> => {
  const base = extract.fixtures[fixture] ?? {}
  const properties = (extract.components.schemas[schema] as { properties?: Record<string, unknown> }).properties ?? {}
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(properties)) if (k in base) out[k] = base[k]
  return { ...out, ...values }
}

/** A payment intent as created, before confirmation. */
export const paymentIntent = (fields: {
  amount: number
  currency: string
  livemode: boolean
  metadata: Record<string, unknown>
  paymentMethodTypes: ReadonlyArray<string>
  description: string | null
  receiptEmail: string | null
}): Record<string, unknown> => {
  const id = stripeId("pi")
  return shape("payment_intent", "payment_intent", {
    id,
    object: "payment_intent",
    amount: fields.amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    client_secret: `${id}_secret_${stripeId("s").slice(2)}`,
    created: now(),
    currency: fields.currency,
    description: fields.description,
    last_payment_error: null,
    latest_charge: null,
    livemode: fields.livemode,
    metadata: fields.metadata,
    next_action: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: fields.paymentMethodTypes,
    processing: null,
    receipt_email: fields.receiptEmail,
    shipping: null,
    status: "requires_payment_method",
    transfer_data: null
  })
}

/** A PromptPay EMVCo payload (tag-length-value, CRC-16) for a test account: scannable, pays no one. */
const promptPayPayload = (amount: number, reference: string): string => {
  const body = tlv("00", "01") + tlv("01", "12") +
    tlv("29", tlv("00", "A000000677010111") + tlv("01", "0000000000000")) +
    tlv("53", "764") + tlv("54", (amount / 100).toFixed(2)) + tlv("58", "TH") +
    tlv("62", tlv("05", reference.slice(-25))) + "6304"
  return body + crc16(body)
}

/** PromptPay's next action, shaped like Stripe's: the EMVCo payload and its images. */
export const promptPayAction = (baseUrl: string, intentId: string, amount: number): Record<string, unknown> => ({
  type: "promptpay_display_qr_code",
  promptpay_display_qr_code: {
    data: promptPayPayload(amount, intentId),
    hosted_instructions_url: `${baseUrl}/qr/instructions/${intentId}`,
    image_url_png: `${baseUrl}/qr/${intentId}.png`,
    image_url_svg: `${baseUrl}/qr/${intentId}.svg`
  }
})

/** A charge for a paid intent. */
export const charge = (intent: Record<string, unknown>): Record<string, unknown> =>
  shape("charge", "charge", {
    id: stripeId("ch"),
    object: "charge",
    amount: intent["amount"],
    amount_captured: intent["amount"],
    amount_refunded: 0,
    captured: true,
    created: now(),
    currency: intent["currency"],
    livemode: intent["livemode"],
    metadata: intent["metadata"],
    paid: true,
    payment_intent: intent["id"],
    refunded: false,
    status: "succeeded"
  })

/** A refund, pending until the test settles it. */
export const refund = (fields: { amount: number; intent: Record<string, unknown>; metadata: Record<string, unknown> }): Record<string, unknown> =>
  shape("refund", "refund", {
    id: stripeId("re"),
    object: "refund",
    amount: fields.amount,
    balance_transaction: null,
    charge: fields.intent["latest_charge"],
    created: now(),
    currency: fields.intent["currency"],
    destination_details: undefined,
    metadata: fields.metadata,
    payment_intent: fields.intent["id"],
    reason: null,
    status: "pending"
  })

/** An event as Stripe sends it to an endpoint. */
export const event = (type: string, object: Record<string, unknown>, livemode: boolean): Record<string, unknown> =>
  shape("event", "event", {
    id: stripeId("evt"),
    object: "event",
    api_version: extract.apiVersion,
    created: now(),
    data: { object: structuredClone(object) },
    livemode,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type
  })

/** Stripe's error body. */
export const error = (
  type: "api_error" | "card_error" | "idempotency_error" | "invalid_request_error",
  message: string,
  extra: Record<string, unknown> = {}
) => ({
  error: { type, message, ...extra }
})
