/**
 * The adapter against the Stripe stand-in: a stand-in per test, an endpoint that keeps the
 * notifications it receives byte for byte, and the adapter pointed at the stand-in.
 */
import type { PaymentProvider, ProviderPaymentRequest } from "@tender/core/Provider"
import type { ProviderNotificationRequest } from "@tender/core/ProviderNotification"
import * as StripeStandIn from "@tender/testing/StripeStandIn"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { stripe, type StripeOptions } from "../src/StripeProvider.js"
import * as Requests from "@tender/test-support/provider-requests"

export const WEBHOOK_SECRET = "whsec_test_standin_secret"

/** A stand-in, a receiving endpoint, and the adapter on them. */
export const harness = async (options: Partial<StripeOptions> = {}) => {
  const received: Array<ProviderNotificationRequest> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]))
      received.push({ headers, body: new Uint8Array(Buffer.concat(chunks)) })
      res.writeHead(200, { "content-type": "application/json" }).end("{\"received\":true}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/provider_notifications/stripe`
  const standIn = await StripeStandIn.start({ endpoints: [{ url: endpoint, secret: WEBHOOK_SECRET }] })
  const provider: PaymentProvider = stripe({
    secretKey: "sk_test_tender",
    webhookSecret: WEBHOOK_SECRET,
    apiBase: standIn.url,
    maxNetworkRetries: 0,
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

/** A payment request as routing sends it (ids `dord_test…`). */
export const paymentRequest = (overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest =>
  Requests.paymentRequest("test", overrides)

/** The reference later operations use. */
export const refOf = Requests.refOf
