/**
 * Handlers: decoding is done by the API definition, rules by `@tender/core`; these only
 * connect the two. A failure is an error the endpoint declares (the compiler holds them to
 * it) and is rendered by `Middleware`; a response core already rendered is sent as it is.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Discovery, Idempotency, PaymentIntents, WebhookEvents } from "@tender/core"
import { Effect, FiberRef, Layer } from "effect"
import { CurrentPrincipal, TenderApi } from "./Api.js"
import { CurrentRequestId } from "./internal/errorSchema.js"
import { endpointLayer, toHttp } from "./Middleware.js"

const PaymentIntentsLive = HttpApiBuilder.group(TenderApi, "paymentIntents", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const requestId = yield* FiberRef.get(CurrentRequestId)
        const idempotencyKey = yield* Idempotency.validateKey(headers["idempotency-key"])
        // Core renders and stores the answer, so a replay is byte for byte (D5).
        return toHttp(yield* PaymentIntents.create({ principal, requestId, idempotencyKey }, payload))
      }))
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => PaymentIntents.retrieve(principal, path.id)))
    .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (principal) => PaymentIntents.list(principal, urlParams))))

const PaymentMethodsLive = HttpApiBuilder.group(TenderApi, "paymentMethods", (handlers) =>
  handlers.handle("options", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (principal) => Discovery.discover(principal, urlParams))))

const json = (body: string) => HttpServerResponse.text(body, { contentType: "application/json" })

const catalogueBody = JSON.stringify(WebhookEvents.catalogue)

const WebhookEventTypesLive = HttpApiBuilder.group(TenderApi, "webhookEventTypes", (handlers) =>
  handlers.handle("catalogue", () => Effect.succeed(json(catalogueBody))))

const OpenApiLive = HttpApiBuilder.group(TenderApi, "openApi", (handlers) =>
  Effect.sync(() => {
    const body = JSON.stringify(OpenApi.fromApi(TenderApi))
    return handlers.handle("document", () => Effect.succeed(json(body)))
  }))

/** Every group, with the endpoint middleware they run. @since 0.1.0 */
export const layer = Layer.mergeAll(PaymentIntentsLive, PaymentMethodsLive, WebhookEventTypesLive, OpenApiLive).pipe(
  Layer.provide(endpointLayer)
)
