/**
 * The HTTP definition of the merchant API, and the only route table: each endpoint with its
 * path, payload, successes, the errors it can answer and the middleware it runs. Routing,
 * 404/405, the request checks and `/openapi.json` are all derived from this definition.
 *
 * @since 0.1.0
 */
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  Multipart,
  OpenApi
} from "@effect/platform"
import type { Authentication as CoreAuthentication } from "@tender/core"
import {
  Asset,
  Discovery,
  Errors,
  Pagination,
  PaymentIntent,
  PaymentIntents,
  PaymentIntentCancel,
  PayoutIntent,
  PayoutIntents,
  Refund,
  Refunds,
  TopupIntent,
  TopupIntents,
  WebhookEndpoint,
  WebhookEvents
} from "@tender/core"
import { Context, Schema } from "effect"
import { AnyError, errorSchema } from "./internal/errorSchema.js"
import { documentAsClientsSee } from "./internal/openApi.js"
import { HostedCheckoutGroup } from "./hosted/Api.js"

// One schema per error answered: an endpoint lists the ones it can answer (D1, spec 7).
const ValidationFailed = errorSchema(Errors.ValidationFailed)
const PayloadTooLarge = errorSchema(Errors.PayloadTooLarge)
const AuthenticationRequired = errorSchema(Errors.AuthenticationRequired)
const InvalidApiKey = errorSchema(Errors.InvalidApiKey)
const CheckoutModeNotAllowed = errorSchema(Errors.CheckoutModeNotAllowed)
const ResourceNotFound = errorSchema(Errors.ResourceNotFound)
const IdempotencyConflict = errorSchema(Errors.IdempotencyConflict)
const PaymentIntentUnexpectedState = errorSchema(Errors.PaymentIntentUnexpectedState)
const PayoutNotCancelable = errorSchema(Errors.PayoutNotCancelable)
const AmountExceedsRefundable = errorSchema(Errors.AmountExceedsRefundable)
const RefundNotSupported = errorSchema(Errors.RefundNotSupported)
const TopupIntentUnexpectedState = errorSchema(Errors.TopupIntentUnexpectedState)
const PaymentConfigurationUnavailable = errorSchema(Errors.PaymentConfigurationUnavailable)
const RoutingUnavailable = errorSchema(Errors.RoutingUnavailable)
const ServiceUnavailable = errorSchema(Errors.ServiceUnavailable)
const InternalError = errorSchema(Errors.InternalError)

/** The authenticated caller, provided to handlers by `Authentication` (5, 5.3). @since 0.1.0 */
export class CurrentPrincipal extends Context.Tag("@tender/http/CurrentPrincipal")<
  CurrentPrincipal,
  CoreAuthentication.Principal
>() {}

/**
 * Basic authentication with an API key pair (5, D2). Its failures are declared here, so every
 * authenticated operation documents both 401 codes and the storage faults of the key lookup.
 *
 * @since 0.1.0
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@tender/http/Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(AuthenticationRequired, InvalidApiKey, ServiceUnavailable, InternalError),
  security: {
    basicAuth: HttpApiSecurity.basic.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "The public key as user name, the secret key as password (5).")
    )
  }
}) {}

/**
 * The checks on a request body before it is parsed: Content-Type, at most 1 MiB of JSON (413),
 * nesting depth (D1); on the endpoints that take a file, a multipart body of at most the file
 * limit and its framing (413). On the endpoints that take a body; runs after `Authentication` (5).
 *
 * @since 0.1.0
 */
export class JsonBody extends HttpApiMiddleware.Tag<JsonBody>()("@tender/http/JsonBody", {
  failure: Schema.Union(ValidationFailed, PayloadTooLarge)
}) {}

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.annotations({
    description: "Up to 255 printable ASCII characters; a UUID v4 is the default choice (4.9)."
  }))
})

const IdPath = Schema.Struct({ id: Schema.String })

/** One JPEG or PNG of at most 5 MiB in the part named `file` (4.4, D3). */
const FileUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.SingleFileSchema.annotations({ description: "A JPEG or PNG image of at most 5 MiB" }) })
).annotations({ identifier: "FileUpload" })

