/**
 * Payer data by method family: a family names the fields a kind of method takes from the payer
 * and what each must be, declared by the methods that take it (`ProviderMethod.payerFamily`),
 * so a new region's payer data (a Pix tax id, a UPI address) is an adapter's declaration, not
 * a change to Tender. `Provider` re-exports all of it.
 */
import { Schema } from "effect"

/** One field of a payer family. @since 0.1.0 @category models */
export interface PayerFieldSpec {
  /**
   * What a value must be, checked before any provider is called: a value it refuses is 400
   * `validation_failed` at the field's create-request path, with the schema's message.
   */
  readonly format?: Schema.Schema<string> | undefined
  /** A bank choice: a code of the method's `banks`, sent to the provider as the bank's own code. */
  readonly bank?: boolean | undefined
}

/**
 * A family of payer data: its name (what `ProviderPaymentRequest.payer.family` says) and its
 * fields by discovery name. A field lives in the create request at `customer.name` for
 * `customer_name`, `customer.phone` for `customer_phone`, and `payment_method_options.<name>`
 * for every other (2.2's mapping table, `payerFieldPath`).
 *
 * @since 0.1.0 @category models
 */
export interface PayerFamily {
  readonly family: string
  readonly fields: Readonly<Record<string, PayerFieldSpec>>
}

/**
 * The payer data a provider gets with a create: the family the method declares and the values
 * of its fields the payer gave (a bank choice as the provider's own bank code).
 *
 * @since 0.1.0 @category models
 */
export interface ProviderPayer {
  readonly family: string
  readonly fields: Readonly<Record<string, string>>
}

/** Where a payer field lives in the create request (2.2's mapping table). @since 0.1.0 */
export const payerFieldPath = (field: string): string =>
  field === "customer_name" ? "customer.name" : field === "customer_phone" ? "customer.phone" : `payment_method_options.${field}`

const pattern = (regex: RegExp, message: string) => Schema.String.pipe(Schema.pattern(regex)).annotations({ message: () => message })

/**
 * A Thai payer's bank account and names: the family of every Thai method (`promptPayMethod`,
 * `onlineBankingMethod`, the simulator's bank transfer), with 2.2's payer fields.
 *
 * @since 0.1.0 @category constants
 */
export const thaiBankAccount: PayerFamily = {
  family: "thai_bank_account",
  fields: {
    customer_name: {},
    customer_phone: {},
    account_name: {},
    account_number: { format: pattern(/^[0-9]{6,20}$/, "must be 6 to 20 digits") },
    bank: { bank: true },
    name_th: { format: pattern(/^[\u0E00-\u0E7F][\u0E00-\u0E7F .]*$/, "must be a name written in Thai script") }
  }
}

/**
 * The family a method's payer data is read with: the one it declares; for a method of 0.1.0 that
 * declares none but asks for 2.2's fields, the family of those fields (`thaiBankAccount`).
 *
 * @since 0.1.0
 */
export const familyOf = (method: { readonly payer: Readonly<Record<string, unknown>>; readonly payerFamily?: PayerFamily | undefined }) =>
  method.payerFamily ?? (Object.keys(method.payer).length > 0 ? thaiBankAccount : undefined)

/** Why a method's payer declaration cannot be served (a configuration error), or undefined. */
export const payerDeclarationProblem = (
  code: string,
  method: { readonly method: string; readonly payer: Readonly<Record<string, unknown>>; readonly payerFamily?: PayerFamily | undefined }
): string | undefined => {
  const family = familyOf(method)
  const unknown = family === undefined ? [] : Object.keys(method.payer).filter((f) => !(f in family.fields))
  return unknown.length === 0 || family === undefined
    ? undefined
    : `${code}'s ${method.method} asks for ${unknown.join(", ")}, which its payer family ${family.family} does not declare (payerFamily)`
}
