/**
 * What `@tender/adyen` serves: PromptPay (a QR code) and Thai online banking (a redirect to the
 * payer's bank, through Adyen's MOLPay e-banking), in THB, in the environment its account serves.
 */
import { onlineBankingMethod, promptPayMethod, type ProviderBank, type ProviderMethod } from "@tender/core/Provider"
import type { Environment } from "@tender/core/Schemas"

/** Adyen's `paymentMethod.type` for each method (never exposed). */
export const PROMPTPAY = "promptpay"
/** Thai online banking: the payer's bank is Adyen's `issuer`. */
export const ONLINE_BANKING = "molpay_ebanking_TH"

/** The banks Adyen's Thai online banking offers, with Adyen's issuer ids as provider codes. */
export const onlineBankingBanks: ReadonlyArray<ProviderBank> = [
  { code: "BBL", label: "Bangkok Bank", providerCode: "molpay_bangkokbank" },
  { code: "KBANK", label: "Kasikornbank", providerCode: "molpay_kbank" },
  { code: "KTB", label: "Krungthai Bank", providerCode: "molpay_krungthaibank" },
  { code: "SCB", label: "Siam Commercial Bank", providerCode: "molpay_scb" },
  { code: "BAY", label: "Krungsri (Bank of Ayudhya)", providerCode: "molpay_krungsribank" }
]

/** The catalogue for the environment the configured account serves. */
export const methods = (environments: ReadonlyArray<Environment>): ReadonlyArray<ProviderMethod> => [
  // PromptPay's per-payment limit is 150,000 baht.
  promptPayMethod({ providerMethod: PROMPTPAY, minAmount: "100", maxAmount: "15000000", environments }),
  onlineBankingMethod({ providerMethod: ONLINE_BANKING, minAmount: "2000", maxAmount: "500000000", environments, banks: onlineBankingBanks })
]
