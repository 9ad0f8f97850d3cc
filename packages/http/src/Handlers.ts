/**
 * Handlers: decoding is done by the API definition, rules by `@tender/core`; these only
 * connect the two. A failure is an error the endpoint declares (the compiler holds them to
 * it) and is rendered by `Middleware`; a response core already rendered is sent as it is.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpApiError, HttpServerRequest, OpenApi } from "@effect/platform"
import {
  type ApiResponse,
  Asset,
  Balances,
  Discovery,
  Errors,
  Events,
  Idempotency,
  type Operation,
  PaymentIntentCancel,
  PaymentIntents,
  PayoutIntents,
  Receipts,
  Refunds,
  TopupIntents,
  WebhookEndpoint,
  WebhookEvents,
  WebhookTools
} from "@tender/core"
import { Effect, Layer, Schema } from "effect"
import { CurrentPrincipal, documented, TenderApi } from "./Api.js"
import * as HostedCheckoutHandlers from "./hostedCheckout/Checkout.js"
import { currentRequestId } from "./internal/current.js"
import * as ProviderNotificationHandlers from "./internal/providerNotifications.js"
import { endpointLayer, fromDecodeError, jsonText, toHttp } from "./Middleware.js"
import * as Upload from "./Upload.js"

/** Who asks, under which request id and `Idempotency-Key` (D5: a malformed or missing required key is a 400 first). */
const context = (rawKey: string | undefined, required = false) =>
  Effect.gen(function*() {
    const principal = yield* CurrentPrincipal
    const requestId = yield* currentRequestId
    const idempotencyKey = yield* Idempotency.validateKey(rawKey, required)
    return { principal, requestId, idempotencyKey }
  })

/**
 * The caller of an endpoint with query parameters. The platform parses the query into a plain
 * object, where `?__proto__=x` replaces the object's prototype instead of becoming a key: the
 * parameter schema never sees it and it would pass unnoticed. Named here as the unknown
 * parameter it is (D1), from the raw query.
 */
const queryCaller = (request: HttpServerRequest.HttpServerRequest) => {
  const at = request.url.indexOf("?")
  const query = new URLSearchParams(at < 0 ? "" : request.url.slice(at + 1))
  return query.has("__proto__")
    ? Effect.fail(Errors.ValidationFailed.at("__proto__", "__proto__ is not a known parameter"))
    : CurrentPrincipal
}

/** A body that must be `{}` or absent (4.5, D3). */
const emptyBody = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  Effect.flatMap(Effect.orElseSucceed(request.text, () => ""), (text) => {
    if (text.trim() === "") return Effect.void
    try {
      const value: unknown = JSON.parse(text)
      if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) return Effect.void
    } catch {
      // answered below
    }
    return Effect.fail(Errors.ValidationFailed.at("body", "The body must be {} or absent."))
  }))

