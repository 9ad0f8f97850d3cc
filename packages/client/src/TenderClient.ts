/**
 * The Promise client for a Tender deployment: one method per route, typed from the OpenAPI
 * document, on `openapi-fetch`. docs/client.md.
 *
 * @since 0.1.0
 */
import createClient, { type Client } from "openapi-fetch"
import { idempotencyHeader, retryingFetch } from "./internal/retry.js"
import { ListPage } from "./ListPage.js"
import type { paths } from "./openapi.js"
import type * as R from "./Resources.js"
import { TenderApiError } from "./TenderApiError.js"

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

/** What one call may add. @since 0.1.0 @category models */
export interface RequestOptions {
  /** Aborts the call, retries included. */
  readonly signal?: AbortSignal
}

/** What one POST may add. @since 0.1.0 @category models */
export interface PostOptions extends RequestOptions {
  /** The `Idempotency-Key` (4.9). Default: a new UUID for this call, reused by its retries. */
  readonly idempotencyKey?: string
}

/** openapi-fetch's answer, as far as unwrapping it goes. */
interface Answer<T> {
  readonly data?: T
  readonly error?: unknown
  readonly response: Response
}

/** The data of a 2xx answer, or the D1 error as a `TenderApiError`. */
const unwrap = async <T>(call: Promise<Answer<T>>): Promise<T> => {
  const { data, error, response } = await call
  if (!response.ok) throw new TenderApiError(response.status, error, response.headers.get("request-id") ?? undefined)
  return data as T
}

/** The fetch options of one call. */
const init = (options: PostOptions = {}) => ({
  ...(options.signal === undefined ? {} : { signal: options.signal }),
  headers: options.idempotencyKey === undefined ? {} : { [idempotencyHeader]: options.idempotencyKey }
})

