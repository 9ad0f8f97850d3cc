/**
 * The Promise client for a Tender deployment: one method per operation of the OpenAPI document,
 * named by its operation id and typed from it, on `openapi-fetch`. docs/client.md.
 *
 * @since 0.1.0
 */
import createClient, { type Client } from "openapi-fetch"
import type { FileBody, Methods, PostOptions } from "./internal/methods.js"
import { idempotencyHeader, retryingFetch } from "./internal/retry.js"
import { ListPage } from "./ListPage.js"
import { operationRoutes, type paths } from "./openapi.js"
import type { Page } from "./Resources.js"
import { TenderApiError } from "./TenderApiError.js"

export type { FileBody, Methods, PostOptions, RequestOptions } from "./internal/methods.js"

/** @since 0.1.0 @category models */
export interface TenderClientOptions {
  /** Where Tender is mounted, e.g. `https://api.example.com/payments`. */
  readonly baseUrl: string
  /** The merchant's key pair (5): Basic authentication, the public key as user name. */
  readonly publicKey: string
  readonly secretKey: string
  /** Retries after the first attempt (429, 5xx, an in-flight 409, no answer). Default 2; 0 turns them off. */
  readonly maxRetries?: number
  /** One attempt's limit in milliseconds. Default 60,000. */
  readonly timeoutMs?: number
  /** The first retry's back-off in milliseconds, doubling after. Default 500. */
  readonly initialRetryDelayMs?: number
  /** The longest back-off between two attempts in milliseconds. Default 5,000. */
  readonly maxRetryDelayMs?: number
  /** The fetch to send requests with (a proxy agent, a test server). Default `globalThis.fetch`. */
  readonly fetch?: (request: Request) => Promise<Response>
}

/** The environment a key names by its prefix (`pk_test_`, `sk_live_`), if it names one. */
const environmentOf = (key: string, kind: "pk" | "sk"): "test" | "live" | undefined =>
  key.startsWith(`${kind}_test_`) ? "test" : key.startsWith(`${kind}_live_`) ? "live" : undefined

/**
 * A key pair whose halves name two environments, said before anything is sent: the server
 * answers such a pair with an opaque 401 `invalid_api_key` that never says which half is wrong
 * (D2), while the client holds both and can. Only the prefixes are shown, never a key.
 */
const mixedEnvironments = (publicKey: string, secretKey: string): string | undefined => {
  const pk = environmentOf(publicKey, "pk")
  const sk = environmentOf(secretKey, "sk")
  return pk !== undefined && sk !== undefined && pk !== sk ? `pk_${pk}_… with sk_${sk}_…: the two keys are of different environments` : undefined
}

/** openapi-fetch's answer, as far as unwrapping it goes. */
interface Answer {
  readonly data?: unknown
  readonly error?: unknown
  readonly response: Response
}

/** The data of a 2xx answer, or the D1 error as a `TenderApiError`. */
const unwrap = async (call: Promise<Answer>): Promise<unknown> => {
  const { data, error, response } = await call
  if (!response.ok) throw new TenderApiError(response.status, error, response.headers.get("request-id") ?? undefined)
  return data
}

/** A body to send: a file as multipart (part `file`), anything else as JSON. */
const serialized = (body: unknown): { readonly body?: unknown; readonly bodySerializer?: (b: unknown) => FormData } => {
  if (body === undefined) return {}
  const file = typeof body === "object" && body !== null && "file" in body ? (body as FileBody).file : undefined
  if (!(file instanceof Blob)) return { body }
  return {
    body,
    bodySerializer: () => {
      const form = new FormData()
      form.append("file", file)
      return form
    }
  }
}

type Route = (typeof operationRoutes)[keyof typeof operationRoutes]
type Call = (method: string, url: string, init: object) => Promise<Answer>

/**
 * The method of `route`: its arguments in order (the path's id, the body or query, the options),
 * sent through `request`; a list answers a `ListPage` that follows the cursors.
 */
const methodOf = (route: Route, request: Call) => (...args: ReadonlyArray<unknown>): unknown => {
  let at = 0
  const id = route.path.includes("{id}") ? String(args[at++]) : undefined
  const input = "body" in route || "query" in route ? args[at++] : undefined
  const options = (args[at] ?? {}) as PostOptions
  const init = (query: unknown) => ({
    params: { ...(id === undefined ? {} : { path: { id } }), ...(query === undefined ? {} : { query }) },
    ...("body" in route ? serialized(input) : {}),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    headers: options.idempotencyKey === undefined ? {} : { [idempotencyHeader]: options.idempotencyKey }
  })
  const query = "query" in route ? input as { readonly cursor?: string } | undefined : undefined
  if ("list" in route) {
    return new ListPage<unknown, Page<unknown>>(
      (cursor) => unwrap(request(route.method, route.path, init(atCursor(query, cursor)))) as Promise<Page<unknown>>,
      query?.cursor
    )
  }
  return unwrap(request(route.method, route.path, init(query)))
}

