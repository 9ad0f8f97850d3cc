/**
 * The ways to mount the API (docs/embedding.md): an Effect layer alone on a server or beside
 * the host's own `HttpApi` groups and routes, and a fetch-style `(Request) => Promise<Response>`
 * handler that the `NodeHttp`, `Express` and `Fastify` adapters wrap. Each takes the path
 * prefix once; everything under it (routes, `/openapi.json` servers, error messages) follows.
 *
 * @since 0.1.0
 */
import type { HttpApi, HttpApiGroup } from "@effect/platform"
import { HttpApiBuilder, HttpApp, HttpRouter, HttpServer } from "@effect/platform"
import { Health } from "@tender/core"
import type { Layer as L } from "effect"
import { Context, Effect, Exit, Layer, Runtime, Scope } from "effect"
import { TenderApi } from "./Api.js"
import * as Handlers from "./Handlers.js"
import * as Outside from "./internal/outside.js"
import * as RefusedMethods from "./internal/refusedMethods.js"
import * as Routes from "./internal/routes.js"
import * as Middleware from "./Middleware.js"
import * as Mount from "./Mount.js"

/** The groups of `TenderApi`, as `HttpApiBuilder.api` asks for them. */
type TenderGroups = L.Layer.Success<typeof Handlers.layer>

/** The names of Tender's groups. @since 0.1.0 */
export type GroupName = TenderGroups extends HttpApiGroup.ApiGroup<string, infer N> ? N : never

/**
 * Tender's routes on the server's `HttpApiBuilder.Router`, under the prefix. The groups are
 * built on a router of their own (`Layer.build` memoizes `Router.Live` afresh) and
 * concatenated with every path prefixed, so the request URL is never rewritten (error
 * messages and the 404/405 checks see the path as sent).
 */
const routes = (prefix: string): Layer.Layer<TenderGroups, never, L.Layer.Context<typeof Handlers.layer>> =>
  prefix === ""
    ? Handlers.layer
    : HttpApiBuilder.Router.use((server) =>
      Effect.gen(function*() {
        const own = yield* Layer.build(Handlers.layer.pipe(Layer.provideMerge(HttpApiBuilder.Router.Live)))
        const router = yield* Context.get(own, HttpApiBuilder.Router).router
        yield* server.concat(HttpRouter.prefixAll(router, prefix as `/${string}`))
      })
    ) as unknown as Layer.Layer<TenderGroups, never, L.Layer.Context<typeof Handlers.layer>>

/**
 * The API alone on a server, under `prefix` (default the root): every request is Tender's,
 * an unknown path gets the D1 404. Provide it the core services and serve it with
 * `HttpApiBuilder.serve()`.
 *
 * @since 0.1.0 @category layers
 */
export const layerWith = (options: Mount.MountOptions = {}) => {
  const mount = Mount.layer({ ...options, standalone: true })
  return Layer.mergeAll(HttpApiBuilder.api(TenderApi).pipe(Layer.provide(routes(Routes.normalizePrefix(options.prefix)))), Middleware.layer)
    .pipe(Layer.provide(mount))
}

/**
 * The API alone on a server at the root (the demo server): `layerWith()`.
 *
 * @since 0.1.0 @category layers
 */
export const layer = layerWith()

/** The core services the API needs. @since 0.1.0 */
export type Services = Exclude<L.Layer.Context<typeof layer>, HttpApiBuilder.Router>

/** The prefix under which a host's API holds Tender's groups: where its `/openapi.json` went. */
const prefixIn = (api: HttpApi.HttpApi.Any): string | undefined => {
  const groups = (api as unknown as HttpApi.HttpApi.AnyWithProps).groups
  const document = groups["openApi"]?.endpoints["document"]?.path
  return document === undefined || !document.endsWith("/openapi.json") ? undefined : document.slice(0, -"/openapi.json".length)
}

/**
 * Tender beside the host's own routes in one Effect server: Tender answers only its own
 * paths, every other path falls through to the host's routes (and the host's 404). Give the
 * host's `HttpApi` that added `TenderApi` (`.addHttpApi(TenderApi.prefix("/payments"))`): the
 * prefix is read from it (set once), Tender's operations join the host's OpenAPI document,
 * and the layer provides the group services `HttpApiBuilder.api(HostApi)` asks for. Without
 * `api`, give `prefix`.
 *
 * @since 0.1.0 @category layers
 */
