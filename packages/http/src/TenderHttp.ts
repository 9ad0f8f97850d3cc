/**
 * Two ways to mount the API: an Effect layer for Effect hosts, and a fetch-style
 * `(Request) => Promise<Response>` handler for any other host.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import type { Layer as L } from "effect"
import { Layer } from "effect"
import { TenderApi } from "./Api.js"
import * as Handlers from "./Handlers.js"
import * as Middleware from "./Middleware.js"

/**
 * The API as a layer: provide it the core services (for example
 * `Tender.layerMemory(...)`) and serve it with `HttpApiBuilder.serve()`.
 *
 * @since 0.1.0 @category layers
 */
export const layer = Layer.mergeAll(
  HttpApiBuilder.api(TenderApi).pipe(Layer.provide(Handlers.layer)),
  Middleware.layer
)

/** The core services the API needs. @since 0.1.0 */
export type Services = L.Layer.Context<typeof layer>

/**
 * A fetch-style handler for any host (Node's `http` via a small adapter, Hono, Bun, a
 * serverless runtime). Call `dispose` on shutdown.
 *
 * @since 0.1.0 @category constructors
 */
export const toWebHandler = <E>(services: L.Layer<Services, E>) =>
  HttpApiBuilder.toWebHandler(Layer.mergeAll(layer.pipe(Layer.provide(services)), HttpServer.layerContext))
