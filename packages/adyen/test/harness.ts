/**
 * The adapter against the Adyen stand-in: a stand-in per test (HTTPS, the test CA trusted by
 * the adapter's `ca`), an endpoint that keeps the notifications it receives byte for byte and
 * answers `[accepted]`, and the adapter pointed at the stand-in with `apiBase`.
 */
import type { PaymentProvider, ProviderPaymentRequest } from "@tender/core/Provider"
import type { ProviderNotificationRequest } from "@tender/core/ProviderNotification"
import * as AdyenStandIn from "@tender/testing/AdyenStandIn"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { formatRefusals } from "@tender/testing/StandIn"
import { afterEach, beforeEach, expect } from "vitest"
import { adyen, type AdyenOptions } from "../src/AdyenProvider.js"
import * as Requests from "@tender/test-support/provider-requests"

export const HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
export const MERCHANT_ACCOUNT = "TenderTestTH"

/** A stand-in, a receiving endpoint, and the adapter on them. */
export const harness = async (options: Partial<AdyenOptions> = {}) => {
  const received: Array<ProviderNotificationRequest> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]))
      received.push({ headers, body: new Uint8Array(Buffer.concat(chunks)) })
      res.writeHead(200, { "content-type": "text/plain" }).end("[accepted]")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/provider_notifications/adyen`
  const standIn = await AdyenStandIn.start({ endpoints: [{ url: endpoint, hmacKey: HMAC_KEY }], merchantAccount: MERCHANT_ACCOUNT })
  const provider: PaymentProvider = adyen({
    apiKey: "AQE_test_api_key",
    merchantAccount: MERCHANT_ACCOUNT,
    hmacKey: HMAC_KEY,
    apiBase: standIn.apiBase,
    ca: standIn.ca,
    ...options
  })
  return {
    standIn,
    provider,
    received,
    close: async () => {
      await standIn.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
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
export const paymentRequest = (overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest =>
  Requests.paymentRequest("adyen", overrides)

/** The reference later operations use. */
export const refOf = Requests.refOf
