/**
 * Handlers: decode is done by the API definition, rules by `@tender/core`; these only
 * connect the two and render.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Discovery, Idempotency, PaymentIntents, WebhookEvents } from "@tender/core"
import type { Errors } from "@tender/core"
import { Effect, FiberRef, Layer } from "effect"
import { TenderApi } from "./Api.js"
import { CurrentRequestId, principal, renderError, toHttp } from "./Middleware.js"

/** Run an effect of a typed result, rendering a failure in the D1 shape. */
const orRender = <A, R>(effect: Effect.Effect<A, Errors.ApiError, R>) =>
  Effect.catchAll(effect, (e) => renderError(e))

/** @since 0.1.0 */
export const PaymentIntentsLive = HttpApiBuilder.group(TenderApi, "paymentIntents", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      orRender(Effect.gen(function*() {
        const who = yield* principal
        const requestId = yield* FiberRef.get(CurrentRequestId)
        const idempotencyKey = yield* Idempotency.validateKey(headers["idempotency-key"])
        const response = yield* PaymentIntents.create({ principal: who, requestId, idempotencyKey }, payload)
        return toHttp(response)
      })))
    .handle("retrieve", ({ path }) =>
      orRender(Effect.flatMap(principal, (who) => PaymentIntents.retrieve(who, path.id))))
    .handle("list", ({ urlParams }) =>
      orRender(Effect.flatMap(principal, (who) => PaymentIntents.list(who, urlParams)))))

/** @since 0.1.0 */
export const PaymentMethodsLive = HttpApiBuilder.group(TenderApi, "paymentMethods", (handlers) =>
  handlers.handle("options", ({ urlParams }) => Effect.flatMap(principal, (who) => Discovery.discover(who, urlParams))))

const catalogueBody = JSON.stringify(WebhookEvents.catalogue)

/** @since 0.1.0 */
export const WebhookEventTypesLive = HttpApiBuilder.group(TenderApi, "webhookEventTypes", (handlers) =>
  handlers.handle("catalogue", () =>
    Effect.succeed(HttpServerResponse.text(catalogueBody, { contentType: "application/json" }))))

/** Every group. @since 0.1.0 */
export const layer = Layer.mergeAll(PaymentIntentsLive, PaymentMethodsLive, WebhookEventTypesLive)
