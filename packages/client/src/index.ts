/**
 * @tender/client: a typed Promise client for a Tender deployment, and `webhooks.verify` for its
 * deliveries. Needs no Effect: its one dependency is `openapi-fetch`. docs/client.md.
 *
 * @since 0.1.0
 */
export * from "./ListPage.js"
export type * from "./Resources.js"
export * from "./TenderApiError.js"
export * from "./TenderClient.js"
export * from "./Webhooks.js"
