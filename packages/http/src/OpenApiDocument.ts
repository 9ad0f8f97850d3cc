/**
 * The OpenAPI 3.1 document, served at `/openapi.json`: Effect's generated document with
 * the real error body (D1), Basic security (5), and Effect's built-in decode-error
 * schema removed (this API never sends it).
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { TenderApi } from "./Api.js"

type Json = Record<string, any>

/** The errors each operation can answer, by status, with their codes. */
const operationErrors: Record<string, Record<string, ReadonlyArray<string>>> = {
  "paymentIntents.create": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "403": ["checkout_mode_not_allowed"],
    "409": ["idempotency_conflict"],
    "413": ["validation_failed"],
    "422": ["payment_configuration_unavailable", "routing_unavailable"],
    "500": ["internal_error"],
    "503": ["service_unavailable"]
  },
  "paymentIntents.retrieve": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "404": ["resource_not_found"],
    "500": ["internal_error"]
  },
  "paymentIntents.list": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "500": ["internal_error"]
  },
  "paymentIntents.confirm": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "404": ["resource_not_found"],
    "409": ["idempotency_conflict", "payment_intent_unexpected_state"],
    "500": ["internal_error"],
    "503": ["service_unavailable"]
  },
  "paymentIntents.receipt": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "404": ["resource_not_found"],
    "409": ["idempotency_conflict", "payment_intent_unexpected_state"],
    "413": ["validation_failed"],
    "500": ["internal_error"],
    "503": ["service_unavailable"]
  },
  "assets.upload": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "409": ["idempotency_conflict"],
    "413": ["validation_failed"],
    "500": ["internal_error"],
    "503": ["service_unavailable"]
  },
  "paymentMethods.options": {
    "400": ["validation_failed"],
    "401": ["authentication_required", "invalid_api_key"],
    "500": ["internal_error"]
  },
  "webhookEventTypes.catalogue": { "500": ["internal_error"] }
}

const publicOperations = new Set(["webhookEventTypes.catalogue"])

const errorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "request_id"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        param: { type: "string", description: "The input at fault: a dotted path such as customer.email, or a header name" },
        details: {
          type: "array",
          items: { type: "object", required: ["message"], properties: { param: { type: "string" }, message: { type: "string" } } }
        },
        request_id: { type: "string", description: "Equal to the Request-Id response header" }
      }
    }
  }
}

/** Build the document. @since 0.1.0 */
export const make = (): Json => {
  const spec = OpenApi.fromApi(TenderApi) as unknown as Json
  spec.info = {
    title: "Tender merchant payments API",
    version: "0.1.0",
    description: "Payment intents, discovery, idempotency and webhooks. Errors use the body of #/components/schemas/Error."
  }
  spec.components ??= {}
  spec.components.schemas ??= {}
  delete spec.components.schemas.HttpApiDecodeError
  delete spec.components.schemas.Issue
  spec.components.schemas.Error = errorSchema
  spec.components.securitySchemes = {
    basicAuth: { type: "http", scheme: "basic", description: "public key as user name, secret key as password" }
  }
  spec.security = [{ basicAuth: [] }]
  for (const methods of Object.values(spec.paths as Json)) {
    for (const op of Object.values(methods as Json) as Array<Json>) {
      const id = op.operationId as string
      const responses: Json = {}
      for (const [status, body] of Object.entries(op.responses as Json)) {
        if (Number(status) < 400) responses[status] = body
      }
      for (const [status, codes] of Object.entries(operationErrors[id] ?? { "400": ["validation_failed"], "500": ["internal_error"] })) {
        responses[status] = {
          description: `Error: ${codes.join(" or ")}`,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
        }
      }
      op.responses = responses
      // Header schemas need lowercase keys to decode; document them as clients write them.
      for (const param of (op.parameters ?? []) as Array<Json>) {
        if (param.in === "header") param.name = String(param.name).replace(/(^|-)([a-z])/g, (_m: string, d: string, c: string) => d + c.toUpperCase())
      }
      if (publicOperations.has(id)) op.security = []
      if (id === "paymentIntents.create") {
        // The same body as the 201: the original intent, as its create returned it.
        op.responses["200"] = {
          description: "The original intent: a repeated create with the same merchant_reference and fingerprint (4.9)",
          content: op.responses["201"].content
        }
      }
    }
  }
  return spec
}

/** Serves the document at `/openapi.json`. @since 0.1.0 */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const body = JSON.stringify(make())
    yield* router.get("/openapi.json", Effect.sync(() => HttpServerResponse.text(body, { contentType: "application/json" })))
  }))
