/**
 * One public method as a provider serves it (its bounds, banks, payer family, capabilities), and
 * the Thai methods as every provider serves them, given what differs between providers;
 * `Provider` re-exports all of it.
 */
import type { NextActionType } from "../../paymentIntents/NextAction.js"
import type { CheckoutMode, Environment } from "../../resources/Schemas.js"
import type { PayerFamily } from "./payerFamilies.js"
import { thaiBankAccount } from "./payerFamilies.js"

/** The payer fields of 2.4's discovery table (the Thai family's; a method's family may declare others). @since 0.1.0 @category models */
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

/**
 * What can be done at the provider for a payment of a method: asked to confirm it (4.5), polled
 * for its status, canceled (D10), refunded (D10), given the payer's receipt (4.4). @since 0.1.0 @category models
 */
export interface Capabilities {
  readonly confirm: boolean
  readonly poll: boolean
  readonly cancel: boolean
  readonly refund: boolean
  readonly receipt: boolean
}

/** The functions of an adapter that capabilities follow from (`PaymentProvider`, named structurally). */
export interface Functions {
  readonly confirmPayment?: unknown
  readonly getPaymentStatus?: unknown
  readonly cancelPayment?: unknown
  readonly refund?: unknown
  readonly submitReceipt?: unknown
}

/**
 * What `provider` can do for a payment of `method`: what its functions allow, less what the
 * method withdraws; a refund needs the method's `refunds` too. Every rule of Tender that calls a
 * provider after create asks this first: no poll is scheduled for a method that cannot be polled.
 *
 * @since 0.1.0 @category constructors
 */
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
