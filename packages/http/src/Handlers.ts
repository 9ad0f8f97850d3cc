/**
 * Handlers: decode is done by the API definition, rules by `@tender/core`; these only
 * connect the two and render.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpApiError, HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { Asset, Discovery, Errors, Idempotency, PaymentIntents, Receipts, WebhookEvents } from "@tender/core"
import { Effect, FiberRef, Layer, Schema } from "effect"
import { TenderApi } from "./Api.js"
import { CurrentRequestId, fromDecodeError, principal, renderError, toHttp } from "./Middleware.js"
import * as Upload from "./Upload.js"

/** Run an effect of a typed result, rendering a failure in the D1 shape. */
const orRender = <A, R>(effect: Effect.Effect<A, Errors.ApiError, R>) =>
  Effect.catchAll(effect, (e) => renderError(e))

/** Who asks, under which request id and `Idempotency-Key` (D5: a malformed key is a 400 before anything runs). */
const context = (rawKey: string | undefined, required = false) =>
  Effect.gen(function*() {
    const who = yield* principal
    const requestId = yield* FiberRef.get(CurrentRequestId)
    const idempotencyKey = yield* Idempotency.validateKey(rawKey, required)
    return { principal: who, requestId, idempotencyKey }
  })

/** A body that must be `{}` or absent (4.5, D3). */
const emptyBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(Effect.orElseSucceed(request.text, () => ""), (text) => {
    if (text.trim() === "") return Effect.void
    try {
      const value: unknown = JSON.parse(text)
      if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) return Effect.void
    } catch {
      // answered below
    }
    return Effect.fail(Errors.ValidationFailed.at("body", "The body must be {} or absent."))
  })

const ReceiptByAsset = Schema.Struct({ asset_id: Schema.String }).annotations({ parseOptions: { onExcessProperty: "error", errors: "all" } })

/** A JSON body of `schema`, or the D1 400 naming what is wrong. */
const jsonBody = <A, I>(request: HttpServerRequest.HttpServerRequest, schema: Schema.Schema<A, I>) =>
  Effect.flatMap(Effect.orElseSucceed(request.text, () => ""), (text) => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return Effect.fail(Errors.ValidationFailed.at("body", "The request body is not valid JSON."))
    }
    return Schema.decodeUnknown(schema)(value).pipe(
      Effect.catchAll((e) => Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(e), (d) => Effect.fail(fromDecodeError(d))))
    )
  })

/** @since 0.1.0 */
export const PaymentIntentsLive = HttpApiBuilder.group(TenderApi, "paymentIntents", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      orRender(Effect.gen(function*() {
        const ctx = yield* context(headers["idempotency-key"])
        return toHttp(yield* PaymentIntents.create(ctx, payload))
      })))
    .handle("retrieve", ({ path }) =>
      orRender(Effect.flatMap(principal, (who) => PaymentIntents.retrieve(who, path.id))))
    .handle("list", ({ urlParams }) =>
      orRender(Effect.flatMap(principal, (who) => PaymentIntents.list(who, urlParams))))
    .handleRaw("confirm", ({ headers, path, request }) =>
      orRender(Effect.gen(function*() {
        const ctx = yield* context(headers["idempotency-key"])
        yield* emptyBody(request)
        return toHttp(yield* PaymentIntents.confirm(ctx, path.id))
      })))
    .handleRaw("receipt", ({ headers, path, request }) =>
      orRender(Effect.gen(function*() {
        if (Upload.isMultipart(request)) {
          // 4.4: the multipart upload requires Idempotency-Key.
          const ctx = yield* context(headers["idempotency-key"], true)
          const bytes = yield* Upload.file(request)
          return toHttp(yield* Receipts.submit(ctx, path.id, { _tag: "File", bytes }))
        }
        const ctx = yield* context(headers["idempotency-key"])
        const body = yield* jsonBody(request, ReceiptByAsset)
        return toHttp(yield* Receipts.submit(ctx, path.id, { _tag: "AssetId", assetId: body.asset_id }))
      }))))

/** @since 0.1.0 */
export const AssetsLive = HttpApiBuilder.group(TenderApi, "assets", (handlers) =>
  handlers.handleRaw("upload", ({ request }) =>
    orRender(Effect.gen(function*() {
      if (!Upload.isMultipart(request)) {
        return yield* Errors.ValidationFailed.at("Content-Type", "Content-Type must be multipart/form-data, with the file in the part named file.")
      }
      // D5: the key is required here; read from the raw headers, so its absence is our 400, not a decode error.
      const ctx = yield* context(request.headers["idempotency-key"], true)
      const bytes = yield* Upload.file(request)
      return toHttp(yield* Asset.upload(ctx, bytes))
    }))))

/** @since 0.1.0 */
export const PaymentMethodsLive = HttpApiBuilder.group(TenderApi, "paymentMethods", (handlers) =>
  handlers.handle("options", ({ urlParams }) => Effect.flatMap(principal, (who) => Discovery.discover(who, urlParams))))

const catalogueBody = JSON.stringify(WebhookEvents.catalogue)

/** @since 0.1.0 */
export const WebhookEventTypesLive = HttpApiBuilder.group(TenderApi, "webhookEventTypes", (handlers) =>
  handlers.handle("catalogue", () =>
    Effect.succeed(HttpServerResponse.text(catalogueBody, { contentType: "application/json" }))))

/** Every group. @since 0.1.0 */
export const layer = Layer.mergeAll(PaymentIntentsLive, AssetsLive, PaymentMethodsLive, WebhookEventTypesLive)
