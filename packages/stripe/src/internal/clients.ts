/**
 * Stripe's SDK clients, one per environment a configured key serves: a `sk_test_`/`rk_test_`
 * key serves `test`, a `sk_live_`/`rk_live_` key `live`.
 */
import type { Environment } from "@tender/core/Schemas"
import Stripe from "stripe"

/** The environment a key serves; anything else is a configuration error. */
export const environmentOfKey = (key: string): Environment => {
  if (/^(sk|rk)_test_/.test(key)) return "test"
  if (/^(sk|rk)_live_/.test(key)) return "live"
  throw new Error("A Stripe secret key starts with sk_test_ or sk_live_ (or rk_ for a restricted key)")
}

/** One client per key's environment, all speaking `apiVersion` to `apiBase`. */
export const clientsOf = (
  keys: ReadonlyArray<string>,
  options: { readonly apiVersion: string; readonly apiBase: string; readonly timeoutMillis: number; readonly maxNetworkRetries: number }
): ReadonlyMap<Environment, Stripe> => {
  const base = new URL(options.apiBase)
  const clients = new Map<Environment, Stripe>()
  for (const key of keys) {
    const environment = environmentOfKey(key)
    if (clients.has(environment)) throw new Error(`Two Stripe ${environment} keys were given`)
    clients.set(
      environment,
      new Stripe(key, {
        apiVersion: options.apiVersion as Stripe.LatestApiVersion,
        host: base.hostname,
        port: base.port === "" ? (base.protocol === "http:" ? 80 : 443) : Number(base.port),
        protocol: base.protocol === "http:" ? "http" : "https",
        // The kit bounds the whole call, the SDK's retries included: each try gets its share.
        timeout: Math.floor(options.timeoutMillis / (1 + options.maxNetworkRetries)),
        // Retries go out with the same idempotency key; the task retries later ones.
        maxNetworkRetries: options.maxNetworkRetries,
        telemetry: false,
        appInfo: { name: "Tender", url: "https://github.com/tender" }
      })
    )
  }
  return clients
}
