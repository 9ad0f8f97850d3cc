/**
 * Rows and domain records: explicit conversions both ways. Every value is read as text
 * (`::text`) and converted here, so the host's type parsers and name transforms can never
 * change what comes back: bigint amounts stay exact strings, timestamps exact milliseconds,
 * JSON objects keep their bytes and key order (the columns are `json`, not `jsonb`).
 */
import type { Merchant, PaymentIntent } from "@tender/core"

/** The select list of a payment intent row, every column as text. */
export const paymentIntentColumns = `id, merchant_id, environment, amount::text AS amount, currency, country, checkout_mode,
  status, merchant_reference, payment_method, next_action::text AS next_action, failure_code, failure_message,
  processing_reason, receipt::text AS receipt, customer::text AS customer,
  payment_method_options::text AS payment_method_options, return_url, device_fingerprint, metadata::text AS metadata,
  external_reference, provider_code, provider_payment_id, fingerprint,
  (extract(epoch FROM created_at) * 1000)::bigint::text AS created_at,
  (extract(epoch FROM updated_at) * 1000)::bigint::text AS updated_at, version::text AS version`

export interface PaymentIntentRow {
  readonly id: string
  readonly merchant_id: string
  readonly environment: string
  readonly amount: string
  readonly currency: string
  readonly country: string
  readonly checkout_mode: string
  readonly status: string
  readonly merchant_reference: string | null
  readonly payment_method: string | null
  readonly next_action: string | null
  readonly failure_code: string | null
  readonly failure_message: string | null
  readonly processing_reason: string | null
  readonly receipt: string | null
  readonly customer: string
  readonly payment_method_options: string | null
  readonly return_url: string | null
  readonly device_fingerprint: string | null
  readonly metadata: string | null
  readonly external_reference: string | null
  readonly provider_code: string | null
  readonly provider_payment_id: string | null
  readonly fingerprint: string
  readonly created_at: string
  readonly updated_at: string
  readonly version: string
}

const parse = <A>(text: string | null): A | null => (text === null ? null : JSON.parse(text) as A)
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

/** Epoch ms as a `timestamptz` literal: exact, whatever the session's time zone. */
export const timestamp = (millis: number): string => new Date(millis).toISOString()

export const toPaymentIntentRecord = (r: PaymentIntentRow): PaymentIntent.PaymentIntentRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment as PaymentIntent.PaymentIntentRecord["environment"],
  amount: r.amount,
  currency: r.currency,
  country: r.country,
  checkoutMode: r.checkout_mode as PaymentIntent.PaymentIntentRecord["checkoutMode"],
  status: r.status as PaymentIntent.PaymentIntentRecord["status"],
  merchantReference: r.merchant_reference,
  paymentMethod: r.payment_method,
  nextAction: parse(r.next_action),
  failureCode: r.failure_code,
  failureMessage: r.failure_message,
  processingReason: r.processing_reason,
  receipt: parse(r.receipt),
  customer: JSON.parse(r.customer),
  paymentMethodOptions: parse(r.payment_method_options),
  returnUrl: r.return_url,
  deviceFingerprint: r.device_fingerprint,
  metadata: parse(r.metadata),
  externalReference: r.external_reference,
  providerCode: r.provider_code,
  providerPaymentId: r.provider_payment_id,
  fingerprint: r.fingerprint,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  version: Number(r.version)
})

/** Column values of a record, in the order of `paymentIntentInsertColumns`. */
export const paymentIntentValues = (p: PaymentIntent.PaymentIntentRecord) => [
  p.id,
  p.merchantId,
  p.environment,
  p.amount,
  p.currency,
  p.country,
  p.checkoutMode,
  p.status,
  p.merchantReference,
  p.paymentMethod,
  json(p.nextAction),
  p.failureCode,
  p.failureMessage,
  p.processingReason,
  json(p.receipt),
  json(p.customer),
  json(p.paymentMethodOptions),
  p.returnUrl,
  p.deviceFingerprint,
  json(p.metadata),
  p.externalReference,
  p.providerCode,
  p.providerPaymentId,
  p.fingerprint,
  timestamp(p.createdAt),
  timestamp(p.updatedAt),
  p.version
] as const

export interface MerchantRow {
  readonly id: string
  readonly name: string
  readonly allowed_checkout_modes: string
  readonly routes: string
}

export const toMerchant = (r: MerchantRow): Merchant.Merchant => ({
  id: r.id,
  name: r.name,
  allowedCheckoutModes: JSON.parse(r.allowed_checkout_modes),
  routes: JSON.parse(r.routes)
})

export interface ApiKeyRow {
  readonly id: string
  readonly merchant_id: string
  readonly environment: string
  readonly public_key: string
  readonly secret_hash: string
  readonly revoked_at: string | null
  readonly created_at: string
}

/** The select list of an API key row, optionally qualified by a table alias. */
const apiKeyColumnsOf = (alias = "") => {
  const q = alias === "" ? "" : `${alias}.`
  return `${q}id, ${q}merchant_id, ${q}environment, ${q}public_key, ${q}secret_hash,
  (extract(epoch FROM ${q}revoked_at) * 1000)::bigint::text AS revoked_at,
  (extract(epoch FROM ${q}created_at) * 1000)::bigint::text AS created_at`
}

export const apiKeyColumns = apiKeyColumnsOf()

export const toApiKey = (r: ApiKeyRow): Merchant.ApiKey => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment as Merchant.ApiKey["environment"],
  publicKey: r.public_key,
  secretHash: r.secret_hash,
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  createdAt: Number(r.created_at)
})

/** A key and its merchant, from `api_keys AS k JOIN merchants AS m`. */
export const credentialColumns = `${apiKeyColumnsOf("k")},
  m.id AS m_id, m.name AS m_name, m.allowed_checkout_modes::text AS m_modes, m.routes::text AS m_routes`
