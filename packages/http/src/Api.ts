/**
 * The HTTP definition of the merchant API: endpoints, their schemas and statuses. Error
 * responses are rendered by `Middleware` and documented by `OpenApiDocument`.
 *
 * @since 0.1.0
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart } from "@effect/platform"
import { Asset, Discovery, Pagination, PaymentIntent, PaymentIntents, WebhookEvents } from "@tender/core"
import { Schema } from "effect"

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.annotations({
    description: "Up to 255 printable ASCII characters; a UUID v4 is the default choice (4.9)."
  }))
})

/** An upload requires the key (4.9.1, D5): documented as required, checked by the handler (400, not a decode error). */
const UploadHeaders = Schema.Struct({
  "idempotency-key": Schema.String.annotations({
    description: "Required for a file upload (4.4): up to 255 printable ASCII characters; a UUID v4 is the default choice."
  })
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
  .add(
    // 4.5, D3: the body is `{}` or absent.
    HttpApiEndpoint.post("confirm", "/payment_intents/:id/confirm")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(PaymentIntent.PaymentIntent)
  )
  .add(
    // 4.4: JSON `{asset_id}`, or the file itself (multipart, part `file`, Idempotency-Key required).
    HttpApiEndpoint.post("receipt", "/payment_intents/:id/receipt")
      .setPath(IdPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(Schema.Union(ReceiptByAsset, FileUpload))
      .addSuccess(PaymentIntent.PaymentIntent)
  )
{}

/** Assets: files for later receipts (D3). @since 0.1.0 */
export class AssetsGroup extends HttpApiGroup.make("assets").add(
  HttpApiEndpoint.post("upload", "/assets")
    .setHeaders(UploadHeaders)
    .setPayload(FileUpload)
    .addSuccess(Asset.Asset, { status: 201 })
) {}

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
  .add(AssetsGroup)
  .add(PaymentMethodsGroup)
  .add(WebhookEventTypesGroup)
{}
