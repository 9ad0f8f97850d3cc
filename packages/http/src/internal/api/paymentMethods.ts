/** The discovery group (4.6): one module per group, assembled in `Api.ts`. */
import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Discovery } from "@tender/core"
import { authenticated, group } from "./shared.js"

/** Discovery (4.6). @since 0.1.0 */
export class PaymentMethodsGroup extends group("paymentMethods", "Discovery: the payment methods a payment can use (4.6).")
  .add(
    HttpApiEndpoint.get("options", "/payment_methods/options")
      .annotate(OpenApi.Summary, "List the payment methods a payment can use")
      .setUrlParams(Discovery.DiscoveryParams)
      .addSuccess(Discovery.DiscoveryResponse)
  )
  .pipe(authenticated)
{}
