/**
 * A merchant's own Adyen account (D13): the credentials the adapter declares, checked as Tender
 * checks them when an account is written (a bad field named, never echoed), and the adapter of
 * one account serving that account's environment alone.
 */
import { ProviderAccounts } from "@tender/core"
import { Effect, Either, Exit } from "effect"
import { assert, describe, it } from "vitest"
import { adyen } from "../src/AdyenProvider.js"
import { HMAC_KEY } from "./harness.js"

const installed = adyen({ apiKey: "AQE_deployment_api_key", merchantAccount: "TenderPlatform", hmacKey: HMAC_KEY, apiBase: "https://127.0.0.1:1/v72" })
const account = (credentials: Record<string, unknown>, environment: "test" | "live" = "test") => ({
  id: "acct_adyen_a",
  provider: "adyen",
  environment,
  credentials
})
const good = { api_key: "AQE_merchant_own_api_key_0001", merchant_account: "AlphaShopTH", hmac_key: HMAC_KEY }

describe("Adyen provider accounts (D13)", () => {
  it("D13 an Adyen account's credentials are an API key, a merchant account and a hex HMAC key: a bad one is named, never echoed", () => {
    assert.isTrue(Either.isRight(ProviderAccounts.checkCredentials(installed, account(good), "provider_accounts.0")))
    for (const [field, value] of [["api_key", "SHORT-SECRET"], ["hmac_key", "NOT-HEX-SECRET-VALUE"], ["merchant_account", "bad account/name"]] as const) {
      const checked = ProviderAccounts.checkCredentials(installed, account({ ...good, [field]: value }), "provider_accounts.0")
      assert.isTrue(Either.isLeft(checked))
      const error = Either.isLeft(checked) ? checked.left : undefined
      assert.strictEqual(error?.param, `provider_accounts.0.credentials.${field}`)
      assert.notInclude(JSON.stringify(error), value)
    }
    const missing = ProviderAccounts.checkCredentials(
      installed,
      account({ api_key: good.api_key, merchant_account: good.merchant_account }),
      "provider_accounts.0"
    )
    assert.strictEqual(Either.isLeft(missing) ? missing.left.param : undefined, "provider_accounts.0.credentials.hmac_key")
  })

  it("D13 the adapter of one account serves that account's environment only", () => {
    const live = installed.accounts!.forAccount({
      id: "acct_live",
      environment: "live",
      credentials: { ...good, live_endpoint_url_prefix: "1797a841fbb37ca7-AlphaShop" }
    })
    assert.deepStrictEqual([...new Set(live.methods.flatMap((m) => m.environments))], ["live"])
    assert.strictEqual(live.code, "adyen")
  })

  it("D13 Adyen configured with merchants' accounts only: no deployment method or door, and each account's adapter serves its merchant", async () => {
    const accountsOnly = adyen({ apiBase: "https://127.0.0.1:1/v72" })
    assert.deepStrictEqual(accountsOnly.methods.flatMap((m) => m.environments), [], "the deployment serves a method without an account of its own")
    // The deployment's door has no HMAC key: nothing it receives verifies.
    const body = new TextEncoder().encode(JSON.stringify({ live: "false", notificationItems: [] }))
    assert.isTrue(Exit.isFailure(await Effect.runPromiseExit(accountsOnly.parseNotification!({ headers: {}, body }))))
    assert.isTrue(Either.isRight(ProviderAccounts.checkCredentials(accountsOnly, account(good), "provider_accounts.0")))
    const own = accountsOnly.accounts!.forAccount({ id: "acct_adyen_a", environment: "test", credentials: good })
    assert.deepStrictEqual([...new Set(own.methods.flatMap((m) => m.environments))], ["test"])
    // Some of the three given but not all is a configuration error, as before.
    assert.throws(() => adyen({ apiKey: "AQE_deployment_api_key" }), /apiKey and merchantAccount|HMAC key/)
  })
})
