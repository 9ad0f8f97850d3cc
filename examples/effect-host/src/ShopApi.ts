/**
 * The host's own API with Tender's added under /payments: one definition, so one router and
 * one OpenAPI document for both. The prefix is written here once; the Tender layer reads it
 * back from this API (`TenderHttp.layerMounted({ api: ShopApi })`).
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@tender/http"
import { Schema } from "effect"

export const paymentsPrefix = "/payments"

export class Product extends Schema.Class<Product>("Product")({ sku: Schema.String, name: Schema.String, price: Schema.String }) {}

/** The shop's own endpoints. */
export class ShopGroup extends HttpApiGroup.make("shop")
  .add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
  .add(HttpApiEndpoint.get("products", "/products").addSuccess(Schema.Array(Product)))
{}

export class ShopApi extends HttpApi.make("shop")
  .add(ShopGroup)
  .addHttpApi(Api.TenderApi.prefix(paymentsPrefix))
  .annotateContext(OpenApi.annotations({ title: "Shop API", version: "1.0.0" }))
{}
