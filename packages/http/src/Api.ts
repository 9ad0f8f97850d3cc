/**
 * The HTTP definition of the merchant API, and the only route table: each endpoint with its
 * path, payload, successes, the errors it can answer and the middleware it runs. Routing,
 * 404/405, the request checks and `/openapi.json` are all derived from this definition.
 *
 * @since 0.1.0
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { HostedCheckoutGroup } from "./hostedCheckout/HostedRoutes.js"
import { AssetsGroup } from "./internal/api/assets.js"
import { BalanceGroup, BalanceTransactionsGroup } from "./internal/api/balances.js"
import { EventsGroup } from "./internal/api/events.js"
import { PaymentIntentsGroup } from "./internal/api/paymentIntents.js"
import { PaymentMethodsGroup } from "./internal/api/paymentMethods.js"
import { PayoutIntentsGroup } from "./internal/api/payoutIntents.js"
import { ProviderNotificationsGroup } from "./internal/api/providerNotifications.js"
import { RefundsGroup } from "./internal/api/refunds.js"
import { InternalError } from "./internal/api/shared.js"
import { TopupIntentsGroup } from "./internal/api/topupIntents.js"
import { WebhookEndpointsGroup, WebhookEventTypesGroup } from "./internal/api/webhooks.js"
import { AnyError } from "./internal/errorSchema.js"
import { documentAsClientsSee } from "./internal/openApi.js"

// Each group is a module of `internal/api/`, and what they share (error schemas, the
// middleware tags, headers and paths) is `internal/api/shared.ts`: a new endpoint goes into its
// group's module. What hosts import stays exported from here.
export { AssetsGroup } from "./internal/api/assets.js"
export { BalanceGroup, BalanceTransactionsGroup } from "./internal/api/balances.js"
export { EventsGroup } from "./internal/api/events.js"
export { PaymentIntentsGroup } from "./internal/api/paymentIntents.js"
export { PaymentMethodsGroup } from "./internal/api/paymentMethods.js"
export { PayoutIntentsGroup } from "./internal/api/payoutIntents.js"
export { ProviderNotificationsGroup } from "./internal/api/providerNotifications.js"
export { RefundsGroup } from "./internal/api/refunds.js"
export { Authentication, CurrentPrincipal, JsonBody } from "./internal/api/shared.js"
export { TopupIntentsGroup } from "./internal/api/topupIntents.js"
export { WebhookEndpointsGroup, WebhookEventTypesGroup } from "./internal/api/webhooks.js"

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
  .add(EventsGroup)
  .add(BalanceGroup)
  .add(BalanceTransactionsGroup)
  .add(PaymentMethodsGroup)
  .add(WebhookEventTypesGroup)
  .add(OpenApiGroup)
  .add(HostedCheckoutGroup)
  .add(ProviderNotificationsGroup)
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
