/**
 * One public method as a provider serves it (its bounds, banks, payer fields), and the Thai
 * methods as every provider serves them, given what differs between providers; `Provider`
 * re-exports all of it.
 */
import type { NextActionType } from "../NextAction.js"
import type { CheckoutMode, Environment } from "../Schemas.js"

/** The payer fields discovery can ask for (2.4). @since 0.1.0 @category models */
export type PayerField = "customer_name" | "customer_phone" | "account_name" | "account_number" | "bank" | "name_th"

/** Every payer field, in the order of 2.2's mapping table. @since 0.1.0 @category models */
export const payerFields: ReadonlyArray<PayerField> = [
  "customer_name",
  "customer_phone",
  "account_name",
  "account_number",
  "bank",
  "name_th"
]

/** A bank choice: the public code, its label and the provider's own code (never exposed). @since 0.1.0 @category models */
export interface ProviderBank {
  readonly code: string
  readonly label: string
  readonly providerCode: string
}

/** One public method as one provider serves it. @since 0.1.0 @category models */
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
  readonly payer: Partial<Record<PayerField, { readonly required: boolean }>>
  /**
   * How a payment of this method is refunded (D10), by a provider that has `refund`: to its
   * source (`source`), or only to a bank account the merchant names (`bank_account`: a refund
   * without `destination` is a 400). Absent: the method cannot be refunded (422
   * `refund_not_supported`).
   */
  readonly refunds?: "source" | "bank_account" | undefined
}

/** What a provider gives of a Thai method it serves (`promptPayMethod`, `onlineBankingMethod`). @since 0.1.0 @category models */
export interface ThaiMethodOptions {
  /** The provider's own code for it. */
  readonly providerMethod: string
  readonly minAmount: string
  readonly maxAmount: string
  readonly environments: ReadonlyArray<Environment>
  readonly label?: string
  readonly banks?: ReadonlyArray<ProviderBank>
  readonly payer?: ProviderMethod["payer"]
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
  refunds: "source"
})

/**
 * PromptPay, Thailand's QR payment scheme, as any provider serves it: a QR code to pay, the
 * customer's name optional unless `payer` says otherwise. What differs between providers is
 * given: their code for it, the amount bounds, the environments.
 *
 * @since 0.1.0 @category constructors
 */
export const promptPayMethod = (options: ThaiMethodOptions): ProviderMethod =>
  thaiMethod({
    method: "th_promptpay",
    category: "bank_transfer",
    label: "PromptPay QR",
    nextActionType: "display_qr_code",
    payer: { customer_name: { required: false } }
  }, options)

/**
 * Thai online banking as any provider serves it: a redirect to the payer's bank, chosen from
 * `banks`, which the payer must name unless `payer` says otherwise.
 *
 * @since 0.1.0 @category constructors
 */
export const onlineBankingMethod = (options: ThaiMethodOptions): ProviderMethod =>
  thaiMethod({
    method: "th_online_banking",
    category: "online_banking",
    label: "Online banking",
    nextActionType: "redirect_to_url",
    payer: { bank: { required: true } }
  }, options)

/** Whether `amount` lies within a method's inclusive bounds, compared as bigint. @since 0.1.0 */
export const amountInRange = (method: ProviderMethod, amount: string): boolean => {
  const value = BigInt(amount)
  return value >= BigInt(method.minAmount) && value <= BigInt(method.maxAmount)
}
