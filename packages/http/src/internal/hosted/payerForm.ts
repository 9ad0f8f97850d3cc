/**
 * The payer's form as posted: its body read within a bound, its entries checked with the
 * create request's own schemas, and the API's error details mapped back to the form's fields.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Discovery, type Errors, PaymentIntent } from "@tender/core"
import { Effect, Schema } from "effect"
import * as Body from "../body.js"

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

/** A create request path (`payment_method_options.bank`) back to discovery's payer field (`bank`). */
export const fieldOfParam = new Map<string, string>(Object.entries(Discovery.createRequestPath).map(([f, p]) => [p, f]))

export const errorsOf = (error: Errors.ValidationFailed | Errors.ApiError): Record<string, ReadonlyArray<string>> => {
  const details = "details" in error && Array.isArray(error.details) && error.details.length > 0
    ? error.details as ReadonlyArray<{ param?: string; message: string }>
    : [{ param: (error as { param?: string }).param, message: error.message }]
  const out: Record<string, Array<string>> = {}
  for (const d of details) {
    const field = d.param === undefined ? "_form" : fieldOfParam.get(d.param) ?? "_form"
    ;(out[field] ??= []).push(d.message)
  }
  return out
}
