/**
 * The Adyen adapter: `adyen(options)` for `createTender`'s `providers`, `AdyenProvider.layer`
 * for Effect hosts.
 *
 * @since 0.1.0
 */
export * as AdyenProvider from "./AdyenProvider.js"
/**
 * The adapter from options (`apiKey`, `merchantAccount`, `hmacKey`, `apiBase`).
 *
 * @since 0.1.0
 */
export { adyen } from "./AdyenProvider.js"
