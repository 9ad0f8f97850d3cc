/** The webhook groups (6, 4.11, D3): endpoints and the event type catalogue, assembled in `Api.ts`. */
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "@effect/platform"
import { WebhookEndpoint, WebhookEvents } from "@tender/core"
import { authenticated, group, IdempotencyConflict, IdempotencyHeaders, IdPath, JsonBody, list, ResourceNotFound, retrieve } from "./shared.js"

/** Webhook endpoints (6, D3): where a merchant hears of its events. @since 0.1.0 */
export class WebhookEndpointsGroup extends group("webhookEndpoints", "Where a merchant's events are delivered, signed (Standard Webhooks).")
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
    HttpApiEndpoint.del("delete", "/webhook_endpoints/:id")
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(WebhookEndpoint.WebhookEndpointDeleted)
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
  )
  .pipe(authenticated)
{}

/** The webhook event type catalogue (4.11, D3), without authentication (5.5). @since 0.1.0 */
export class WebhookEventTypesGroup extends group("webhookEventTypes", "The catalogue of event types a webhook endpoint may subscribe to (4.11, D3).")
  .add(
    HttpApiEndpoint.get("catalogue", "/webhook_event_types")
      .annotate(OpenApi.Summary, "List the webhook event types")
      .addSuccess(WebhookEvents.Catalogue)
  )
{}
