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

const errorCodes: Record<string, { status: string; codes: ReadonlyArray<string> }> = {
  "400": { status: "400", codes: ["validation_failed"] },
  "401": { status: "401", codes: ["authentication_required", "invalid_api_key"] },
  "403": { status: "403", codes: ["checkout_mode_not_allowed"] },
  "404": { status: "404", codes: ["resource_not_found"] },
  "405": { status: "405", codes: ["method_not_allowed"] },
  "409": { status: "409", codes: ["idempotency_conflict"] },
  "413": { status: "413", codes: ["validation_failed"] },
  "422": { status: "422", codes: ["payment_configuration_unavailable", "routing_unavailable"] },
  "500": { status: "500", codes: ["internal_error"] }
}

/** Which errors each operation can answer with. */
const operationErrors: Record<string, ReadonlyArray<string>> = {
  "paymentIntents.create": ["400", "401", "403", "409", "413", "422", "500"],
  "paymentIntents.retrieve": ["400", "401", "404", "500"],
  "paymentIntents.list": ["400", "401", "500"],
  "paymentMethods.options": ["400", "401", "500"],
  "webhookEventTypes.catalogue": ["500"]
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
      for (const status of operationErrors[id] ?? ["400", "500"]) {
        const entry = errorCodes[status]!
        responses[status] = {
          description: `Error: ${entry.codes.join(" or ")}`,
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
        op.responses["200"] = {
          description: "The original intent: a repeated create with the same merchant_reference and fingerprint (4.9)",
          content: { "application/json": { schema: { $ref: "#/components/schemas/PaymentIntentCreated" } } }
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
