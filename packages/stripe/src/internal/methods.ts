/**
 * What `@tender/stripe` serves: PromptPay in THB (a QR code, in both checkout modes) and cards
 * through Stripe Checkout (a redirect), each in the environments its keys serve.
 */
import { promptPayMethod, type ProviderMethod } from "@tender/core/Provider"
import type { Environment } from "@tender/core/Schemas"

/** Stripe's own name for each method (never exposed). */
export const PROMPTPAY = "promptpay"
/** Cards, paid on Stripe Checkout's page. */
export const CARD_CHECKOUT = "checkout_card"

/** The catalogue for the environments the configured keys serve. */
export const methods = (
  environments: ReadonlyArray<Environment>,
  card: { readonly countries: ReadonlyArray<string>; readonly currencies: ReadonlyArray<string> }
): ReadonlyArray<ProviderMethod> => [
  // Stripe's minimum charge in THB is 10 baht; PromptPay's per-payment limit is 150,000 baht.
  promptPayMethod({ providerMethod: PROMPTPAY, minAmount: "1000", maxAmount: "15000000", environments }),
  {
    method: "card",
    providerMethod: CARD_CHECKOUT,
    category: "card",
    label: "Card",
    nextActionType: "redirect_to_url",
    countries: card.countries,
    currencies: card.currencies,
    minAmount: "1000",
    maxAmount: "99999999",
    environments,
    checkoutModes: ["hosted", "merchant"],
    banks: [],
    payer: {},
    refunds: "source"
  }
]
