/**
 * The payment intent's create request (2.2): the body of POST /payment_intents and the payer
 * details, metadata and return URL it carries. `PaymentIntent` names every export here too,
 * one by one: a new one is added there.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Amount, BoundedString, CheckoutMode, Country, Currency, maxCharacters, MerchantReference, StorableText, withMessage } from "../resources/Schemas.js"

// ---------------------------------------------------------------------------
// Create request (2.2)
// ---------------------------------------------------------------------------

/** Payer identity and contact details. @since 0.1.0 @category request */
export const Customer = Schema.Struct({
  name: Schema.optional(BoundedString(256)),
  email: Schema.optional(withMessage(
    StorableText.pipe(maxCharacters(254), Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/)),
    "must be an email address of at most 254 characters"
  )),
  phone: Schema.optional(withMessage(
    Schema.String.pipe(Schema.pattern(/^\+?[0-9][0-9 -]{5,19}$/)),
    "must be a phone number: 6 to 20 digits, spaces or hyphens, beginning with a digit or +"
  )),
  reference: Schema.optional(BoundedString(256))
}).annotations({ identifier: "Customer" })
/** @since 0.1.0 @category request */
export type Customer = typeof Customer.Type

/**
 * Route-specific payer data (2.2); a separate namespace from `customer`. Besides the spec's four
 * fields, a field a method's payer family declares (`Provider.PayerFamily`, a Pix tax id): a key
 * no eligible route asks for is 400 `validation_failed` at create (`Discovery.resolveRoutes`).
 * `customer_name` and `customer_phone` are refused here whatever a family says (2.2).
 *
 * @since 0.1.0 @category request
 */
export const PaymentMethodOptions = Schema.Struct(
  {
    bank: Schema.optional(withMessage(
      Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_]{1,32}$/)),
      "must be a bank code from discovery"
    )),
    account_name: Schema.optional(BoundedString(256)),
    account_number: Schema.optional(withMessage(
      Schema.String.pipe(Schema.pattern(/^[0-9]{6,20}$/)),
      "must be 6 to 20 digits"
    )),
    name_th: Schema.optional(withMessage(
      Schema.String.pipe(maxCharacters(256), Schema.pattern(/^[\u0E00-\u0E7F][\u0E00-\u0E7F .]*$/)),
      "must be a name written in Thai script"
    ))
  }, // 2.2: customer_name and customer_phone are never placed here (they are `customer` fields).
  Schema.Record({
    key: Schema.String.pipe(Schema.pattern(/^(?!customer_name$|customer_phone$)[a-z][a-z0-9_]{0,63}$/)),
    value: Schema.UndefinedOr(BoundedString(256))
  })
).annotations({
  identifier: "PaymentMethodOptions"
})
/** @since 0.1.0 @category request */
export type PaymentMethodOptions = typeof PaymentMethodOptions.Type

/** Free-form merchant data: at most 50 keys of up to 40 characters, values up to 500. @since 0.1.0 @category request */
export const Metadata = Schema.Unknown.pipe(
  // A key named __proto__ would be lost when the record is built (it sets the prototype instead):
  // refused by name, never acknowledged and dropped. `constructor` and `prototype` are plain keys.
  Schema.filter((u) =>
    typeof u !== "object" || u === null || !Object.prototype.hasOwnProperty.call(u, "__proto__") ||
    { path: ["__proto__"], message: "is a reserved key name; use another key" }
  ),
  Schema.compose(
    withMessage(
      Schema.Record({ key: StorableText.pipe(Schema.minLength(1), maxCharacters(40)), value: StorableText.pipe(maxCharacters(500)) })
        .pipe(Schema.filter((r) => Object.keys(r).length <= 50)),
      "must be an object of at most 50 string values (keys up to 40 characters, values up to 500; well-formed Unicode, no NUL)"
    ),
    { strict: false }
  )
).annotations({
  identifier: "Metadata",
  jsonSchema: {
    type: "object",
    maxProperties: 50,
    additionalProperties: { type: "string", maxLength: 500 },
    propertyNames: { minLength: 1, maxLength: 40, not: { const: "__proto__" } }
  }
})

/**
 * An absolute http(s) URL with no control character (C0, DEL, C1). The raw string is checked:
 * `new URL` silently strips tabs and newlines, and the page sends the payer to the URL as given
 * (4.1.4), so what is stored must be what parses.
 *
 * @since 0.1.0 @category request
 */
export const ReturnUrl = withMessage(
  StorableText.pipe(
    maxCharacters(2048),
    Schema.filter((s) => {
      if (/[\u0000-\u001f\u007f-\u009f]/.test(s)) return false
      try {
        const url = new URL(s)
        return url.protocol === "https:" || url.protocol === "http:"
      } catch {
        return false
      }
    })
  ),
  "must be an absolute http or https URL of at most 2048 characters, with no control characters"
)

/** Method codes as discovery returns them. @since 0.1.0 @category request */
export const MethodCode = withMessage(
  Schema.String.pipe(Schema.pattern(/^[a-z0-9_]{1,64}$/)),
  "must be a payment method code from discovery"
)

/** POST /payment_intents body (2.2). Unknown fields are rejected. @since 0.1.0 @category request */
export const CreateParams = Schema.Struct({
  amount: Amount,
  currency: Currency,
  country: Country,
  checkout_mode: Schema.optional(CheckoutMode),
  merchant_reference: Schema.optional(MerchantReference),
  customer: Customer,
  payment_method: Schema.optional(MethodCode),
  payment_method_options: Schema.optional(PaymentMethodOptions),
  return_url: Schema.optional(ReturnUrl),
  device_fingerprint: Schema.optional(BoundedString(512)),
  metadata: Schema.optional(Metadata),
  external_reference: Schema.optional(BoundedString(256))
}).annotations({
  identifier: "PaymentIntentCreateParams",
  parseOptions: { errors: "all", onExcessProperty: "error" }
})
/** @since 0.1.0 @category request */
export type CreateParams = typeof CreateParams.Type
