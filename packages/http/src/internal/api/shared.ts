/**
 * What the API's groups share: one error schema per code answered, the `Authentication` and
 * `JsonBody` middleware tags, the header, path and payload schemas several groups use, and the
 * endpoint shapes every resource repeats (create, retrieve, list, an action on one resource).
 * Each group is a module beside this one; `Api.ts` assembles them into `TenderApi`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, HttpServerRequest, Multipart, OpenApi } from "@effect/platform"
import type { Authentication as CoreAuthentication } from "@tender/core"
import { Errors, Pagination } from "@tender/core"
import { Context, Schema } from "effect"
import { errorSchema } from "../errorSchema.js"

// One schema per error answered: an endpoint lists the ones it can answer (D1, spec 7).
export const ValidationFailed = errorSchema(Errors.ValidationFailed)
export const PayloadTooLarge = errorSchema(Errors.PayloadTooLarge)
export const AuthenticationRequired = errorSchema(Errors.AuthenticationRequired)
export const InvalidApiKey = errorSchema(Errors.InvalidApiKey)
export const CheckoutModeNotAllowed = errorSchema(Errors.CheckoutModeNotAllowed)
export const ResourceNotFound = errorSchema(Errors.ResourceNotFound)
export const IdempotencyConflict = errorSchema(Errors.IdempotencyConflict)
export const PaymentIntentUnexpectedState = errorSchema(Errors.PaymentIntentUnexpectedState)
export const PayoutNotCancelable = errorSchema(Errors.PayoutNotCancelable)
export const AmountExceedsRefundable = errorSchema(Errors.AmountExceedsRefundable)
export const RefundNotSupported = errorSchema(Errors.RefundNotSupported)
export const TopupIntentUnexpectedState = errorSchema(Errors.TopupIntentUnexpectedState)
export const WebhookEndpointDisabled = errorSchema(Errors.WebhookEndpointDisabled)
export const RateLimited = errorSchema(Errors.RateLimited)
export const PaymentConfigurationUnavailable = errorSchema(Errors.PaymentConfigurationUnavailable)
/** @since 0.1.0 */
export const BalanceInsufficient = errorSchema(Errors.BalanceInsufficient)
export const RoutingUnavailable = errorSchema(Errors.RoutingUnavailable)
export const ServiceUnavailable = errorSchema(Errors.ServiceUnavailable)
export const InternalError = errorSchema(Errors.InternalError)

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
  // ValidationFailed: a query the route does not take, or not UTF-8 (D1), checked once the caller is known.
  failure: Schema.Union(AuthenticationRequired, InvalidApiKey, ValidationFailed, ServiceUnavailable, InternalError),
  security: {
    basicAuth: HttpApiSecurity.basic.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "The public key as user name, the secret key as password (5).")
    )
  }
}) {}

/** Every endpoint's head: its method, its name in the group, its path and the summary the document lists it under. */
export const endpoint = {
  get: <const N extends string>(name: N, path: HttpApiEndpoint.PathSegment, summary: string) =>
    HttpApiEndpoint.get(name, path).annotate(OpenApi.Summary, summary),
  post: <const N extends string>(name: N, path: HttpApiEndpoint.PathSegment, summary: string) =>
    HttpApiEndpoint.post(name, path).annotate(OpenApi.Summary, summary),
  del: <const N extends string>(name: N, path: HttpApiEndpoint.PathSegment, summary: string) =>
    HttpApiEndpoint.del(name, path).annotate(OpenApi.Summary, summary)
}

/**
 * The checks on a request body before it is parsed: Content-Type, at most 1 MiB of JSON (413),
 * nesting depth (D1); on the endpoints that take a file, a multipart body of at most the file
 * limit and its framing (413). On the endpoints that take a body; runs after `Authentication` (5).
 *
 * @since 0.1.0
 */
export class JsonBody extends HttpApiMiddleware.Tag<JsonBody>()("@tender/http/JsonBody", {
  failure: Schema.Union(ValidationFailed, PayloadTooLarge),
  provides: HttpServerRequest.HttpServerRequest
}) {}

export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.annotations({
    description: "Up to 255 printable ASCII characters; a UUID v4 is the default choice (4.9)."
  }))
})

export const IdPath = Schema.Struct({ id: Schema.String })

/** One JPEG or PNG of at most 5 MiB in the part named `file` (4.4, D3). */
export const FileUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.SingleFileSchema.annotations({ description: "A JPEG or PNG image of at most 5 MiB" }) })
).annotations({ identifier: "FileUpload" })

