/**
 * The Thai methods as every provider serves them, given what differs between providers (their
 * code for the method, amount bounds, environments); `Provider` re-exports them for adapters.
 */
import type { ProviderBank, ProviderMethod } from "../Provider.js"
import type { Environment } from "../Schemas.js"

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
  thaiMethod({ method: "th_promptpay", category: "bank_transfer", label: "PromptPay QR", nextActionType: "display_qr_code", payer: { customer_name: { required: false } } }, options)

/**
 * Thai online banking as any provider serves it: a redirect to the payer's bank, chosen from
 * `banks`, which the payer must name unless `payer` says otherwise.
 *
 * @since 0.1.0 @category constructors
 */
export const onlineBankingMethod = (options: ThaiMethodOptions): ProviderMethod =>
  thaiMethod({ method: "th_online_banking", category: "online_banking", label: "Online banking", nextActionType: "redirect_to_url", payer: { bank: { required: true } } }, options)
