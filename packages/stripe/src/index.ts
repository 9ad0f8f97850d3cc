/**
 * The Stripe adapter: `stripe(options)` for `createTender`'s `providers`, `StripeProvider.layer`
 * for Effect hosts.
 *
 * @since 0.1.0
 */
export * as StripeProvider from "./StripeProvider.js"
/**
 * The adapter from options (`secretKey`, `webhookSecret`, `apiBase`).
 *
 * @since 0.1.0
 */
export { stripe } from "./StripeProvider.js"
