/** The discovery group (4.6): one module per group, assembled in `Api.ts`. */
import { Discovery } from "@tender/core"
import { authenticated, group, query } from "./shared.js"

/** Discovery (4.6). @since 0.1.0 */
export class PaymentMethodsGroup extends group("paymentMethods", "Discovery: the payment methods a payment can use (4.6).")
  .add(
    query("options", "/payment_methods/options", "List the payment methods a payment can use", Discovery.DiscoveryParams, Discovery.DiscoveryResponse)
  )
  .pipe(authenticated)
{}
