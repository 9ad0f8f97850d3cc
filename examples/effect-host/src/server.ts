/**
 * The Effect host: its own group and Tender's under one `HttpApiBuilder.serve()`, one
 * `/openapi.json` for both, Tender on the in-memory store with its workers, and Effect's
 * JSON logger for every log line (Tender's included).
 */
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Seed, Tender, Workers } from "@tender/core"
import { TenderHttp } from "@tender/http"
import { Effect, Layer, Logger } from "effect"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { paymentsPrefix, Product, ShopApi } from "./ShopApi.js"

const ShopLive = HttpApiBuilder.group(ShopApi, "shop", (handlers) =>
  handlers
    .handle("health", () => Effect.succeed({ ok: true }))
    .handle("products", () => Effect.succeed([new Product({ sku: "tea-1", name: "Thai tea", price: "6500" })])))

export interface ServerOptions {
  readonly port: number
  /** Where clients reach this server, e.g. `https://shop.example.com`; Tender is under /payments of it. */
  readonly publicOrigin: string
  readonly seedPath: string
  readonly checkoutSecret: string
}

export const layer = (options: ServerOptions) => {
  const seed = Effect.runSync(Seed.decode(JSON.parse(readFileSync(options.seedPath, "utf8"))))
  const tender = Tender.layerMemory({
    seed,
    hostedCheckout: { baseUrl: `${options.publicOrigin}${paymentsPrefix}`, secret: options.checkoutSecret }
  })
  const services = Workers.layer().pipe(Layer.provideMerge(tender))
  const ApiLive = HttpApiBuilder.api(ShopApi).pipe(
    Layer.provide(ShopLive),
    // Tender's routes and middleware: only its own paths; the rest are the shop's.
    Layer.provide(TenderHttp.layerMounted({ api: ShopApi }))
  )
  return HttpApiBuilder.serve().pipe(
    // The one document: the shop's operations and Tender's, at /openapi.json.
    Layer.provide(HttpApiBuilder.middlewareOpenApi()),
    Layer.provide(ApiLive),
    Layer.provide(services),
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: "127.0.0.1" })),
    // Every log line as JSON, Tender's included: swap in the host's own logger the same way.
    Layer.provide(Logger.json)
  )
}
