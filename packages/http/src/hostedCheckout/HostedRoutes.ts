/**
 * The hosted checkout's routes (1, 2.3, 4.1): the page a hosted intent's `next_action.url`
 * opens, the forms it posts, its status poll, and the simulated bank (test environment only).
 * They are part of the API definition, so mounting, routing, 404 and 405 treat them like every
 * other route; they answer HTML (or the poll's small JSON) and are left out of `/openapi.json`.
 * Every route takes the signed link's `expires` and `signature` in its query (`HostedCheckout`).
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"

const IdPath = Schema.Struct({ id: Schema.String })

const Html = HttpApiSchema.Text({ contentType: "text/html" })

/** @since 0.1.0 */
export class HostedCheckoutGroup extends HttpApiGroup.make("hostedCheckout")
  // The page: the method list, the payer's fields, the payer action, or the final page.
  .add(HttpApiEndpoint.get("page", "/checkout/:id").setPath(IdPath).addSuccess(Html))
  // Choose, fill in and pay: freezes the payer's choice (HostedPayment.pay).
  .add(HttpApiEndpoint.post("pay", "/checkout/:id/pay").setPath(IdPath).addSuccess(Html))
  // The transfer slip, as the intent's receipt (4.4); multipart, part `file`.
  .add(
    HttpApiEndpoint.post("receipt", "/checkout/:id/receipt")
      .setPath(IdPath)
      .setPayload(HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema })))
      .addSuccess(Html)
  )
  // The simulated payer's actions (D9; test environment only).
  .add(HttpApiEndpoint.post("simulate", "/checkout/:id/simulate").setPath(IdPath).addSuccess(Html))
  // What the waiting page polls: the status, and where to go once it is final.
  .add(HttpApiEndpoint.get("status", "/checkout/:id/status").setPath(IdPath).addSuccess(Schema.Unknown))
  // The simulator's online banking page (Simulator: `{baseUrl}/simulator/online_banking/...`).
  .add(
    HttpApiEndpoint.get("bank", "/simulator/online_banking/:bank/:payment")
      .setPath(Schema.Struct({ bank: Schema.String, payment: Schema.String }))
      .addSuccess(Html)
  )
  .add(
    HttpApiEndpoint.post("bankAnswer", "/simulator/online_banking/:bank/:payment")
      .setPath(Schema.Struct({ bank: Schema.String, payment: Schema.String }))
      .addSuccess(Html)
  )
  .annotate(OpenApi.Exclude, true)
{}
