/**
 * What routing hands a provider adapter, for adapters' own tests (`@tender/stripe`,
 * `@tender/adyen`): a payment request with a fresh Tender id, and the reference later calls take.
 */
import type { ProviderPaymentRef, ProviderPaymentRequest } from "@tender/core/Provider"

let n = 0

/** A PromptPay payment request as routing sends it; `prefix` keeps each adapter's ids apart in shared logs. */
export const paymentRequest = (prefix: string, overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest => ({
  paymentIntentId: `dord_${prefix}${++n}${Date.now()}`,
  environment: "test",
  amount: "150000",
  currency: "THB",
  country: "TH",
  providerMethod: "promptpay",
  providerBank: null,
  customer: { name: "Somchai", email: "somchai@example.com" },
  accountName: null,
  accountNumber: null,
  nameTh: null,
  returnUrl: "https://merchant.example/return",
  ...overrides
})

/** The reference later operations (status, cancel, refund) use for a payment the adapter created. */
export const refOf = (request: ProviderPaymentRequest, providerPaymentId: string): ProviderPaymentRef => ({
  paymentIntentId: request.paymentIntentId,
  providerPaymentId,
  environment: request.environment,
  amount: request.amount,
  currency: request.currency,
  createdAt: Date.now()
})
