/**
 * What the demo-server tests with a real provider's stand-in share: the seed of their one
 * merchant written to a file for TENDER_SEED, a merchant's JSON calls of the API (Basic auth, a
 * fresh Idempotency-Key on every POST), and the merchant's webhook endpoint on a receiver.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { eventually } from "./poll.js"
import { receiver } from "./receiver.js"
import { basic, type Key, promptpay } from "./requests.js"

/** Writes `seed` as JSON to a new temporary folder and answers the file's path, for TENDER_SEED. */
export const seedFile = (seed: unknown, prefix = "tender-seed-"): string => {
  const path = join(mkdtempSync(join(tmpdir(), prefix)), "seed.json")
  writeFileSync(path, JSON.stringify(seed))
  return path
}

/** A route of a seed, in the test environment. */
export interface TestRoute {
  readonly id: string
  readonly method: string
  readonly provider: string
  readonly environments: ReadonlyArray<"test">
  readonly priority?: number
}

/** A seed of one merchant, `mch_{slug}`, with both checkout modes, `key` (as `key_{slug}`) and `routes`. */
export const oneMerchantSeed = (slug: string, name: string, key: Key, routes: ReadonlyArray<TestRoute>) => ({
  merchants: [{
    id: `mch_${slug}`,
    name,
    allowed_checkout_modes: ["hosted", "merchant"],
    api_keys: [{ id: `key_${slug}`, public_key: key.public, secret_key: key.secret }],
    routes
  }]
})

/** An answer of the API: its status and parsed JSON body. */
export interface ApiAnswer {
  readonly status: number
  readonly body: any
}

/** A merchant's calls of the API at `baseUrl()` with `key`; each POST carries a new Idempotency-Key. */
export const merchantApi = (baseUrl: () => string, key: Key, name = "e2e") => {
  let n = 0
  return async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: {
        authorization: basic(key),
        "content-type": "application/json",
        ...(method === "POST" ? { "idempotency-key": `${name}-${++n}-${Date.now()}` } : {})
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: res.status, body: await res.json() }
  }
}

/** A merchant's calls of the API, as `merchantApi` makes them. */
export type MerchantApi = ReturnType<typeof merchantApi>

/** POST /payment_intents with `body` (a merchant-mode PromptPay payment unless given); answers the created intent, and throws with the answer when it is not 201. */
export const createIntent = async (api: MerchantApi, body: unknown = promptpay): Promise<any> => {
  const created = await api("POST", "/payment_intents", body)
  if (created.status !== 201) throw new Error(`POST /payment_intents answered ${created.status}: ${JSON.stringify(created.body)}`)
  return created.body
}

/**
 * A receiver registered as the merchant's webhook endpoint (its `/hooks`): `events(type, id)` are
 * the events of that type about resource `id` delivered so far, `webhook(type, id)` waits for the first.
 */
export const merchantWebhooks = async (api: MerchantApi) => {
  const hooks = await receiver()
  const endpoint = await api("POST", "/webhook_endpoints", { url: hooks.url("/hooks") })
  if (endpoint.status !== 201) throw new Error(`POST /webhook_endpoints answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`)
  const events = (type: string, id: string): Array<any> =>
    hooks.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === type && e.data.object.id === id)
  return { events, webhook: (type: string, id: string) => eventually(() => events(type, id)[0]) }
}
