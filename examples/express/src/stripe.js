/**
 * The Stripe adapter from the environment, as the demo server reads it (docs/providers/stripe.md):
 * STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET together (each may list a test and a live one,
 * comma-separated), STRIPE_API_BASE when set (tests point it at the stand-in). Neither set: no Stripe.
 */
import { stripe } from "@tender/stripe"

/**
 * `createTender`'s `providers`: `[stripe(...)]`, or `[]` when Stripe is not configured.
 * @param {Readonly<Record<string, string | undefined>>} env
 * @param {{ returnUrl: string }} options where Checkout sends the payer back when the intent has no return_url
 */
export const stripeFromEnv = (env, { returnUrl }) => {
  const list = (name) => (env[name] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  const secretKey = list("STRIPE_SECRET_KEY")
  const webhookSecret = list("STRIPE_WEBHOOK_SECRET")
  if (secretKey.length === 0 && webhookSecret.length === 0) return []
  // One without the other stops the start, naming both: a half-configured Stripe would take payments it never hears of.
  if (secretKey.length === 0 || webhookSecret.length === 0) {
    throw new Error("STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET go together: set both, or neither")
  }
  const apiBase = env["STRIPE_API_BASE"] === undefined || env["STRIPE_API_BASE"] === "" ? undefined : env["STRIPE_API_BASE"]
  return [stripe({ secretKey, webhookSecret, apiBase, returnUrl })]
}
