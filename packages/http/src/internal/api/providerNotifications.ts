/**
 * The providers' door (D11): `POST /provider_notifications/{provider}` (and D13's
 * `/provider_notifications/{provider}/{account_id}` for a merchant's own account), where an installed
 * provider tells Tender that a payment, refund or payout moved. No API key: the provider's
 * adapter verifies the provider's own signature over the exact request bytes. It is part of
 * the definition, so mounting, routing, 404 and 405 treat it like every other route, and it
 * is left out of `/openapi.json` (it is not the merchant API; docs/embedding.md documents it).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Errors } from "@tender/core"
import { Schema } from "effect"
import { errorSchema } from "../errorSchema.js"
import { PayloadTooLarge, ResourceNotFound, ServiceUnavailable, ValidationFailed } from "./shared.js"

/** `signature_invalid` (D11): the adapter could not verify the request; nothing was stored. */
export const SignatureInvalid = errorSchema(Errors.SignatureInvalid)

/** @since 0.1.0 */
export class ProviderNotificationsGroup extends HttpApiGroup.make("providerNotifications")
  .add(
    HttpApiEndpoint.post("receive", "/provider_notifications/:provider")
      .setPath(Schema.Struct({ provider: Schema.String }))
      // The answer is whatever the provider expects (its status, type and body), sent as given.
      .addSuccess(Schema.Unknown)
  )
  .add(
    // D13: a merchant's own provider account's door, verified with that account's secret only.
    HttpApiEndpoint.post("receiveForAccount", "/provider_notifications/:provider/:account")
      .setPath(Schema.Struct({ provider: Schema.String, account: Schema.String }))
      .addSuccess(Schema.Unknown)
  )
  // Both doors answer the same errors.
  .addError(SignatureInvalid)
  .addError(ResourceNotFound)
  .addError(PayloadTooLarge)
  .addError(ValidationFailed)
  .addError(ServiceUnavailable)
  .annotate(OpenApi.Exclude, true)
{}