/** The handler of a POST on a resource's id that takes no body (`{}` or absent, 4.5): `act` with the caller's context. */
const bodiless =
  <E, R>(act: (context: Operation.RequestContext, id: string) => Effect.Effect<ApiResponse.ApiResponse, E, R>) =>
  ({ headers, path }: { readonly headers: { readonly "idempotency-key"?: string | undefined }; readonly path: { readonly id: string } }) =>
    Effect.gen(function*() {
      const ctx = yield* context(headers["idempotency-key"])
      yield* emptyBody
      return toHttp(yield* act(ctx, path.id))
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

/** A JSON body of `schema` that may be absent: an empty body is `{}` (D10, and a secret rotated without options). */
const optionalJsonBody = <A, I>(request: HttpServerRequest.HttpServerRequest, schema: Schema.Schema<A, I>): Effect.Effect<A | {}, Errors.ValidationFailed> =>
  Effect.flatMap(
    Effect.orElseSucceed(request.text, () => ""),
    (text): Effect.Effect<A | {}, Errors.ValidationFailed> => text.trim() === "" ? Effect.succeed({}) : jsonBody(request, schema)
  )

/**
 * A read sent as its JSON text, as a create's answer is (`toHttp`), rather than handed to the
 * definition's success schema to encode: that encoding rebuilt every field of every record on
 * the page, the largest share of a list page's CPU in its profile (docs/performance.md, "HTTP and
 * core"). Every resource's reads go this way: core's views write the wire shape in the schema's
 * own field order, each record's text once (`RenderedView`); `Reads.test.ts` checks that each
 * body is exactly what the schema's encoding gives.
 */
const rendered = <E, R>(read: Effect.Effect<string, E, R>) => Effect.map(read, (json) => jsonText(json))

const PaymentIntentsLive = HttpApiBuilder.group(TenderApi, "paymentIntents", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const requestId = yield* currentRequestId
        const idempotencyKey = yield* Idempotency.validateKey(headers["idempotency-key"])
        // Core renders and stores the answer, so a replay is byte for byte (D5).
        return toHttp(yield* PaymentIntents.create({ principal, requestId, idempotencyKey }, payload))
      }))
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => rendered(PaymentIntents.retrieveJson(principal, path.id))))
    .handle("list", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => rendered(PaymentIntents.listJson(principal, urlParams))))
    .handle("confirm", bodiless(PaymentIntents.confirm))
    // Raw: D10 allows the body absent, which the definition's JSON payload would refuse.
    .handleRaw("cancel", ({ headers, path, request }) =>
      Effect.gen(function*() {
        const ctx = yield* context(headers["idempotency-key"])
        const body = yield* optionalJsonBody(request, PaymentIntentCancel.CancelParams)
        return toHttp(yield* PaymentIntentCancel.cancel(ctx, path.id, body))
      }))
    // Raw: the multipart body is streamed by `Upload.file`, never persisted whole by the decoder.
    .handleRaw("receipt", ({ headers, path, request }) =>
      Effect.gen(function*() {
        if (Upload.isMultipart(request)) {
          // 4.4: the multipart upload requires Idempotency-Key.
          const ctx = yield* context(headers["idempotency-key"], true)
          const bytes = yield* Upload.file(request)
          return toHttp(yield* Receipts.submit(ctx, path.id, { _tag: "File", bytes }))
        }
        const ctx = yield* context(headers["idempotency-key"])
        const body = yield* jsonBody(request, ReceiptByAsset)
        return toHttp(yield* Receipts.submit(ctx, path.id, { _tag: "AssetId", assetId: body.asset_id }))
      })))

const AssetsLive = HttpApiBuilder.group(TenderApi, "assets", (handlers) =>
  handlers.handleRaw("upload", ({ headers, request }) =>
    Effect.gen(function*() {
      if (!Upload.isMultipart(request)) {
        return yield* Errors.ValidationFailed.at("Content-Type", "Content-Type must be multipart/form-data, with the file in the part named file.")
      }
      // 4.9.1, D5: optional here, as on every POST but the two that D5 names.
      const ctx = yield* context(headers["idempotency-key"])
      const bytes = yield* Upload.file(request)
      return toHttp(yield* Asset.upload(ctx, bytes))
    })))

const PayoutIntentsLive = HttpApiBuilder.group(TenderApi, "payoutIntents", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      Effect.flatMap(context(headers["idempotency-key"]), (ctx) => Effect.map(PayoutIntents.create(ctx, payload), toHttp)))
    .handle("retrieve", ({ path }) =>
      Effect.flatMap(CurrentPrincipal, (principal) => rendered(PayoutIntents.retrieveJson(principal, path.id))))
    .handle("list", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => rendered(PayoutIntents.listJson(principal, urlParams))))
    .handle("cancel", bodiless(PayoutIntents.cancel)))

const RefundsLive = HttpApiBuilder.group(TenderApi, "refunds", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) => Effect.flatMap(context(headers["idempotency-key"]), (ctx) => Effect.map(Refunds.create(ctx, payload), toHttp)))
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => rendered(Refunds.retrieveJson(principal, path.id))))
    .handle("list", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => rendered(Refunds.listJson(principal, urlParams)))))

const TopupIntentsLive = HttpApiBuilder.group(TenderApi, "topupIntents", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      // 4.7, D5: the key is required.
      Effect.flatMap(context(headers["idempotency-key"], true), (ctx) => Effect.map(TopupIntents.create(ctx, payload), toHttp)))
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => rendered(TopupIntents.retrieveJson(principal, path.id))))
    .handle("list", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => rendered(TopupIntents.listJson(principal, urlParams))))
    .handle("receipt", ({ headers, path, payload }) =>
      Effect.flatMap(context(headers["idempotency-key"]), (ctx) =>
        Effect.map(TopupIntents.submitReceipt(ctx, path.id, payload.asset_id), toHttp))))

