/**
 * Adyen's SDK services for one merchant account: payments and modifications of Checkout API
 * v72, at Adyen's addresses for the environment, or at `apiBase` (a stand-in) with an extra CA.
 */
// The SDK is CommonJS whose exports Node cannot name statically: its namespace, then its members.
import Adyen from "@adyen/api-library"
import type { Environment } from "@tender/core/Schemas"
import { rootCertificates } from "node:tls"

const { CheckoutAPI, Client, EnvironmentEnum, HttpURLConnectionClient } = Adyen

/** The payments and modifications services of one API key. */
export const servicesOf = (options: {
  readonly apiKey: string
  readonly environment: Environment
  readonly liveEndpointUrlPrefix?: string | undefined
  readonly apiBase?: string | undefined
  readonly ca?: string | undefined
  readonly timeoutMillis: number
}) => {
  const http = new HttpURLConnectionClient()
  // The SDK builds a fresh https agent per request from these options (its own field, no setter).
  if (options.ca !== undefined) Object.assign(http, { agentOptions: { ca: [...rootCertificates, options.ca] } })
  const client = new Client({
    apiKey: options.apiKey,
    // The SDK's environment only picks its addresses; with `apiBase` given they are all replaced.
    environment: options.environment === "live" && options.apiBase === undefined ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST,
    ...(options.liveEndpointUrlPrefix === undefined ? {} : { liveEndpointUrlPrefix: options.liveEndpointUrlPrefix }),
    connectionTimeoutMillis: options.timeoutMillis,
    applicationName: "Tender"
  }, http)
  const checkout = new CheckoutAPI(client)
  const payments = checkout.PaymentsApi
  const modifications = checkout.ModificationsApi
  if (options.apiBase !== undefined) {
    // Each service keeps the address it built from the SDK's constant (`…/v72`) in `baseUrl`.
    const base = options.apiBase.replace(/\/+$/, "")
    for (const service of [payments, modifications]) Object.assign(service, { baseUrl: base })
  }
  return { payments, modifications }
}
