/**
 * Where the API is mounted in the host: its path prefix, set once, and whether Tender is
 * alone on the server (every unknown path gets the D1 404) or beside the host's own routes
 * (only Tender's own paths are answered; every other path falls through to the host).
 * docs/embedding.md.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import * as Routes from "./internal/routes.js"

/** @since 0.1.0 @category models */
export interface MountOptions {
  /**
   * The path Tender's routes live under, e.g. `"/payments"`: `POST /payments/payment_intents`,
   * `/payments/openapi.json`. Default: the root. Give the public base URL in core's
   * `hostedCheckout.baseUrl` with the same path (`https://shop.example.com/payments`).
   */
  readonly prefix?: string | undefined
  /**
   * The health routes, under the prefix, outside the merchant API (no authentication, not in
   * `/openapi.json`): `GET` liveness (default `/healthz`) and readiness (default `/readyz`),
   * 200 or 503 with a small JSON body (docs/observability.md). `false` serves neither.
   */
  readonly health?: { readonly liveness?: string | undefined; readonly readiness?: string | undefined } | false | undefined
  /**
   * How many multipart uploads (`POST /assets`, a receipt's file) Tender works on at once, in this
   * process; one more is refused at once with 503 `service_unavailable` and `Retry-After`, its body
   * unread, so a burst of 5 MiB files cannot take the memory, the cores and the connection pool
   * that every other request needs (docs/reliability.md, "Uploads"). Default 4.
   */
  readonly maxConcurrentUploads?: number | undefined
}

/** Uploads worked on at once unless `maxConcurrentUploads` says otherwise. @since 0.1.0 */
export const defaultMaxConcurrentUploads = 4

/** @since 0.1.0 @category tags */
export class Mount extends Context.Tag("@tender/http/Mount")<Mount, {
  /** The normalised prefix: `""` at the root, else `/segment…` without a trailing slash. */
  readonly prefix: string
  /** Alone on the server: paths that are not Tender's get the D1 404 instead of falling through. */
  readonly standalone: boolean
  /** Whether the path (not decoded, prefix included) is one of Tender's, with any method. */
  readonly owns: (path: string) => boolean
  /** Tender's routes under the prefix (internal: the middleware's 404/405 and body limits). */
  readonly routes: Routes.Table
  /** The health paths under the prefix; empty when not served. */
  readonly health: { readonly liveness?: string; readonly readiness?: string }
  /** How many multipart uploads are worked on at once (`MountOptions.maxConcurrentUploads`). */
  readonly maxConcurrentUploads: number
}>() {}

/** @since 0.1.0 @category constructors */
export const make = (options: MountOptions & { readonly standalone: boolean }): Mount["Type"] => {
  const routes = Routes.table(options.prefix)
  const at = (path: string) => routes.prefix + Routes.normalizePrefix(path)
  const health = options.health === false
    ? {}
    : { liveness: at(options.health?.liveness ?? "/healthz"), readiness: at(options.health?.readiness ?? "/readyz") }
  const isHealth = (path: string) => path === health.liveness || path === health.readiness
  const maxConcurrentUploads = options.maxConcurrentUploads ?? defaultMaxConcurrentUploads
  if (!Number.isSafeInteger(maxConcurrentUploads) || maxConcurrentUploads < 1) {
    throw new Error(`tender: maxConcurrentUploads must be a whole number from 1, got ${String(options.maxConcurrentUploads)}`)
  }
  return {
    prefix: routes.prefix,
    standalone: options.standalone,
    owns: (path) => isHealth(path) || Routes.owns(routes, path),
    routes,
    health,
    maxConcurrentUploads
  }
}

/** @since 0.1.0 @category layers */
export const layer = (options: MountOptions & { readonly standalone: boolean }): Layer.Layer<Mount> => Layer.sync(Mount, () => make(options))

/**
 * The prefix and the public base URL from one value, the URL clients reach Tender at: pass
 * `publicUrl` to core's `hostedCheckout.baseUrl` (hosted-checkout and simulator links) and
 * the result to `TenderHttp` (routes, `/openapi.json` servers, messages), so the prefix is
 * written once. Behind a proxy that strips the path, pass `{ prefix: "" }` to `TenderHttp`.
 *
 * @since 0.1.0 @category constructors
 */
export const fromPublicUrl = (publicUrl: string): { readonly publicUrl: string; readonly prefix: string } => {
  const url = new URL(publicUrl)
  const prefix = Routes.normalizePrefix(url.pathname)
  return { publicUrl: `${url.origin}${prefix}`, prefix }
}
