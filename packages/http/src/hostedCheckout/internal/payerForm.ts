/**
 * The payer's form as posted: its body read within a bound, its entries checked with the
 * create request's own schemas, and the API's error details mapped back to the form's fields.
 */
import type { HttpServerRequest } from "@effect/platform"
import { type Discovery, type Errors, HostedPayment, PaymentIntent, type PaymentIntent as PI, Provider } from "@tender/core"
import { Effect, Schema } from "effect"
import * as Body from "../../internal/body.js"

/** The largest payer form read: its few fields fit many times over. */
export const maxFormBytes = 64 * 1024

/** The request body of a URL-encoded form; one that is too large or unreadable reads as empty (and fails the form check). */
export const formBody = (request: HttpServerRequest.HttpServerRequest) =>
  Body.bytes(request, maxFormBytes).pipe(
    Effect.map((bytes) => new URLSearchParams(Buffer.from(bytes).toString("utf8"))),
    Effect.orElseSucceed(() => new URLSearchParams())
  )

/** The payer's entries, checked with the create request's own schemas and messages (2.2, D1). */
export const PayerEntries = Schema.Struct({
  customer: Schema.Struct({ name: PaymentIntent.Customer.fields.name, phone: PaymentIntent.Customer.fields.phone }),
  payment_method_options: PaymentIntent.PaymentMethodOptions
}).annotations({ parseOptions: { errors: "all" } })

const thaiOrder: ReadonlyArray<string> = Provider.payerFields

/**
 * The fields the page collects for a method: those its route asks for (discovery's
 * `options.payer`, fields of the method's payer family, whichever family an adapter declares),
 * 2.2's in the order of its mapping table, then the family's own in the order declared.
 */
export const fieldsOf = (method: Discovery.DiscoveredMethod): ReadonlyArray<string> => {
  const asked = Object.keys(method.options.payer)
  return [...thaiOrder.filter((f) => asked.includes(f)), ...asked.filter((f) => !thaiOrder.includes(f))]
}

/**
 * What the payer posted for `method`: the values of the fields the page collects for it (none
 * for a method the intent is not offered), trimmed, the empty ones left out.
 */
export const entriesOf = (intent: PI.PaymentIntentRecord, method: string, body: URLSearchParams) =>
  Effect.gen(function*() {
    const offered = yield* HostedPayment.methodsFor(yield* HostedPayment.principalOf(intent), intent)
    const chosen = offered.find((m) => m.code === method)
    const values: Record<string, string> = {}
    for (const field of chosen === undefined ? [] : fieldsOf(chosen)) {
      const v = body.get(field)?.trim()
      if (v !== undefined && v !== "") values[field] = v
    }
    return values
  })

/** The entries as the create request holds them (2.2 mapping table), for `PayerEntries`. */
export const asCreateFields = (values: Readonly<Record<string, string>>) => {
  const { customer_name, customer_phone, ...options } = values
  return { customer: { name: customer_name, phone: customer_phone }, payment_method_options: options }
}

/** A create request path (`payment_method_options.bank`) back to the payer field (`bank`), the inverse of `payerFieldPath`. */
export const fieldOfParam = (param: string): string | undefined => {
  const options = "payment_method_options."
  return param === "customer.name"
    ? "customer_name"
    : param === "customer.phone"
    ? "customer_phone"
    : param.startsWith(options) && param.length > options.length
    ? param.slice(options.length)
    : undefined
}

export const errorsOf = (error: Errors.ValidationFailed | Errors.ApiError): Record<string, ReadonlyArray<string>> => {
  const details = "details" in error && Array.isArray(error.details) && error.details.length > 0
    ? error.details as ReadonlyArray<{ param?: string; message: string }>
    : [{ param: (error as { param?: string }).param, message: error.message }]
  const out: Record<string, Array<string>> = {}
  for (const d of details) {
    const field = d.param === undefined ? "_form" : fieldOfParam(d.param) ?? "_form"
    ;(out[field] ??= []).push(d.message)
  }
  return out
}
