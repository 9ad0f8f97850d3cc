/**
 * What the whole-API middleware adds for the host's operations (docs/observability.md): the
 * request's metrics and the attributes of its server span, and the health routes.
 *
 * The server span is `@effect/platform`'s (one per request, continuing an incoming W3C
 * `traceparent`); Tender names its route template, request id, merchant id and status on it,
 * and rewrites what the platform recorded that could hold a secret or a payer's data: query
 * values (hosted-page links carry their signature and form token there) and the client
 * address. Bodies are never recorded.
 */
import { HttpMiddleware, HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { Health, Telemetry } from "@tender/core"
import type { Storage } from "@tender/core"
import { Clock, Effect, Fiber, FiberRef, Layer, Option, Tracer } from "effect"
import { Mount } from "../Mount.js"
import { CurrentSeen, type Seen } from "./current.js"
import * as Routes from "./routes.js"

/**
 * The route of a request, resolved once by the whole-API middleware from `url` (its path
 * undecoded) and read by every later step: the mount's `owns`, the body limit, `JsonBody`'s
 * upload check, the metric tags and the span.
 */
export interface Resolved {
  readonly url: string
  readonly path: string
  readonly route: Routes.Route | undefined
}

/** The route the whole-API middleware resolved for the current request; undefined outside one. */
export const currentResolved: Effect.Effect<Resolved | undefined> = Effect.map(
  FiberRef.get(CurrentSeen),
  (seen) => seen?.resolved as Resolved | undefined
)

/** The route of a request URL under the mount. */
export const resolve = (mount: Mount["Type"], method: string, url: string): Resolved => {
  const path = Routes.pathOf(url)
  return { url, path, route: Routes.find(mount.routes, method, path) }
}

/** The route template of a request (`/payment_intents/{id}`), or `unmatched`: a bounded set of values for metric tags. */
export const routeOf = (resolved: Resolved): string => resolved.route === undefined ? "unmatched" : resolved.route.template

/** The query with every value replaced: names stay (useful), values may be secrets or personal data. */
const redactQuery = (search: string) => search.slice(1).split("&").map((pair) => `${pair.split("=")[0]}=REDACTED`).join("&")

/**
 * Run the request's app with its metrics (requests, latency by route, method and status) and
 * its span attributes.
 */
export const observed = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  resolved: Resolved,
  requestId: string,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const seen: Seen = { requestId, resolved, merchantId: undefined }
    // Set, not `Effect.locally`: each request runs in a fiber of its own (the platform's server and
    // web handler fork one per request), so nothing runs after it that could see the value, and the
    // acquire-use-release that would restore it cost a dozen runtime steps a request.
    yield* FiberRef.set(CurrentSeen, seen)
    const response = yield* app
    const route = routeOf(resolved)
    const tags = { "http.route": route, "http.request.method": request.method, "http.response.status_code": String(response.status) }
    yield* Telemetry.record(Telemetry.metrics.httpRequests, 1, tags)
    yield* Telemetry.record(Telemetry.metrics.httpDuration, (yield* Clock.currentTimeMillis) - start, tags)
    // Read from the context, not `Effect.currentSpan`: without a span (no tracer exports, so the
    // server span is left out) that fails with a `NoSuchElementException`, an Error whose stack
    // trace was 3 % of a request's CPU (`npm run bench:profile`).
    const span = Option.filter(yield* Effect.serviceOption(Tracer.ParentSpan), (s) => s._tag === "Span")
    if (Option.isSome(span)) {
      const s = span.value
      s.attribute("http.route", route)
      s.attribute("tender.request_id", requestId)
      if (seen.merchantId !== undefined) s.attribute("tender.merchant_id", seen.merchantId)
      // Without a "?" the URL has no query: not parsed again.
      const url = request.url.includes("?") ? new URL(request.url, "http://localhost") : undefined
      if (url !== undefined && url.search !== "") {
        s.attribute("url.query", redactQuery(url.search))
        s.attribute(
          "url.full",
          `${s.attributes.get("url.full") === undefined ? "" : fullWithoutQuery(String(s.attributes.get("url.full")))}?${redactQuery(url.search)}`
        )
      }
      if (s.attributes.has("client.address")) s.attribute("client.address", "REDACTED")
      // Values of keys already there are replaced, so the keys can be walked as they are.
      for (const name of s.attributes.keys()) {
        if (name.startsWith("http.request.header.") && !keptHeaders.has(name)) s.attribute(name, "REDACTED")
      }
    }
    return response
  })

