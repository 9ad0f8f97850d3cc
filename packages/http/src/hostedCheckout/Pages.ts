/**
 * The hosted page's views, one per state of a hosted intent: the method list, the payer's
 * fields, the payer action (QR code, bank transfer with slip upload, or the way to the bank),
 * the wait while it is confirmed, the final page, and the pages for a link that is bad,
 * expired or stale. Views are pure: they get what to show and the URLs to show it with.
 *
 * @since 0.1.0
 */
export { chooseMethod, type FormState, payerForm } from "./internal/choosing.js"
export type { Context, Urls } from "./internal/frame.js"
export { bank, leaving, notice } from "./internal/notices.js"
export { final, payerAction, processing } from "./internal/paying.js"
