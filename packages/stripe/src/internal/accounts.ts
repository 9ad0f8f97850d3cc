/** What a merchant's own Stripe account holds (D13); `StripeProvider.AccountCredentials` is its public name. */
import { Schema } from "effect"

export const AccountCredentials = Schema.Struct({
  secret_key: Schema.String.pipe(Schema.pattern(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/)).annotations({
    description: "must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_test_… or rk_live_…)"
  }),
  webhook_secret: Schema.String.pipe(Schema.pattern(/^whsec_[A-Za-z0-9_+/=]{8,}$/)).annotations({
    description: "must be a Stripe webhook signing secret (whsec_…)"
  })
})