const fullWithoutQuery = (full: string) => full.split("?")[0] ?? ""

/** Request headers whose values the span keeps: none of them can hold a key, a token or a payer's data. */
const keptHeaders = new Set(["content-type", "content-length", "accept", "user-agent", "idempotency-key", "traceparent"].map((h) => `http.request.header.${h}`))

/** The health answer for `GET` on a health path, if it is one; readiness from `readiness` (`Health.cachedReadiness`). */
export const healthAnswer = (
  mount: Mount["Type"],
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  readiness: Effect.Effect<Health.Report, never, Storage.Storage>
) => {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined
  const check: Effect.Effect<Health.Report, never, Storage.Storage> | undefined = path === mount.health.liveness
    ? Health.liveness
    : path === mount.health.readiness
    ? readiness
    : undefined
  return check === undefined ? undefined : Effect.map(check, (report) =>
    HttpServerResponse.unsafeJson(report, {
      status: report.status === "ok" ? 200 : 503,
      headers: { "cache-control": "no-store" }
    }))
}

/** Whether the fiber running now has a tracer that sends its spans somewhere (not Effect's default). */
const exportingNow = (): boolean => {
  const fiber = Fiber.getCurrentFiber()
  return Option.isNone(fiber) || Telemetry.exportsSpans(fiber.value.currentTracer)
}

/**
 * The platform's server span left out of Tender's own requests while nothing exports spans.
 * `@effect/platform` opens one for every request whatever the tracer: the URL parsed again, the
 * headers copied, each named on the span, the incoming trace context read, the span's scope
 * opened and closed, and then Tender's `observed` walks its attributes to redact them. Under
 * Effect's default tracer nothing ever reads that span. The tracer is read from the request's
 * own fiber when the request arrives, so a tracer the host installs after Tender was built is
 * honoured; a host's own `HttpMiddleware.withTracerDisabledWhen` predicate is kept, and the
 * host's routes beside a mounted Tender keep their spans.
 */
export const layerServerSpanWhenExported: Layer.Layer<never, never, Mount> = Layer.scopedDiscard(
  Effect.flatMap(
    Mount,
    (mount) =>
      Effect.locallyScopedWith(
        HttpMiddleware.currentTracerDisabledWhen,
        (before) => (request: HttpServerRequest.HttpServerRequest) =>
          before(request) || (!exportingNow() && (mount.standalone || mount.owns(Routes.pathOf(request.url))))
      )
  )
)

/**
 * Server spans named as the OpenTelemetry HTTP conventions name them (what Jaeger, Tempo and
 * Datadog group by, docs/observability.md): `{method} {route template}`, e.g.
 * `POST /payments/payment_intents/{id}/confirm`, and the method alone for a path that is no
 * route of Tender's (the platform's default is `http.server {method}` for every request).
 */
export const layerSpanNames: Layer.Layer<HttpMiddleware.SpanNameGenerator, never, Mount> = Layer.effect(
  HttpMiddleware.SpanNameGenerator,
  Effect.map(Mount, (mount) => (request: HttpServerRequest.HttpServerRequest) => {
    const route = Routes.find(mount.routes, request.method, Routes.pathOf(request.url))
    return route === undefined ? request.method : `${request.method} ${route.template}`
  })
)
