/**
 * The adapter against the Adyen stand-in: a stand-in per test (HTTPS, the test CA trusted by
 * the adapter's `ca`), an endpoint that keeps the notifications it receives byte for byte and
 * answers `[accepted]`, and the adapter pointed at the stand-in with `apiBase`.
 */
import * as AdyenStandIn from "@tender/adyen/testing"
import type { PaymentProvider, ProviderPaymentRequest } from "@tender/core/Provider"
import * as Requests from "@tender/repo-test-support/provider-requests"
import { formatRefusals } from "@tender/testing/StandIn"
import { afterEach, beforeEach, expect } from "vitest"
import { adyen, type AdyenOptions } from "../src/AdyenProvider.js"

export const HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
export const MERCHANT_ACCOUNT = "TenderTestTH"

/** A stand-in, a receiving endpoint, and the adapter on them. */
export const harness = async (options: Partial<AdyenOptions> = {}) => {
  const endpoint = await Requests.notificationEndpoint("adyen", { contentType: "text/plain", body: "[accepted]" })
  const standIn = await AdyenStandIn.start({ endpoints: [{ url: endpoint.url, hmacKey: HMAC_KEY }], merchantAccount: MERCHANT_ACCOUNT })
  const provider: PaymentProvider = adyen({
    apiKey: "AQE_test_api_key",
    merchantAccount: MERCHANT_ACCOUNT,
    hmacKey: HMAC_KEY,
    apiBase: standIn.apiBase,
    ca: standIn.ca,
    ...options
  })
  return Requests.onStandIn(standIn, provider, endpoint)
}

/** A harness per test of the file, its stand-in's refusals asserted empty after each. */
export const useHarness = () => {
  let h: Awaited<ReturnType<typeof harness>> | undefined
  beforeEach(async () => {
    h = await harness()
  })
  afterEach(async () => {
    const refusals = [...h!.standIn.refusals]
    await h!.close()
    expect(refusals, formatRefusals(refusals)).toEqual([])
  })
  return {
    get standIn() {
      return h!.standIn
    },
    get provider() {
      return h!.provider
    },
    get received() {
      return h!.received
    }
  }
}

/** A payment request as routing sends it (ids `dord_adyen…`). */
export const paymentRequest = (overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest => Requests.paymentRequest("adyen", overrides)

/** The reference later operations use. */
export const refOf = Requests.refOf
