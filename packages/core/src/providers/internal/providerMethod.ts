/**
 * One public method as a provider serves it (its bounds, banks, payer family, capabilities), and
 * the Thai methods as every provider serves them, given what differs between providers;
 * `Provider` is its public, documented face.
 */
import type { NextActionType } from "../../paymentIntents/NextAction.js"
import type { CheckoutMode, Environment } from "../../resources/Schemas.js"
import type { PayerFamily } from "./payerFamilies.js"
import { thaiBankAccount } from "./payerFamilies.js"

/** `Provider.PayerField`. */
export type PayerField = "customer_name" | "customer_phone" | "account_name" | "account_number" | "bank" | "name_th"

/** `Provider.payerFields`. */
export const payerFields: ReadonlyArray<PayerField> = [
  "customer_name",
  "customer_phone",
  "account_name",
  "account_number",
  "bank",
  "name_th"
]

/** `Provider.ProviderBank`. */
export interface ProviderBank {
  readonly code: string
  readonly label: string
  readonly providerCode: string
}

/** `Provider.ProviderMethod`. */
export interface ProviderMethod {
  /** Public method code, as discovery shows it. */
  readonly method: string
  /** The provider's own code for it; never exposed. */
  readonly providerMethod: string
  readonly category: string
  readonly label: string
  /** The action this method produces in merchant mode. */
  readonly nextActionType: NextActionType
  readonly countries: ReadonlyArray<string>
  readonly currencies: ReadonlyArray<string>
  /** Inclusive bounds in minor units, as integer strings. */
  readonly minAmount: string
  readonly maxAmount: string
  readonly environments: ReadonlyArray<Environment>
  readonly checkoutModes: ReadonlyArray<CheckoutMode>
  readonly banks: ReadonlyArray<ProviderBank>
  /** The fields of its `payerFamily` this method asks for, as discovery's `options.payer` shows them. */
  readonly payer: Readonly<Record<string, { readonly required: boolean }>>
  /**
   * The family of payer data the method takes (`thai_bank_account`, or one an adapter declares):
   * each field's format and whether it is a bank choice. Absent: 2.2's fields, as in 0.1.0 (`familyOf`).
   */
  readonly payerFamily?: PayerFamily | undefined
  /**
   * What the provider can do for a payment of this method, where it lacks what its functions
   * suggest: `false` withdraws one (`poll: false` for a provider that only tells by notification).
   * What Tender relies on is `capabilitiesOf(provider, method)`.
   */
  readonly capabilities?: Partial<Capabilities> | undefined
  /**
   * How a payment of this method is refunded (D10), by a provider that has `refund`: to its
   * source (`source`), or only to a bank account the merchant names (`bank_account`: a refund
   * without `destination` is a 400). Absent: the method cannot be refunded (422
   * `refund_not_supported`).
   */
  readonly refunds?: "source" | "bank_account" | undefined
}

/** `Provider.ThaiMethodOptions`. */
export interface ThaiMethodOptions {
  /** The provider's own code for it. */
  readonly providerMethod: string
  readonly minAmount: string
  readonly maxAmount: string
  readonly environments: ReadonlyArray<Environment>
  readonly label?: string
  readonly banks?: ReadonlyArray<ProviderBank>
  readonly payer?: ProviderMethod["payer"]
  readonly capabilities?: ProviderMethod["capabilities"]
}

/** A method paid in THB in Thailand, in both checkout modes, refunded to the account it was paid from (D10). */
const thaiMethod = (
  scheme: Pick<ProviderMethod, "method" | "category" | "label" | "nextActionType" | "payer">,
  options: ThaiMethodOptions
): ProviderMethod => ({
  ...scheme,
  providerMethod: options.providerMethod,
  countries: ["TH"],
  currencies: ["THB"],
  minAmount: options.minAmount,
  maxAmount: options.maxAmount,
  environments: options.environments,
  checkoutModes: ["hosted", "merchant"],
  banks: options.banks ?? [],
  ...(options.label === undefined ? {} : { label: options.label }),
  ...(options.payer === undefined ? {} : { payer: options.payer }),
  payerFamily: thaiBankAccount,
  ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
  refunds: "source"
})

/** `Provider.promptPayMethod`. */
export const promptPayMethod = (options: ThaiMethodOptions): ProviderMethod =>
  thaiMethod({
    method: "th_promptpay",
    category: "bank_transfer",
    label: "PromptPay QR",
    nextActionType: "display_qr_code",
    payer: { customer_name: { required: false } }
  }, options)

/** `Provider.onlineBankingMethod`. */
export const onlineBankingMethod = (options: ThaiMethodOptions): ProviderMethod =>
  thaiMethod({
    method: "th_online_banking",
    category: "online_banking",
    label: "Online banking",
    nextActionType: "redirect_to_url",
    payer: { bank: { required: true } }
  }, options)

/** `Provider.amountInRange`. */
export const amountInRange = (method: ProviderMethod, amount: string): boolean => {
  const value = BigInt(amount)
  return value >= BigInt(method.minAmount) && value <= BigInt(method.maxAmount)
}

/** `Provider.Capabilities`. */
export interface Capabilities {
  readonly confirm: boolean
  readonly poll: boolean
  readonly cancel: boolean
  readonly refund: boolean
  readonly receipt: boolean
}

/** The functions of an adapter that capabilities follow from (`PaymentProvider`, named structurally). */
interface Functions {
  readonly confirmPayment?: unknown
  readonly getPaymentStatus?: unknown
  readonly cancelPayment?: unknown
  readonly refund?: unknown
  readonly submitReceipt?: unknown
}

/** `Provider.capabilitiesOf`. */
export const capabilitiesOf = (provider: Functions, method: Pick<ProviderMethod, "capabilities" | "refunds"> | undefined): Capabilities => {
  const declared = method?.capabilities ?? {}
  const has = (fn: unknown, capability: keyof Capabilities) => fn !== undefined && declared[capability] !== false
  return {
    confirm: has(provider.confirmPayment, "confirm"),
    poll: has(provider.getPaymentStatus, "poll"),
    cancel: has(provider.cancelPayment, "cancel"),
    refund: has(provider.refund, "refund") && method?.refunds !== undefined,
    receipt: has(provider.submitReceipt, "receipt")
  }
}
