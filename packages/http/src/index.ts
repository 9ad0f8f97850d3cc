/**
 * @since 0.1.0
 */
export * as Api from "./Api.js"
export * as ClientErrors from "./ClientErrors.js"
export * as Mount from "./Mount.js"
export * as Startup from "./Startup.js"
export * as TenderHttp from "./TenderHttp.js"
export * as WebhookClient from "./WebhookClient.js"
