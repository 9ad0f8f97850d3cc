/**
 * Tender for any Node.js host, without Effect (docs/embedding.md):
 *
 * ```js
 * import { createTender } from "@tender/server"
 * const tender = await createTender({ storage: { postgres: pool }, publicUrl, checkoutSecret, merchants: "./seed.json" })
 * app.use(tender.express())
 * ```
 *
 * @since 0.1.0
 */
export { settingsFromEnv } from "./Env.js"
export type { EnvDefaults, EnvSettings } from "./Env.js"
export { defineProvider, failureFor, failureMessages } from "./PromiseProvider.js"
export type { CallOptions, FailureCode, FailureCodes, PromiseProvider } from "./PromiseProvider.js"
export { createTender } from "./PromiseTender.js"
export type { HostLogger, SeedInput, StorageOptions, TenderInstance, TenderOptions } from "./PromiseTender.js"
export type * from "./PromiseTypes.js"
export { isTenderError, TenderError } from "./TenderError.js"
export type { TenderErrorCode, TenderErrorDetail } from "./TenderError.js"