/** A list query at `cursor` (the query's own cursor, if any, for the first page). */
const at = <Q extends object>(query: Q | undefined, cursor: string | undefined) => ({ ...query, ...(cursor === undefined ? {} : { cursor }) })

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

  constructor(options: TenderClientOptions) {
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

  /** A list operation's pages for `query`, each page after the first at the previous page's cursor. */
  #list<T, P extends R.Page<T>>(query: { readonly cursor?: string } | undefined, fetch: (cursor: string | undefined) => Promise<P>) {
    return new ListPage<T, P>(fetch, query?.cursor)
  }

  /** Payment intents (4.1 to 4.5, D10 cancel). @since 0.1.0 */
  readonly paymentIntents = {
    create: (body: R.PaymentIntentCreateParams, options?: PostOptions): Promise<R.PaymentIntentCreated> =>
      unwrap(this.http.POST("/payment_intents", { body, ...init(options) })),
    retrieve: (id: string, options?: RequestOptions): Promise<R.PaymentIntent> =>
      unwrap(this.http.GET("/payment_intents/{id}", { params: { path: { id } }, ...init(options) })),
    list: (query?: R.ListQuery<"paymentIntents.list">, options?: RequestOptions) =>
      this.#list<R.PaymentIntent, R.Page<R.PaymentIntent>>(query, (cursor) =>
        unwrap(this.http.GET("/payment_intents", { params: { query: at(query, cursor) }, ...init(options) }))),
    confirm: (id: string, options?: PostOptions): Promise<R.PaymentIntent> =>
      unwrap(this.http.POST("/payment_intents/{id}/confirm", { params: { path: { id } }, ...init(options) })),
    cancel: (id: string, body?: R.PaymentIntentCancelParams, options?: PostOptions): Promise<R.PaymentIntent> =>
      unwrap(this.http.POST("/payment_intents/{id}/cancel", { params: { path: { id } }, body: body ?? {}, ...init(options) }))
  }

  /** Refunds (D10). @since 0.1.0 */
  readonly refunds = {
    create: (body: R.RefundCreateParams, options?: PostOptions): Promise<R.Refund> =>
      unwrap(this.http.POST("/refunds", { body, ...init(options) })),
    retrieve: (id: string, options?: RequestOptions): Promise<R.Refund> =>
      unwrap(this.http.GET("/refunds/{id}", { params: { path: { id } }, ...init(options) })),
    list: (query?: R.ListQuery<"refunds.list">, options?: RequestOptions) =>
      this.#list<R.Refund, R.Page<R.Refund>>(query, (cursor) =>
        unwrap(this.http.GET("/refunds", { params: { query: at(query, cursor) }, ...init(options) })))
  }

  /** Payout intents (D8); approval is the host's back office, not a merchant route. @since 0.1.0 */
  readonly payoutIntents = {
    create: (body: R.PayoutIntentCreateParams, options?: PostOptions): Promise<R.PayoutIntent> =>
      unwrap(this.http.POST("/payout_intents", { body, ...init(options) })),
    retrieve: (id: string, options?: RequestOptions): Promise<R.PayoutIntent> =>
      unwrap(this.http.GET("/payout_intents/{id}", { params: { path: { id } }, ...init(options) })),
    list: (query?: R.ListQuery<"payoutIntents.list">, options?: RequestOptions) =>
      this.#list<R.PayoutIntent, R.Page<R.PayoutIntent>>(query, (cursor) =>
        unwrap(this.http.GET("/payout_intents", { params: { query: at(query, cursor) }, ...init(options) }))),
    cancel: (id: string, options?: PostOptions): Promise<R.PayoutIntent> =>
      unwrap(this.http.POST("/payout_intents/{id}/cancel", { params: { path: { id } }, ...init(options) }))
  }

  /** Top-up intents (4.7, 4.8): the `Idempotency-Key` they require is always sent. @since 0.1.0 */
  readonly topupIntents = {
    create: (body: R.TopupIntentCreateParams, options?: PostOptions): Promise<R.TopupIntent> =>
      // The document marks the key required here (4.7): the typed call names it.
      unwrap(this.http.POST("/topup_intents", {
        body,
        params: { header: { [idempotencyHeader]: options?.idempotencyKey ?? crypto.randomUUID() } },
        ...(options?.signal === undefined ? {} : { signal: options.signal })
      })),
    retrieve: (id: string, options?: RequestOptions): Promise<R.TopupIntent> =>
      unwrap(this.http.GET("/topup_intents/{id}", { params: { path: { id } }, ...init(options) })),
    list: (query?: R.ListQuery<"topupIntents.list">, options?: RequestOptions) =>
      this.#list<R.TopupIntent, R.Page<R.TopupIntent>>(query, (cursor) =>
        unwrap(this.http.GET("/topup_intents", { params: { query: at(query, cursor) }, ...init(options) })))
  }

  /** Discovery (4.6): the methods a payment of this amount, country, currency and mode may use. @since 0.1.0 */
  readonly paymentMethods = {
    list: (query: R.ListQuery<"paymentMethods.options">, options?: RequestOptions): Promise<R.PaymentMethodDiscovery> =>
      unwrap(this.http.GET("/payment_methods/options", { params: { query }, ...init(options) }))
  }

  /** Webhook endpoints (D3, D7). @since 0.1.0 */
  readonly webhookEndpoints = {
    create: (body: R.WebhookEndpointCreateParams, options?: PostOptions): Promise<R.WebhookEndpointCreated> =>
      unwrap(this.http.POST("/webhook_endpoints", { body, ...init(options) })),
    retrieve: (id: string, options?: RequestOptions): Promise<R.WebhookEndpoint> =>
      unwrap(this.http.GET("/webhook_endpoints/{id}", { params: { path: { id } }, ...init(options) })),
    list: (query?: R.ListQuery<"webhookEndpoints.list">, options?: RequestOptions) =>
      this.#list<R.WebhookEndpoint, R.Page<R.WebhookEndpoint>>(query, (cursor) =>
        unwrap(this.http.GET("/webhook_endpoints", { params: { query: at(query, cursor) }, ...init(options) }))),
    delete: (id: string, options?: RequestOptions) =>
      unwrap(this.http.DELETE("/webhook_endpoints/{id}", { params: { path: { id } }, ...init(options) }))
  }
}
