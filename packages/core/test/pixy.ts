/**
 * A provider adapter of a region Tender has no code for: Pixy, whose Pix method declares a payer
 * family of its own (a tax id) and tells a payment's outcome by notification only (never polled).
 * Shared by the core and http tests; nothing here imports Vitest.
 */
import { Effect, Schema } from "effect"
import type { Provider } from "../src/index.js"

/** A family no Tender code names: declared here, as an adapter would. */
export const pixPayer: Provider.PayerFamily = {
  family: "br_pix_payer",
  fields: {
    customer_name: {},
    tax_id: { format: Schema.String.pipe(Schema.pattern(/^[0-9]{11}$/)).annotations({ message: () => "must be a CPF of 11 digits" }) }
  }
}

export const pixMethod: Provider.ProviderMethod = {
  method: "br_pix",
  providerMethod: "PIXY_PIX",
  category: "bank_transfer",
  label: "Pix",
  nextActionType: "display_qr_code",
  countries: ["BR"],
  currencies: ["BRL"],
  minAmount: "100",
  maxAmount: "100000000",
  environments: ["test"],
  checkoutModes: ["merchant"],
  banks: [],
  payer: { customer_name: { required: true }, tax_id: { required: true } },
  payerFamily: pixPayer,
  // Pixy tells a payment's outcome by notification only.
  capabilities: { poll: false, confirm: false }
}

export const pixy = () => {
  const calls: Array<Provider.ProviderPaymentRequest> = []
  const polls: Array<string> = []
  const provider: Provider.PaymentProvider = {
    code: "pixy",
    methods: [pixMethod],
    createPayment: (request) =>
      Effect.sync(() => {
        calls.push(request)
        return { _tag: "Processing", providerPaymentId: `pixy_${calls.length}` } as const
      }),
    // It has the function but the method withdraws it: the method's declaration wins.
    getPaymentStatus: (payment) =>
      Effect.sync((): Provider.ProviderPaymentStatus => {
        polls.push(payment.paymentIntentId)
        return { _tag: "Pending" }
      })
  }
  return { provider, calls, polls }
}
