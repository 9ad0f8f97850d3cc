/**
 * The adapter against the Stripe stand-in: a stand-in per test, an endpoint that keeps the
 * notifications it receives byte for byte, and the adapter pointed at the stand-in.
 */
import type { PaymentProvider, ProviderPaymentRequest } from "@tender/core/Provider"
import * as Requests from "@tender/repo-test-support/provider-requests"
import * as StripeStandIn from "@tender/stripe/testing"
import { stripe, type StripeOptions } from "../src/StripeProvider.js"

export const WEBHOOK_SECRET = "whsec_test_standin_secret"

/** A stand-in, a receiving endpoint, and the adapter on them. */
export const harness = async (options: Partial<StripeOptions> = {}) => {
  const endpoint = await Requests.notificationEndpoint("stripe", { contentType: "application/json", body: "{\"received\":true}" })
  const standIn = await StripeStandIn.start({ endpoints: [{ url: endpoint.url, secret: WEBHOOK_SECRET }] })
  const provider: PaymentProvider = stripe({
    secretKey: "sk_test_tender",
    webhookSecret: WEBHOOK_SECRET,
    apiBase: standIn.url,
    maxNetworkRetries: 0,
    ...options
  })
  return Requests.onStandIn(standIn, provider, endpoint)
}

/** A payment request as routing sends it (ids `dord_test…`). */
export const paymentRequest = (overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest => Requests.paymentRequest("test", overrides)

/** The reference later operations use. */
export const refOf = Requests.refOf
