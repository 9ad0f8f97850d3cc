/**
 * @since 0.1.0
 */
export * as Api from "./Api.js"
export * as Handlers from "./Handlers.js"
export * as Middleware from "./Middleware.js"
export * as OpenApiDocument from "./OpenApiDocument.js"
export * as TenderHttp from "./TenderHttp.js"