/** A list query at `cursor` (the query's own cursor, if any, for the first page). */
const atCursor = <Q extends object>(query: Q | undefined, cursor: string | undefined) => ({ ...query, ...(cursor === undefined ? {} : { cursor }) })

/** Every operation's method, under its group. */
const methodsOf = (request: Call): Methods => {
  const groups: Record<string, Record<string, unknown>> = {}
  for (const [operationId, route] of Object.entries(operationRoutes)) {
    const [group = "", name = ""] = operationId.split(".")
    ;(groups[group] ??= {})[name] = methodOf(route, request)
  }
  return groups as unknown as Methods
}

/**
 * A client for one merchant key pair. Every POST carries an `Idempotency-Key` (a new UUID unless
 * given) that its retries reuse; lists are awaited for their first page or iterated with
 * `for await` across every page; errors are `TenderApiError`s with the D1 code.
 *
 * ```ts
 * const tender = new TenderClient({ baseUrl, publicKey, secretKey })
 * const intent = await tender.paymentIntents.create({ amount: "150000", currency: "THB", country: "TH", customer: {} })
 * for await (const pi of tender.paymentIntents.list({ status: "succeeded" })) console.log(pi.id)
 * ```
 *
 * @since 0.1.0 @category constructors
 */
export class TenderClient {
  /** The underlying `openapi-fetch` client: any route of the document, typed, with the same authentication, keys and retries. */
  readonly http: Client<paths>

  /** Throws when the key pair's halves name two environments (`pk_test_…` with `sk_live_…`): no request could succeed. */
  constructor(options: TenderClientOptions) {
    const mixed = mixedEnvironments(options.publicKey, options.secretKey)
    if (mixed !== undefined) throw new TypeError(mixed)
    this.http = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { authorization: `Basic ${btoa(`${options.publicKey}:${options.secretKey}`)}` },
      fetch: retryingFetch({
        maxRetries: options.maxRetries ?? 2,
        timeoutMs: options.timeoutMs ?? 60_000,
        initialDelayMs: options.initialRetryDelayMs ?? 500,
        maxDelayMs: options.maxRetryDelayMs ?? 5_000,
        maxRetryAfterMs: 60_000,
        fetch: options.fetch ?? ((request) => globalThis.fetch(request))
      })
    })
  }

  /** The API's operations, each a method under its group; `request` runs only once a method is called, after the constructor set `http`. */
  readonly #methods: Methods = methodsOf((method, url, init) => (this.http.request as unknown as Call)(method, url, init))

  /** Payment intents (4.1 to 4.5, D10 cancel). @since 0.1.0 */
  readonly paymentIntents = this.#methods.paymentIntents
  /** Assets: files for later receipts (4.4). @since 0.1.0 */
  readonly assets = this.#methods.assets
  /** Refunds (D10). @since 0.1.0 */
  readonly refunds = this.#methods.refunds
  /** Payout intents (D8); approval is the host's back office, not a merchant route. @since 0.1.0 */
  readonly payoutIntents = this.#methods.payoutIntents
  /** Top-up intents (4.7, 4.8): the `Idempotency-Key` they require is always sent. @since 0.1.0 */
  readonly topupIntents = this.#methods.topupIntents
  /** Webhook endpoints (D3, D7): the create answer holds the `secret`, once. @since 0.1.0 */
  readonly webhookEndpoints = this.#methods.webhookEndpoints
  /** Events (D7). @since 0.1.0 */
  readonly events = this.#methods.events
  /** The balance: available and pending per currency (D12). @since 0.1.0 */
  readonly balance = this.#methods.balance
  /** Balance transactions: every movement of the balance (D12). @since 0.1.0 */
  readonly balanceTransactions = this.#methods.balanceTransactions
  /** Discovery (4.6): the methods a payment of this amount, country, currency and mode may use. @since 0.1.0 */
  readonly paymentMethods = this.#methods.paymentMethods
  /** The webhook event type catalogue (4.11). @since 0.1.0 */
  readonly webhookEventTypes = this.#methods.webhookEventTypes
}
