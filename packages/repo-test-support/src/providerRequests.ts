/**
 * What routing hands a provider adapter, for adapters' own tests (`@tender/stripe`,
 * `@tender/adyen`): a payment request with a fresh Tender id, and the reference later calls take;
 * and the host's door a stand-in sends the provider's notifications to.
 */
import type { ProviderPaymentRef, ProviderPaymentRequest } from "@tender/core/Provider"
import type { ProviderNotificationRequest } from "@tender/core/ProviderNotification"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

let n = 0

/** A PromptPay payment request as routing sends it; `prefix` keeps each adapter's ids apart in shared logs. */
export const paymentRequest = (prefix: string, overrides: Partial<ProviderPaymentRequest> = {}): ProviderPaymentRequest => ({
  paymentIntentId: `dord_${prefix}${++n}${Date.now()}`,
  environment: "test",
  amount: "150000",
  currency: "THB",
  country: "TH",
  providerMethod: "promptpay",
  customer: { name: "Somchai", email: "somchai@example.com" },
  payer: { family: "thai_bank_account", fields: { customer_name: "Somchai" } },
  returnUrl: "https://merchant.example/return",
  ...overrides
})

/** The reference later operations (status, cancel, refund) use for a payment the adapter created. */
export const refOf = (request: ProviderPaymentRequest, providerPaymentId: string): ProviderPaymentRef => ({
  paymentIntentId: request.paymentIntentId,
  providerPaymentId,
  environment: request.environment,
  amount: request.amount,
  currency: request.currency,
  createdAt: Date.now()
})

/**
 * `{host}/provider_notifications/{provider}` on loopback: it keeps every request as the adapter's
 * `parseNotification` receives it (headers, the body byte for byte) and answers `answer` as the
 * provider expects. `close()` stops it.
 */
export const notificationEndpoint = async (provider: string, answer: { readonly contentType: string; readonly body: string }) => {
  const received: Array<ProviderNotificationRequest> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]))
      received.push({ headers, body: new Uint8Array(Buffer.concat(chunks)) })
      res.writeHead(200, { "content-type": answer.contentType }).end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/provider_notifications/${provider}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** An adapter under test on its stand-in: both, what the notification endpoint received, and `close()` for the stand-in and the endpoint. */
export const onStandIn = <S extends { readonly close: () => Promise<void> }, P>(
  standIn: S,
  provider: P,
  endpoint: Awaited<ReturnType<typeof notificationEndpoint>>
) => ({
  standIn,
  provider,
  received: endpoint.received,
  close: async () => {
    await standIn.close()
    await endpoint.close()
  }
})
