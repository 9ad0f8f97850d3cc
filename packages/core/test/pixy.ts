/**
 * A provider adapter of a region Tender has no code for: Pixy, whose Pix method declares a payer
 * family of its own (a tax id) and tells a payment's outcome by notification only (never polled).
 * Shared by the core and http tests; nothing here imports Vitest.
 */
import { Effect, Schema } from "effect"
import type { Provider, Seed } from "../src/index.js"

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
  checkoutModes: ["hosted", "merchant"],
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

export const pixKey = { public: "pk_test_pixyIIII9999", secret: "sk_test_pixySECRET9999iiii" } as const

/** A merchant whose only route is Pixy's Pix, in both checkout modes. */
export const pixSeed: Seed.Seed = {
  merchants: [{
    id: "mch_pix",
    name: "Pix shop",
    allowed_checkout_modes: ["hosted", "merchant"],
    api_keys: [{ id: "key_pix_test", public_key: pixKey.public, secret_key: pixKey.secret }],
    routes: [{ id: "rt_pix", method: "br_pix", provider: "pixy", environments: ["test"] }]
  }]
}

/** A Pix payment in merchant mode, its payer named and nothing else. */
export const pix = { amount: "5000", currency: "BRL", country: "BR", checkout_mode: "merchant", payment_method: "br_pix", customer: { name: "João Silva" } }
