/**
 * A merchant's own Adyen account (D13): the credentials the adapter declares, checked as Tender
 * checks them when an account is written (a bad field named, never echoed), the adapter of
 * one account serving that account's environment alone, and an account's notification door
 * verifying the stand-in's signed notifications with that account's HMAC key only.
 */
import * as AdyenStandIn from "@tender/adyen/testing"
import type { Authentication } from "@tender/core"
import { Merchants, PaymentIntent, PaymentIntents, ProviderAccounts, ProviderNotifications, Storage, Tender, Workers } from "@tender/core"
import { promptpayNamed } from "@tender/repo-test-support"
import * as Requests from "@tender/repo-test-support/provider-requests"
import { formatRefusals } from "@tender/testing/StandIn"
import { Effect, Either, Exit, Logger, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { assert, describe, it } from "vitest"
import { adyen, code } from "../src/AdyenProvider.js"
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

  it("D13 an account's door verifies a signed Adyen notification with that account's HMAC key and applies it to that account's payment; the same notification signed with another account's key is refused", async () => {
    const otherKey = "0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0"
    // The stand-in signs every notification once per endpoint: with alpha's key, and with bravo's.
    const signedForAlpha = await Requests.notificationEndpoint("adyen/acct_adyen_a", { contentType: "text/plain", body: "[accepted]" })
    const signedForBravo = await Requests.notificationEndpoint("adyen/acct_adyen_b", { contentType: "text/plain", body: "[accepted]" })
    const standIn = await AdyenStandIn.start({
      endpoints: [{ url: signedForAlpha.url, hmacKey: HMAC_KEY }, { url: signedForBravo.url, hmacKey: otherKey }]
    })
    try {
      const merchant = (id: string, accountId: string, merchantAccount: string, hmacKey: string) => ({
        id,
        name: id,
        allowed_checkout_modes: ["merchant" as const],
        api_keys: [],
        routes: [{ id: `rt_${id}`, method: "th_promptpay", provider: "adyen", provider_account: accountId }],
        provider_accounts: [{
          id: accountId,
          provider: "adyen",
          environment: "test" as const,
          credentials: { api_key: `AQE_${id}_own_api_key_0001`, merchant_account: merchantAccount, hmac_key: hmacKey }
        }]
      })
      const layer = Tender.layerMemory({
        seed: { merchants: [merchant("mch_alpha", "acct_adyen_a", "AlphaShopTH", HMAC_KEY), merchant("mch_bravo", "acct_adyen_b", "BravoShopTH", otherKey)] },
        hostedCheckout: { baseUrl: "https://pay.example.test", secret: "adyen-accounts-secret" },
        providers: [adyen({ apiBase: standIn.apiBase, ca: standIn.ca, returnUrl: "https://shop.example.test/back" })],
        providerAccountKeys: [{ id: "k1", key: randomBytes(32).toString("base64") }]
      })
      const create = (merchantId: string) =>
        Effect.gen(function*() {
          const found = yield* Effect.flatMap(Merchants.Merchants, (m) => m.findMerchant(merchantId))
          const principal: Authentication.Principal = { merchant: Option.getOrThrow(found), environment: "test", apiKeyId: `key_${merchantId}` }
          const params = yield* Effect.orDie(
            Schema.decodeUnknown(PaymentIntent.CreateParams)(promptpayNamed)
          )
          const created = yield* PaymentIntents.create({ principal, requestId: `req_${merchantId}` }, params)
          return yield* stored((JSON.parse(created.body) as { id: string }).id)
        })
      const stored = (id: string) => Effect.map(Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, id)), Option.getOrThrow)

      const program = Effect.gen(function*() {
        const alpha = yield* create("mch_alpha")
        const bravo = yield* create("mch_bravo")
        assert.strictEqual(alpha.status, "requires_action")
        assert.strictEqual(standIn.payments.get(alpha.providerPaymentId!)?.merchantAccount, "AlphaShopTH")
        yield* Effect.promise(() => standIn.pay(alpha.providerPaymentId!))
        const ownSigned = signedForAlpha.received[0]!
        const otherSigned = signedForBravo.received[0]!
        // Signed with bravo's key, at alpha's door: refused, nothing stored, alpha's payment unmoved.
        const forged = yield* Effect.either(ProviderNotifications.receive(code, otherSigned, "acct_adyen_a"))
        assert.strictEqual(Either.isLeft(forged) ? forged.left._tag : undefined, "NotificationUnverified")
        // The deployment's door has no key of its own: the account's notification does not verify there.
        const atDeployment = yield* Effect.either(ProviderNotifications.receive(code, ownSigned))
        assert.strictEqual(Either.isLeft(atDeployment) ? atDeployment.left._tag : undefined, "NotificationUnverified")
        yield* Workers.drain({ owner: "adyen-accounts" })
        assert.strictEqual((yield* stored(alpha.id)).status, "requires_action")
        // Signed with alpha's key, at alpha's door: verified, and applied to alpha's intent alone.
        assert.deepStrictEqual(yield* ProviderNotifications.receive(code, ownSigned, "acct_adyen_a"), {
          status: 200,
          contentType: "text/plain",
          body: "[accepted]"
        })
        yield* Workers.drain({ owner: "adyen-accounts" })
        assert.strictEqual((yield* stored(alpha.id)).status, "succeeded")
        assert.strictEqual((yield* stored(bravo.id)).status, "requires_action")
      })
      await Effect.runPromise(program.pipe(Effect.provide(layer), Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none))))
      const refusals = [...standIn.refusals]
      assert.deepStrictEqual(refusals, [], formatRefusals(refusals))
    } finally {
      await standIn.close()
      await signedForAlpha.close()
      await signedForBravo.close()
    }
  })
})
