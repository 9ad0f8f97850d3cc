/**
 * The HTTP definition of the merchant API: endpoints, their schemas and statuses. Error
 * responses are rendered by `Middleware` and documented by `OpenApiDocument`.
 *
 * @since 0.1.0
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Discovery, Pagination, PaymentIntent, PaymentIntents, WebhookEvents } from "@tender/core"
import { Schema } from "effect"

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.annotations({
    description: "Up to 255 printable ASCII characters; a UUID v4 is the default choice (4.9)."
  }))
})

/** Payment intents (4.1-4.3). @since 0.1.0 */
export class PaymentIntentsGroup extends HttpApiGroup.make("paymentIntents")
  .add(
    HttpApiEndpoint.post("create", "/payment_intents")
      .setPayload(PaymentIntent.CreateParams)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(PaymentIntent.PaymentIntentCreated, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("retrieve", "/payment_intents/:id")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(PaymentIntent.PaymentIntent)
  )
  .add(
    HttpApiEndpoint.get("list", "/payment_intents")
      .setUrlParams(PaymentIntents.ListParams)
      .addSuccess(Pagination.ListEnvelope(PaymentIntent.PaymentIntent).annotations({ identifier: "PaymentIntentList" }))
  )
{}

/** Discovery (4.6). @since 0.1.0 */
export class PaymentMethodsGroup extends HttpApiGroup.make("paymentMethods").add(
  HttpApiEndpoint.get("options", "/payment_methods/options")
    .setUrlParams(Discovery.DiscoveryParams)
    .addSuccess(Discovery.DiscoveryResponse)
) {}

/** The webhook event type catalogue (4.11, D3), without authentication. @since 0.1.0 */
export class WebhookEventTypesGroup extends HttpApiGroup.make("webhookEventTypes").add(
  HttpApiEndpoint.get("catalogue", "/webhook_event_types").addSuccess(WebhookEvents.Catalogue)
) {}

/** The whole API. @since 0.1.0 */
export class TenderApi extends HttpApi.make("tender")
  .add(PaymentIntentsGroup)
  .add(PaymentMethodsGroup)
  .add(WebhookEventTypesGroup)
{}
