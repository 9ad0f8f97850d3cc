/**
 * The D1 error body as a schema, one per error code, so an endpoint declares the errors it
 * can answer with `addError` and the OpenAPI document is generated from those declarations.
 */
import { HttpApiSchema } from "@effect/platform"
import { Errors } from "@tender/core"
import { Effect, ParseResult, Schema } from "effect"
import { currentRequestId } from "./current.js"

/** What an error class carries on the class itself (see core's `Errors`). @since 0.1.0 */
export interface ErrorClass {
  readonly status: number
  readonly code: string
}

/** Every error the API can fail with that renders with this status and code (several classes may). @since 0.1.0 */
export type Answering<C extends ErrorClass> = Extract<Errors.ApiError, { readonly status: C["status"]; readonly code: C["code"] }>

/** Core's errors and storage errors both carry `status` and `code`; the body is built from those. @since 0.1.0 */
export const isApiError = (u: unknown): u is Errors.ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && "code" in u && "status" in u &&
  typeof (u as { status: unknown }).status === "number" && typeof (u as { code: unknown }).code === "string"

const Detail = Schema.Struct({
  param: Schema.optional(Schema.String),
  message: Schema.String
}).annotations({ identifier: "ErrorDetail" })

const errorFields = {
  message: Schema.String,
  param: Schema.optional(Schema.String.annotations({
    description: "The input at fault: a dotted path such as customer.email, or a header name"
  })),
  details: Schema.optional(Schema.Array(Detail)),
  request_id: Schema.String.annotations({ description: "Equal to the Request-Id response header" })
}

/** The D1 body with any code: what every error response is, for a client's generic handling. @since 0.1.0 */
export const AnyError = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, ...errorFields })
}).annotations({ identifier: "Error", description: "The error body of every failure (D1); each response's schemas fix its codes." })

/** `validation_failed` -> `ValidationFailed`: the component name of the code's schema. */
const componentName = (code: string) => code.replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase())

/**
 * The D1 wire schema for one error class: `{ error: { code, message, param?, details?, request_id } }`
 * with `code` the class's literal, annotated with the class's status and named after its
 * code. Its type side is any API error with that status and code, so a middleware or
 * handler that fails with one type-checks against the declaration. Encoding renders the
 * body for the current request id, exactly as the API-level middleware sends it.
 *
 * @since 0.1.0
 */
export const errorSchema = <const C extends ErrorClass>(errorClass: C) => {
  const Body = Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(errorClass.code as C["code"]),
      ...errorFields
    })
  })
  const answers = (u: unknown): u is Answering<C> => isApiError(u) && u.status === errorClass.status && u.code === errorClass.code
  return Schema.transformOrFail(Body, Schema.declare(answers), {
    strict: false,
    // A client reads the body back into core's class (the 500 class stands for every fault).
    decode: ({ error: { details, message, param } }) =>
      ParseResult.succeed(
        new (errorClass as unknown as new(fields: object) => Answering<C>)({
          message,
          ...(param !== undefined ? { param } : {}),
          ...(details !== undefined ? { details } : {})
        })
      ),
    encode: (error) => Effect.map(currentRequestId, (id) => Errors.errorBody(error, id) as typeof Body.Encoded)
  }).annotations(HttpApiSchema.annotations({
    status: errorClass.status,
    identifier: componentName(errorClass.code)
  }))
}
