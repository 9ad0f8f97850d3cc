import { assert, describe, it } from "@effect/vitest"
import { basic as basicOf } from "@tender/repo-test-support"
import { Effect, Layer, Option } from "effect"
import { Authentication, Merchants } from "../src/index.js"
import { keys, layer, login } from "./fixtures.js"

const basic = (user: string, pass: string) => basicOf({ public: user, secret: pass })

describe("Authentication", () => {
  it.effect("D2 missing header, non-Basic scheme or undecodable base64 -> authentication_required", () =>
    Effect.gen(function*() {
      for (const header of [undefined, "", "Bearer abc", "Basic ***", "Basic " + Buffer.from("nocolon").toString("base64"), "Basic abc"]) {
        const error = yield* Effect.flip(Authentication.parseBasic(header))
        assert.strictEqual(error._tag, "AuthenticationRequired", String(header))
      }
    }))

  it.effect("5.1 public key as user name, secret key as password; a secret may contain a colon", () =>
    Effect.gen(function*() {
      const pair = yield* Authentication.parseBasic(basic("pk_test_x", "sk_test_a:b"))
      assert.deepStrictEqual(pair, { publicKey: "pk_test_x", secretKey: "sk_test_a:b" })
    }))

  it.effect("5.2 a stored pair whose public key lacks pk_test_/pk_live_, or whose secret lacks sk_test_/sk_live_, is refused", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const put = (id: string, publicKey: string, secret: string, environment: "test" | "live" = "test") =>
        merchants.putApiKey({ id, merchantId: "mch_demo", environment, publicKey, secretHash: Merchants.hashSecret(secret), revokedAt: null, createdAt: 0 })
      yield* put("key_np", "pk_demo_noPrefix0001", "sk_test_secretnoprefix0001")
      yield* put("key_ns", "pk_test_noSecretPfx01", "secret_without_prefix_0001")
      // A row whose stored environment disagrees with its prefix: the prefix decides, and they must agree.
      yield* put("key_env", "pk_test_envMismatch01", "sk_test_envMismatchSecret1", "live")
      for (
        const [publicKey, secretKey] of [
          ["pk_demo_noPrefix0001", "sk_test_secretnoprefix0001"],
          ["pk_test_noSecretPfx01", "secret_without_prefix_0001"],
          ["pk_test_envMismatch01", "sk_test_envMismatchSecret1"]
        ] as const
      ) {
        const error = yield* Effect.flip(Authentication.authenticate({ publicKey, secretKey }))
        assert.strictEqual(error._tag, "InvalidApiKey", publicKey)
      }
      // Control: a well-formed pair put the same way works.
      yield* put("key_ok", "pk_test_wellFormed0001", "sk_test_wellFormedSecret01")
      const who = yield* Authentication.authenticate({ publicKey: "pk_test_wellFormed0001", secretKey: "sk_test_wellFormedSecret01" })
      assert.strictEqual(who.environment, "test")
      assert.strictEqual(who.apiKeyId, "key_ok")
    }).pipe(Effect.provide(Layer.fresh(layer()))))

  it.effect("5.3 the public key prefix fixes the environment", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* login(keys.demoTest)).environment, "test")
      assert.strictEqual((yield* login(keys.demoLive)).environment, "live")
      assert.strictEqual((yield* login(keys.demoLive)).merchant.id, "mch_demo")
    }).pipe(Effect.provide(layer())))

  it.effect("5.4 the key determines the merchant: each key resolves to its own merchant and key id", () =>
    Effect.gen(function*() {
      const demo = yield* login(keys.demoTest)
      const other = yield* login(keys.otherTest)
      assert.strictEqual(demo.merchant.id, "mch_demo")
      assert.strictEqual(demo.apiKeyId, "key_demo_test")
      assert.strictEqual(other.merchant.id, "mch_other")
      assert.strictEqual(other.apiKeyId, "key_other_test")
    }).pipe(Effect.provide(layer())))

  it.effect("D2 unknown key, wrong secret, revoked key, mixed environments -> invalid_api_key", () =>
    Effect.gen(function*() {
      const cases = [
        { publicKey: "pk_test_unknown0000", secretKey: keys.demoTest.secret },
        { publicKey: keys.demoTest.public, secretKey: "sk_test_wrong" },
        { publicKey: keys.revoked.public, secretKey: keys.revoked.secret },
        { publicKey: keys.demoTest.public, secretKey: keys.demoTest.secret.replace("sk_test_", "sk_live_") },
        { publicKey: keys.demoLive.public, secretKey: keys.demoTest.secret }
      ]
      for (const c of cases) {
        const error = yield* Effect.flip(Authentication.authenticate(c))
        assert.strictEqual(error._tag, "InvalidApiKey", c.publicKey)
        // The message never says which half was wrong.
        assert.strictEqual(error.message, "The API key pair is not valid.")
      }
    }).pipe(Effect.provide(layer())))

  it.effect("D2 a pair whose halves name different environments is invalid_api_key even when the secret hash matches", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      // Secret sk_live_... stored as the secret of a pk_test_ key: the hash matches, the environments do not.
      yield* merchants.putApiKey({
        id: "key_mixed",
        merchantId: "mch_demo",
        environment: "test",
        publicKey: "pk_test_mixedHalves01",
        secretHash: Merchants.hashSecret("sk_live_mixedHalvesSecret1"),
        revokedAt: null,
        createdAt: 0
      })
      const error = yield* Effect.flip(Authentication.authenticate({ publicKey: "pk_test_mixedHalves01", secretKey: "sk_live_mixedHalvesSecret1" }))
      assert.strictEqual(error._tag, "InvalidApiKey")
      assert.strictEqual(error.message, "The API key pair is not valid.")
    }).pipe(Effect.provide(Layer.fresh(layer()))))

  it.effect("D2 secrets are stored only as a SHA-256 hash", () =>
    Effect.gen(function*() {
      const stored = yield* (yield* Merchants.Merchants).findKeyByPublicKey(keys.demoTest.public)
      assert.isTrue(Option.isSome(stored))
      const key = Option.getOrThrow(stored)
      assert.notInclude(JSON.stringify(key), keys.demoTest.secret)
      assert.strictEqual(key.secretHash, Merchants.hashSecret(keys.demoTest.secret))
      assert.match(key.secretHash, /^[0-9a-f]{64}$/)
    }).pipe(Effect.provide(layer())))

  it.effect("D2 a key can be rotated: the new pair works, the old one is revoked", () =>
    Effect.gen(function*() {
      const merchants = yield* Merchants.Merchants
      const old = Option.getOrThrow(yield* merchants.findKeyByPublicKey(keys.demoTest.public))
      const issued = yield* Merchants.rotateKeyPair(old)
      assert.match(issued.publicKey, /^pk_test_/)
      assert.match(issued.secretKey, /^sk_test_/)
      const who = yield* Authentication.authenticate({ publicKey: issued.publicKey, secretKey: issued.secretKey })
      assert.strictEqual(who.merchant.id, "mch_demo")
      assert.strictEqual((yield* Effect.flip(login(keys.demoTest)))._tag, "InvalidApiKey")
    }).pipe(Effect.provide(layer())))

  it.effect("D2 revocation takes effect on the next request", () =>
    Effect.gen(function*() {
      yield* login(keys.otherTest)
      assert.isTrue(yield* (yield* Merchants.Merchants).revokeApiKey("key_other_test", 1))
      assert.strictEqual((yield* Effect.flip(login(keys.otherTest)))._tag, "InvalidApiKey")
    }).pipe(Effect.provide(Layer.fresh(layer()))))
})
