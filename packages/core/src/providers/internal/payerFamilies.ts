/**
 * Payer data by method family: a family names the fields a kind of method takes from the payer
 * and what each must be, declared by the methods that take it (`ProviderMethod.payerFamily`),
 * so a new region's payer data (a Pix tax id, a UPI address) is an adapter's declaration, not
 * a change to Tender. `Provider` is its public, documented face.
 */
import { Schema } from "effect"

/** `Provider.PayerFieldSpec`. */
export interface PayerFieldSpec {
  /**
   * What a value must be, checked before any provider is called: a value it refuses is 400
   * `validation_failed` at the field's create-request path, with the schema's message.
   */
  readonly format?: Schema.Schema<string> | undefined
  /** A bank choice: a code of the method's `banks`, sent to the provider as the bank's own code. */
  readonly bank?: boolean | undefined
}

/** `Provider.PayerFamily`. */
export interface PayerFamily {
  readonly family: string
  readonly fields: Readonly<Record<string, PayerFieldSpec>>
}

/** `Provider.ProviderPayer`. */
export interface ProviderPayer {
  readonly family: string
  readonly fields: Readonly<Record<string, string>>
}

/** `Provider.payerFieldPath`. */
export const payerFieldPath = (field: string): string =>
  field === "customer_name" ? "customer.name" : field === "customer_phone" ? "customer.phone" : `payment_method_options.${field}`

const pattern = (regex: RegExp, message: string) => Schema.String.pipe(Schema.pattern(regex)).annotations({ message: () => message })

/** `Provider.thaiBankAccount`. */
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

/** `Provider.familyOf`. */
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