export const layerMounted = <Id extends string = "tender">(
  options: Mount.MountOptions & { readonly api?: HttpApi.HttpApi<Id, HttpApiGroup.HttpApiGroup.Any, any, any> | undefined } = {}
): Layer.Layer<HttpApiGroup.ApiGroup<Id, GroupName>, never, Services> => {
  const fromApi = options.api === undefined ? undefined : prefixIn(options.api)
  if (options.api !== undefined && fromApi === undefined) {
    throw new Error(
      "tender: the api given to TenderHttp.layerMounted does not hold TenderApi: add it with .addHttpApi(TenderApi) or .addHttpApi(TenderApi.prefix(\"/payments\"))"
    )
  }
  const prefix = Routes.normalizePrefix(fromApi ?? options.prefix)
  if (fromApi !== undefined && options.prefix !== undefined && Routes.normalizePrefix(options.prefix) !== prefix) {
    throw new Error(`tender: prefix ${JSON.stringify(options.prefix)} differs from the api's ${JSON.stringify(prefix)}: set it once, on the api`)
  }
  return Layer.mergeAll(routes(prefix), Middleware.layer).pipe(
    Layer.provide(Mount.layer({ prefix, health: options.health, standalone: false }))
    // As `HttpApiBuilder.group` layers: the server's router is found through `Router.Live`'s memoization.
  ) as unknown as Layer.Layer<HttpApiGroup.ApiGroup<Id, GroupName>, never, Services>
}

/** A fetch-style handler with what its adapters need to know. @since 0.1.0 @category models */
export interface WebHandler {
  /** Answers any request: an unknown path gets the D1 404 (use `owns` first to let it fall through). */
  readonly handler: (request: Request) => Promise<Response>
  /** Whether a path (or a URL, or a path with a query) is one of Tender's, with any method. */
  readonly owns: (url: string) => boolean
  /** The normalised mount prefix: `""` or `/payments`. */
  readonly prefix: string
  /**
   * Build the services now (storage connected and migrated, the seed applied, workers
   * started) instead of on the first request; rejects with the cause when they cannot start.
   * Await it before the host's server listens (docs/reliability.md, "Start-up").
   */
  readonly ready: () => Promise<void>
  /** Release the layer: workers are interrupted, scoped services closed; a pool the host gave stays open. */
  readonly dispose: () => Promise<void>
  /**
   * Called by the framework glue for a request it lets fall through, with the path the
   * framework mounted Tender at (Express's `req.baseUrl`): a request outside the prefix that
   * shows Tender mounted in the wrong place is logged as a warning, once (docs/embedding.md).
   */
  readonly outside: (url: string, mountedAt?: string | undefined) => void
  /** Liveness, as `GET /healthz` answers it (docs/observability.md). */
  readonly liveness: () => Promise<Health.Report>
  /** Readiness (storage reachable and migrated, workers running), as `GET /readyz` answers it; builds the services first. */
  readonly readiness: () => Promise<Health.Report>
}

/**
 * A fetch-style handler for any host (Node's `http` through `NodeHttp`, Express, Fastify,
 * Hono, Bun, a serverless runtime), under `options.prefix`. Call `dispose` on shutdown.
 *
 * @since 0.1.0 @category constructors
 */
export const toWebHandler = <E>(services: L.Layer<Services, E>, options: Mount.MountOptions = {}): WebHandler => {
  const mount = Mount.make({ ...options, standalone: true })
  const layer = Layer.mergeAll(
    // provideMerge: the services stay in the runtime, where `readiness` runs.
    layerWith(options).pipe(Layer.provideMerge(services)),
    HttpServer.layerContext,
    HttpApiBuilder.Router.Live,
    HttpApiBuilder.Middleware.layer
  )
  // As HttpApiBuilder.toWebHandler, with the build exposed (`ready`) and retried after a failure.
  const scope = Effect.runSync(Scope.make())
  let built: Promise<{ readonly handle: (request: Request) => Promise<Response>; readonly runtime: Runtime.Runtime<Services> }> | undefined
  const build = () =>
    built ??= Effect.gen(function*() {
      const runtime = yield* Layer.toRuntime(layer)
      return { handle: HttpApp.toWebHandlerRuntime(runtime)(yield* Effect.provide(HttpApiBuilder.httpApp, runtime)), runtime }
    }).pipe(Scope.extend(scope), Effect.runPromise).catch((error: unknown) => {
      built = undefined
      throw error
    })
  const outside = Outside.reporter(
    // Tender's API routes only: a host's own /healthz or /openapi.json is no sign of a misplaced mount.
    (path) => mount.owns(path) && path !== `${mount.prefix}/openapi.json` && path !== mount.health.liveness && path !== mount.health.readiness,
    mount.prefix,
    (message) => void build().then(({ runtime }) => Runtime.runFork(runtime)(Effect.logWarning(message)), () => {})
  )
  const handler: WebHandler = {
    // Bodies are counted and cut off at their limit as they stream in, whatever the framing (internal/body.ts).
    handler: (request) => build().then(({ handle }) => handle(request)),
    owns: (url) => mount.owns(Routes.pathOf(url)),
    prefix: mount.prefix,
    outside: (url, mountedAt) => outside(Routes.pathOf(url), mountedAt),
    ready: () => build().then(() => undefined),
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void)),
    liveness: () => Effect.runPromise(Health.liveness),
    readiness: () => build().then(({ runtime }) => Runtime.runPromise(runtime)(Health.readiness()))
  }
  RefusedMethods.register(handler, mount.routes)
  return handler
}
