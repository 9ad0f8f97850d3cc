/** The webhook groups (6, 4.11, D3): endpoints and the event type catalogue, assembled in `Api.ts`. */
import { HttpApiSchema, OpenApi } from "@effect/platform"
import { Pagination, WebhookEndpoint, WebhookEvents, WebhookTools } from "@tender/core"
import {
  action,
  authenticated,
  endpoint,
  group,
  IdempotencyConflict,
  IdempotencyHeaders,
  IdPath,
  JsonBody,
  list,
  RateLimited,
  ResourceNotFound,
  retrieve,
  WebhookEndpointDisabled
} from "./shared.js"

/** A body the handler may find absent (it is raw for it): the document must not require one. */
const optionalBody = (op: Record<string, any>) => ({ ...op, requestBody: { ...op["requestBody"], required: false } })

/** Webhook endpoints (6, D3): where a merchant hears of its events. @since 0.1.0 */
export class WebhookEndpointsGroup extends group("webhookEndpoints", "Where a merchant's events are delivered, signed (Standard Webhooks).")
  .add(
    endpoint.post("create", "/webhook_endpoints", "Create a webhook endpoint")
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
    list(
      "/webhook_endpoints",
      "List webhook endpoints",
      WebhookEndpoint.ListParams,
      WebhookEndpoint.WebhookEndpoint,
      "WebhookEndpointList"
    )
  )
  .add(retrieve("/webhook_endpoints/:id", "Retrieve a webhook endpoint", WebhookEndpoint.WebhookEndpoint))
  .add(
    endpoint.del("delete", "/webhook_endpoints/:id", "Delete a webhook endpoint")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(WebhookEndpoint.WebhookEndpointDeleted)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
  )
  .add(
    // The delivery log, newest first (D6).
    endpoint.get("attempts", "/webhook_endpoints/:id/attempts", "List a webhook endpoint's delivery attempts")
      .setPath(IdPath)
      .setUrlParams(WebhookTools.AttemptsParams)
      .addSuccess(Pagination.ListEnvelope(WebhookTools.WebhookAttempt).annotations({ identifier: "WebhookAttemptList" }))
      .addError(ResourceNotFound)
  )
  .add(
    action("resend", "/webhook_endpoints/:id/resend", "Send events to a webhook endpoint again", WebhookTools.WebhookResend)
      .annotate(
        OpenApi.Description,
        "One event (event), or every event since a time (since, optionally until) the endpoint is subscribed to. An event already queued to the endpoint is not queued again; past the endpoint's hourly resend bound the answer is 429 rate_limited with Retry-After."
      )
      .setPayload(WebhookTools.ResendParams)
      .addError(WebhookEndpointDisabled)
      .addError(RateLimited)
  )
  .add(
    // The body is optional: `{expires_in}`, `{}` or absent.
    action("rotateSecret", "/webhook_endpoints/:id/rotate_secret", "Rotate a webhook endpoint's signing secret", WebhookTools.WebhookEndpointRotated)
      .annotate(OpenApi.Description, "A new secret, shown this once; the old one keeps signing beside it for expires_in seconds (default 24 h).")
      .annotate(OpenApi.Transform, optionalBody)
      .setPayload(WebhookTools.RotateParams)
  )
  .add(
    // The body is `{}` or absent.
    action("enable", "/webhook_endpoints/:id/enable", "Enable a disabled webhook endpoint", WebhookEndpoint.WebhookEndpoint)
      .annotate(OpenApi.Description, "An endpoint disabled after failing for the stated time is sent events again; resend what it missed.")
  )
  .pipe(authenticated)
{}

/** The webhook event type catalogue (4.11, D3), without authentication (5.5). @since 0.1.0 */
export class WebhookEventTypesGroup extends group("webhookEventTypes", "The catalogue of event types a webhook endpoint may subscribe to (4.11, D3).")
  .add(
    endpoint.get("catalogue", "/webhook_event_types", "List the webhook event types")
      .addSuccess(WebhookEvents.Catalogue)
  )
{}