/** A receipt by an asset uploaded earlier (4.4). */
const ReceiptByAsset = Schema.Struct({ asset_id: Schema.String.annotations({ description: "An asset id (asst_…) from POST /assets" }) })
  .annotations({ identifier: "ReceiptByAsset" })

/** Payment intents (4.1-4.5). @since 0.1.0 */
export class PaymentIntentsGroup extends HttpApiGroup.make("paymentIntents")
  .annotate(OpenApi.Description, "Payment intents: create, retrieve, list, confirm, receipts (4.1-4.5) and cancel (D10).")
  .add(
    HttpApiEndpoint.post("create", "/payment_intents")
      .annotate(OpenApi.Summary, "Create a payment intent")
      .setPayload(PaymentIntent.CreateParams)
      .setHeaders(IdempotencyHeaders)
      .middleware(JsonBody)
      .addSuccess(PaymentIntent.PaymentIntentCreated.annotations(
        HttpApiSchema.annotations({ status: 201, identifier: "PaymentIntentCreated", description: "The intent, created" })
      ))
      // 4.9: a repeat with the same merchant_reference and fields answers the original intent.
      .addSuccess(PaymentIntent.PaymentIntentCreated.annotations(HttpApiSchema.annotations({
        status: 200,
        identifier: "PaymentIntentCreated",
        description: "The original intent: a repeated create with the same merchant_reference and fields (4.9)"
      })))
      .addError(CheckoutModeNotAllowed)
      .addError(IdempotencyConflict)
      .addError(PaymentConfigurationUnavailable)
      .addError(RoutingUnavailable)
  )
  .add(
    HttpApiEndpoint.get("retrieve", "/payment_intents/:id")
      .annotate(OpenApi.Summary, "Retrieve a payment intent")
      .setPath(IdPath)
      .addSuccess(PaymentIntent.PaymentIntent)
      .addError(ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/payment_intents")
      .annotate(OpenApi.Summary, "List payment intents")
      .setUrlParams(PaymentIntents.ListParams)
      .addSuccess(Pagination.ListEnvelope(PaymentIntent.PaymentIntent).annotations({ identifier: "PaymentIntentList" }))
  )
  .add(
    // 4.5, D3: the body is `{}` or absent; the outcome arrives later (3.1.6).
    HttpApiEndpoint.post("confirm", "/payment_intents/:id/confirm")
      .annotate(OpenApi.Summary, "Confirm a payment intent")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .middleware(JsonBody)
      .addSuccess(PaymentIntent.PaymentIntent)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(PaymentIntentUnexpectedState)
  )
  .add(
    // 4.4: JSON `{asset_id}`, or the file itself (multipart, part `file`, Idempotency-Key required).
    HttpApiEndpoint.post("receipt", "/payment_intents/:id/receipt")
      .annotate(OpenApi.Summary, "Attach a receipt to a payment intent")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(Schema.Union(ReceiptByAsset, FileUpload))
      .middleware(JsonBody)
      .addSuccess(PaymentIntent.PaymentIntent)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(PaymentIntentUnexpectedState)
      .addError(PayloadTooLarge)
  )
  .add(
    // D10: the body is `{}`, absent, or `{cancellation_reason}`.
    HttpApiEndpoint.post("cancel", "/payment_intents/:id/cancel")
      .annotate(OpenApi.Summary, "Cancel a payment intent")
      .annotate(OpenApi.Description, "Only while requires_action; the provider is told durably, and a payment it reports later is refunded (D10).")
      // D10 allows the body absent (the handler is raw for it): the document must not require one.
      .annotate(OpenApi.Transform, (op) => ({ ...op, requestBody: { ...op.requestBody, required: false } }))
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(PaymentIntentCancel.CancelParams)
      .middleware(JsonBody)
      .addSuccess(PaymentIntent.PaymentIntent)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(PaymentIntentUnexpectedState)
  )
  .addError(ValidationFailed)
  // On the endpoints, not the group, so it runs before their own middleware (`JsonBody`):
  // HttpApi runs a group's middleware after the endpoint's. Last: endpoints added later lack it.
  .middlewareEndpoints(Authentication)
{}

/** Assets: files for later receipts (D3, 4.4). @since 0.1.0 */
export class AssetsGroup extends HttpApiGroup.make("assets")
  .annotate(OpenApi.Description, "Files uploaded for later use, such as a receipt image (4.4).")
  .add(
    HttpApiEndpoint.post("upload", "/assets")
      .annotate(OpenApi.Summary, "Upload an asset")
      .setHeaders(IdempotencyHeaders)
      .setPayload(FileUpload)
      .middleware(JsonBody)
      .addSuccess(Asset.Asset.annotations(HttpApiSchema.annotations({ status: 201, identifier: "Asset" })))
      .addError(IdempotencyConflict)
      .addError(PayloadTooLarge)
  )
  .addError(ValidationFailed)
  .middlewareEndpoints(Authentication)
{}

/** Payout intents (2.7, 3.3, 4.10, D3, D8). @since 0.1.0 */
export class PayoutIntentsGroup extends HttpApiGroup.make("payoutIntents")
  .annotate(OpenApi.Description, "Payout intents: create, retrieve, list and cancel (2.7, 4.10, D8).")
  .add(
    HttpApiEndpoint.post("create", "/payout_intents")
      .annotate(OpenApi.Summary, "Create a payout intent")
      .setPayload(PayoutIntent.CreateParams)
      .setHeaders(IdempotencyHeaders)
      .middleware(JsonBody)
      .addSuccess(PayoutIntent.PayoutIntent.annotations(
        HttpApiSchema.annotations({ status: 201, identifier: "PayoutIntentCreated", description: "The payout, awaiting approval" })
      ))
      // 4.9 merchant_reference rule 5: a repeat with the same fields answers the original.
      .addSuccess(PayoutIntent.PayoutIntent.annotations(HttpApiSchema.annotations({
        status: 200,
        identifier: "PayoutIntentCreated",
        description: "The original payout: a repeated create with the same merchant_reference and fields (4.9)"
      })))
      .addError(IdempotencyConflict)
      .addError(PaymentConfigurationUnavailable)
  )
  .add(
    HttpApiEndpoint.get("retrieve", "/payout_intents/:id")
      .annotate(OpenApi.Summary, "Retrieve a payout intent")
      .setPath(IdPath)
      .addSuccess(PayoutIntent.PayoutIntent)
      .addError(ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/payout_intents")
      .annotate(OpenApi.Summary, "List payout intents")
      .setUrlParams(PayoutIntents.ListParams)
      .addSuccess(Pagination.ListEnvelope(PayoutIntent.PayoutIntent).annotations({ identifier: "PayoutIntentList" }))
  )
  .add(
    HttpApiEndpoint.post("cancel", "/payout_intents/:id/cancel")
      .annotate(OpenApi.Summary, "Cancel a payout intent")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .middleware(JsonBody)
      .addSuccess(PayoutIntent.PayoutIntent)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(PayoutNotCancelable)
  )
  .addError(ValidationFailed)
  .middlewareEndpoints(Authentication)
{}

/** Refunds (D10). @since 0.1.0 */
export class RefundsGroup extends HttpApiGroup.make("refunds")
  .annotate(OpenApi.Description, "Refunds: all or part of a succeeded payment given back; create, retrieve and list (D10).")
  .add(
    HttpApiEndpoint.post("create", "/refunds")
      .annotate(OpenApi.Summary, "Create a refund")
      .setPayload(Refund.CreateParams)
      .setHeaders(IdempotencyHeaders)
      .middleware(JsonBody)
      .addSuccess(Refund.Refund.annotations(
        HttpApiSchema.annotations({ status: 201, identifier: "RefundCreated", description: "The refund, pending at the provider" })
      ))
      // D10, as 4.9 for payment intents: a repeat with the same merchant_reference and fields answers the original.
      .addSuccess(Refund.Refund.annotations(HttpApiSchema.annotations({
        status: 200,
        identifier: "RefundCreated",
        description: "The original refund: a repeated create with the same merchant_reference and fields (D10)"
      })))
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(PaymentIntentUnexpectedState)
      .addError(AmountExceedsRefundable)
      .addError(RefundNotSupported)
  )
  .add(
    HttpApiEndpoint.get("retrieve", "/refunds/:id")
      .annotate(OpenApi.Summary, "Retrieve a refund")
      .setPath(IdPath)
      .addSuccess(Refund.Refund)
      .addError(ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/refunds")
      .annotate(OpenApi.Summary, "List refunds")
      .setUrlParams(Refunds.ListParams)
      .addSuccess(Pagination.ListEnvelope(Refund.Refund).annotations({ identifier: "RefundList" }))
  )
  .addError(ValidationFailed)
  .middlewareEndpoints(Authentication)
{}

/** POST /topup_intents requires the key (4.7, D5): documented as required; its absence is a 400 naming `Idempotency-Key`. */
const TopupHeaders = Schema.Struct({
  "idempotency-key": Schema.String.annotations({
    description: "Required (4.7, 4.9.1): up to 255 printable ASCII characters; a UUID v4 is the default choice."
  })
})

/** Top-up intents (2.5, 4.7, 4.8, D3). @since 0.1.0 */
export class TopupIntentsGroup extends HttpApiGroup.make("topupIntents")
  .annotate(OpenApi.Description, "Top-up intents: create, retrieve, list and a receipt for a manual top-up (2.5, 4.7, 4.8).")
  .add(
    HttpApiEndpoint.post("create", "/topup_intents")
      .annotate(OpenApi.Summary, "Create a top-up intent")
      .setPayload(TopupIntent.CreateParams)
      .setHeaders(TopupHeaders)
      .middleware(JsonBody)
      .addSuccess(TopupIntent.TopupIntent.annotations(
        HttpApiSchema.annotations({ status: 201, identifier: "TopupIntentCreated", description: "The top-up, awaiting payment" })
      ))
      // 4.9: a repeat with the same merchant_reference and fields answers the original.
      .addSuccess(TopupIntent.TopupIntent.annotations(HttpApiSchema.annotations({
        status: 200,
        identifier: "TopupIntentCreated",
        description: "The original top-up: a repeated create with the same merchant_reference and fields (4.9)"
      })))
      .addError(IdempotencyConflict)
      .addError(PaymentConfigurationUnavailable)
      .addError(RoutingUnavailable)
  )
  .add(
    HttpApiEndpoint.get("retrieve", "/topup_intents/:id")
      .annotate(OpenApi.Summary, "Retrieve a top-up intent")
      .setPath(IdPath)
      .addSuccess(TopupIntent.TopupIntent)
      .addError(ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/topup_intents")
      .annotate(OpenApi.Summary, "List top-up intents")
      .setUrlParams(TopupIntents.ListParams)
      .addSuccess(Pagination.ListEnvelope(TopupIntent.TopupIntent).annotations({ identifier: "TopupIntentList" }))
  )
  .add(
    // A `manual_receipt` top-up's receipt: an asset uploaded earlier (docs/topups.md).
    HttpApiEndpoint.post("receipt", "/topup_intents/:id/receipt")
      .annotate(OpenApi.Summary, "Attach a receipt to a top-up intent")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(ReceiptByAsset)
      .middleware(JsonBody)
      .addSuccess(TopupIntent.TopupIntent)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(TopupIntentUnexpectedState)
  )
  .addError(ValidationFailed)
  .middlewareEndpoints(Authentication)
{}

/** Webhook endpoints (6, D3): where a merchant hears of its events. @since 0.1.0 */
export class WebhookEndpointsGroup extends HttpApiGroup.make("webhookEndpoints")
  .annotate(OpenApi.Description, "Where a merchant's events are delivered, signed (Standard Webhooks).")
  .add(
    HttpApiEndpoint.post("create", "/webhook_endpoints")
      .annotate(OpenApi.Summary, "Create a webhook endpoint")
      .setPayload(WebhookEndpoint.CreateParams)
      .setHeaders(IdempotencyHeaders)
      .middleware(JsonBody)
      .addSuccess(WebhookEndpoint.WebhookEndpointCreated.annotations(HttpApiSchema.annotations({
        status: 201,
        identifier: "WebhookEndpointCreated",
        description: "The endpoint, with its signing secret: shown this once"
      })))
      .addError(IdempotencyConflict)
  )
  .add(
    HttpApiEndpoint.get("list", "/webhook_endpoints")
      .annotate(OpenApi.Summary, "List webhook endpoints")
      .setUrlParams(WebhookEndpoint.ListParams)
      .addSuccess(Pagination.ListEnvelope(WebhookEndpoint.WebhookEndpoint).annotations({ identifier: "WebhookEndpointList" }))
  )
  .add(
    HttpApiEndpoint.get("retrieve", "/webhook_endpoints/:id")
      .annotate(OpenApi.Summary, "Retrieve a webhook endpoint")
      .setPath(IdPath)
      .addSuccess(WebhookEndpoint.WebhookEndpoint)
      .addError(ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhook_endpoints/:id")
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(WebhookEndpoint.WebhookEndpointDeleted)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
  )
  .addError(ValidationFailed)
  .middlewareEndpoints(Authentication)
{}

/** Discovery (4.6). @since 0.1.0 */
export class PaymentMethodsGroup extends HttpApiGroup.make("paymentMethods")
  .annotate(OpenApi.Description, "Discovery: the payment methods a payment can use (4.6).")
  .add(
    HttpApiEndpoint.get("options", "/payment_methods/options")
      .annotate(OpenApi.Summary, "List the payment methods a payment can use")
      .setUrlParams(Discovery.DiscoveryParams)
      .addSuccess(Discovery.DiscoveryResponse)
  )
  .addError(ValidationFailed)
  .middlewareEndpoints(Authentication)
{}

/** The webhook event type catalogue (4.11, D3), without authentication (5.5). @since 0.1.0 */
export class WebhookEventTypesGroup extends HttpApiGroup.make("webhookEventTypes")
  .annotate(OpenApi.Description, "The catalogue of event types a webhook endpoint may subscribe to (4.11, D3).")
  .add(
    HttpApiEndpoint.get("catalogue", "/webhook_event_types")
      .annotate(OpenApi.Summary, "List the webhook event types")
      .addSuccess(WebhookEvents.Catalogue)
  )
{}

/** The OpenAPI document of this API, itself left out of the document. @since 0.1.0 */
export class OpenApiGroup extends HttpApiGroup.make("openApi")
  .add(HttpApiEndpoint.get("document", "/openapi.json"))
  .annotate(OpenApi.Exclude, true)
{}

/**
 * The whole API. A host may add it to its own (`.addHttpApi(TenderApi.prefix("/payments"))`,
 * docs/embedding.md): its document-level annotations are kept off it (`documented`), since
 * `addHttpApi` copies an API's annotations onto each of its groups.
 *
 * @since 0.1.0
 */
export class TenderApi extends HttpApi.make("tender")
  .add(PaymentIntentsGroup)
  .add(AssetsGroup)
  .add(PayoutIntentsGroup)
  .add(RefundsGroup)
  .add(TopupIntentsGroup)
  .add(WebhookEndpointsGroup)
  .add(PaymentMethodsGroup)
  .add(WebhookEventTypesGroup)
  .add(OpenApiGroup)
  .add(HostedCheckoutGroup)
  // Any request can meet an unexpected fault (D1: details logged, never sent).
  .addError(InternalError)
{}

/** The API with the annotations of its own OpenAPI document (`/openapi.json`). @since 0.1.0 */
export const documented = TenderApi
  .annotate(HttpApi.AdditionalSchemas, [AnyError])
  .annotateContext(OpenApi.annotations({
    title: "Tender merchant payments API",
    version: "0.1.0",
    license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
    description: "Payment intents, discovery, idempotency and webhooks. Every error answers the body of " +
      "#/components/schemas/Error (D1); each error response names its codes.",
    transform: documentAsClientsSee
  }))