/** A receipt by an asset uploaded earlier (4.4). */
export const ReceiptByAsset = Schema.Struct({ asset_id: Schema.String.annotations({ description: "An asset id (asst_…) from POST /assets" }) })
  .annotations({ identifier: "ReceiptByAsset" })

/**
 * `POST /<resources>` (4.1, 4.9): 201 with the new resource, and 200 with the original when a
 * repeat carries the same `merchant_reference` and fields. Both successes name `identifier`
 * again, since re-annotating a struct drops it. The group adds the errors its create answers.
 */
export const create = <P extends Schema.Schema.Any, H extends Schema.Schema.Any, A, I>(
  path: HttpApiEndpoint.PathSegment,
  summary: string,
  options: {
    readonly payload: P
    readonly headers: H & HttpApiEndpoint.HttpApiEndpoint.ValidateHeaders<H>
    readonly success: Schema.Schema<A, I>
    readonly identifier: string
    readonly created: string
    readonly original: string
  }
) =>
  endpoint.post("create", path, summary)
    .setPayload(options.payload)
    .setHeaders(options.headers)
    .middleware(JsonBody)
    .addSuccess(options.success.annotations(
      HttpApiSchema.annotations({ status: 201, identifier: options.identifier, description: options.created })
    ))
    .addSuccess(options.success.annotations(
      HttpApiSchema.annotations({ status: 200, identifier: options.identifier, description: options.original })
    ))

/** `GET path`: one answer computed from the query `params` (the balance, discovery), named `name`. */
export const query = <const N extends string, U extends Schema.Schema.Any, S extends Schema.Schema.Any>(
  name: N,
  path: HttpApiEndpoint.PathSegment,
  summary: string,
  params: U & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<U>,
  success: S
) =>
  endpoint.get(name, path, summary)
    .setUrlParams(params)
    .addSuccess(success)

/** `GET /<resources>/:id` (4.2): the resource, or 404 when the caller's scope holds none. */
export const retrieve = <S extends Schema.Schema.Any>(path: HttpApiEndpoint.PathSegment, summary: string, resource: S) =>
  endpoint.get("retrieve", path, summary)
    .setPath(IdPath)
    .addSuccess(resource)
    .addError(ResourceNotFound)

/** `GET /<resources>` (4.3, D6): a page in the list envelope, named `identifier` in the document. */
export const list = <U extends Schema.Schema.Any, S extends Schema.Schema.Any>(
  path: HttpApiEndpoint.PathSegment,
  summary: string,
  params: U & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<U>,
  resource: S,
  identifier: string
) => query("list", path, summary, params, Pagination.ListEnvelope(resource).annotations({ identifier }))

/**
 * `POST /<resources>/:id/<action>` (confirm, cancel, receipt): under an `Idempotency-Key`,
 * with a body checked by `JsonBody`, answering the resource. The group sets the payload, if
 * any, and adds the errors beyond 404 and 409 `idempotency_conflict`.
 */
/**
 * An action that declares no payload takes `{}` or no body (D3 for confirm; the handlers' `emptyBody`):
 * the document says so, so a request validator accepts a client sending `{}`. An action with a
 * payload keeps its own; one that annotates its own transform replaces this one.
 */
const emptyOrAbsentBody = (op: Record<string, any>) =>
  op["requestBody"] !== undefined ? op : {
    ...op,
    requestBody: {
      required: false,
      description: "{} or no body",
      content: { "application/json": { schema: { type: "object", properties: {}, additionalProperties: false } } }
    }
  }

export const action = <const Name extends string, S extends Schema.Schema.Any>(
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  summary: string,
  resource: S
) =>
  endpoint.post(name, path, summary)
    .setPath(IdPath)
    .setHeaders(IdempotencyHeaders)
    .middleware(JsonBody)
    .annotate(OpenApi.Transform, emptyOrAbsentBody)
    .addSuccess(resource)
    .addError(ResourceNotFound)
    .addError(IdempotencyConflict)

/** A group and the description its OpenAPI tag carries: the head every group module shares. */
export const group = <const Id extends string>(id: Id, description: string) => HttpApiGroup.make(id).annotate(OpenApi.Description, description)

/**
 * The tail of every authenticated group: `ValidationFailed` on all its endpoints, and `Authentication`
 * on each endpoint, not on the group, so it runs before their own middleware (`JsonBody`): HttpApi runs
 * a group's middleware after the endpoint's. Apply it last (`.pipe(authenticated)`): endpoints added
 * after it would lack authentication.
 */
export const authenticated = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  g: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>
) => g.addError(ValidationFailed).middlewareEndpoints(Authentication)