const WebhookEndpointsLive = HttpApiBuilder.group(TenderApi, "webhookEndpoints", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) =>
      Effect.flatMap(context(headers["idempotency-key"]), (ctx) => Effect.map(WebhookEndpoint.create(ctx, payload), toHttp)))
    .handle("list", ({ request, urlParams }) =>
      Effect.flatMap(queryCaller(request), (principal) => rendered(WebhookEndpoint.listJson(principal, urlParams))))
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => rendered(WebhookEndpoint.retrieveJson(principal, path.id))))
    .handle("delete", ({ headers, path }) =>
      Effect.flatMap(context(headers["idempotency-key"]), (ctx) =>
        Effect.map(WebhookEndpoint.remove(ctx, path.id), toHttp)))
    .handle("attempts", ({ path, request, urlParams }) =>
      Effect.flatMap(queryCaller(request), (principal) =>
        WebhookTools.attempts(principal, path.id, urlParams)))
    .handle("resend", ({ headers, path, payload }) =>
      Effect.flatMap(context(headers["idempotency-key"]), (ctx) =>
        Effect.map(WebhookTools.resend(ctx, path.id, payload), toHttp)))
    // Raw: the body may be absent, which the definition's JSON payload would refuse.
    .handleRaw("rotateSecret", ({ headers, path, request }) =>
      Effect.gen(function*() {
        const ctx = yield* context(headers["idempotency-key"])
        const body = yield* optionalJsonBody(request, WebhookTools.RotateParams)
        return toHttp(yield* WebhookTools.rotate(ctx, path.id, body))
      }))
    .handle("enable", bodiless(WebhookTools.enable)))

const EventsLive = HttpApiBuilder.group(TenderApi, "events", (handlers) =>
  handlers
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => rendered(Events.retrieveJson(principal, path.id))))
    .handle("list", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => rendered(Events.listJson(principal, urlParams)))))

const BalanceLive = HttpApiBuilder.group(TenderApi, "balance", (handlers) =>
  // The balance takes no parameter: any one is unknown (D1), named in the 400.
  handlers.handle("retrieve", ({ request }) => {
    const at = request.url.indexOf("?")
    const [unknown] = new URLSearchParams(at < 0 ? "" : request.url.slice(at + 1)).keys()
    return unknown === undefined
      ? Effect.flatMap(CurrentPrincipal, Balances.balance)
      : Effect.fail(Errors.ValidationFailed.at(unknown, `${unknown} is not a known parameter`))
  }))

const BalanceTransactionsLive = HttpApiBuilder.group(TenderApi, "balanceTransactions", (handlers) =>
  handlers
    .handle("retrieve", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => rendered(Balances.retrieveJson(principal, path.id))))
    .handle("list", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => rendered(Balances.listJson(principal, urlParams)))))

const PaymentMethodsLive = HttpApiBuilder.group(
  TenderApi,
  "paymentMethods",
  (handlers) =>
    handlers.handle("options", ({ request, urlParams }) => Effect.flatMap(queryCaller(request), (principal) => Discovery.discover(principal, urlParams)))
)

const catalogueBody = JSON.stringify(WebhookEvents.catalogue)

const WebhookEventTypesLive = HttpApiBuilder.group(
  TenderApi,
  "webhookEventTypes",
  (handlers) => handlers.handle("catalogue", () => Effect.succeed(jsonText(catalogueBody)))
)

const OpenApiLive = HttpApiBuilder.group(TenderApi, "openApi", (handlers) =>
  Effect.sync(() => {
    // Paths as defined; the server `.` resolves against where the document is served, so under
    // a prefix (`/payments/openapi.json`) a client calls `/payments/…` (docs/embedding.md).
    const body = JSON.stringify(OpenApi.fromApi(documented))
    return handlers.handle("document", () => Effect.succeed(jsonText(body)))
  }))

/** Every group, with the endpoint middleware they run. @since 0.1.0 */
export const layer = Layer.mergeAll(
  PaymentIntentsLive,
  AssetsLive,
  PayoutIntentsLive,
  RefundsLive,
  TopupIntentsLive,
  WebhookEndpointsLive,
  EventsLive,
  BalanceLive,
  BalanceTransactionsLive,
  PaymentMethodsLive,
  WebhookEventTypesLive,
  OpenApiLive,
  HostedCheckoutHandlers.layer,
  ProviderNotificationHandlers.layer
).pipe(
  Layer.provide(endpointLayer)
)
