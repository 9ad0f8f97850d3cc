/**
 * The seed is authoritative for the keys it declares (docs/seed-format.md, "Removing a key"),
 * on the in-memory directory: applying a seed that no longer declares a key revokes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger, Option } from "effect"
import { randomBytes } from "node:crypto"
import { Merchants, Provider, Seed, Simulator } from "../src/index.js"
import { kept, login, removed, seedWith } from "./seedKeys.js"

describe("Seed.apply", () => {
  it.effect("Seed applying a seed without a key revokes it; the kept key and a key issued at run time still authenticate", () =>
    Effect.gen(function*() {
      const logged: Array<unknown> = []
      yield* Seed.apply(seedWith([kept, removed]))
      const issued = yield* Merchants.issueKeyPair("mch_s", "test")
      assert.isTrue(Either.isRight(yield* login(removed)))
      yield* Seed.apply(seedWith([kept])).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ annotations }) => logged.push(Object.fromEntries(annotations)))))
      )
      const refused = yield* login(removed)
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "InvalidApiKey")
      assert.isTrue(Either.isRight(yield* login(kept)))
      assert.isTrue(Either.isRight(yield* login({ public_key: issued.publicKey, secret_key: issued.secretKey })))
      assert.deepStrictEqual(logged, [{ key_ids: "key_s_removed" }])
    }).pipe(Effect.provide(Merchants.layerMemory())))

  it.effect("Seed applying the same seed again revokes nothing and logs nothing", () =>
    Effect.gen(function*() {
      const logged: Array<unknown> = []
      yield* Seed.apply(seedWith([kept, removed]))
      yield* Seed.apply(seedWith([kept, removed])).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(message))))
      )
      assert.isTrue(Either.isRight(yield* login(removed)))
      assert.deepStrictEqual(logged, [])
    }).pipe(Effect.provide(Merchants.layerMemory())))
})

describe("Seed.fileProblem", () => {
  it("seed file: read errors and JSON syntax errors are named as the seed file at its path", () => {
    const path = "/srv/app/seed.json"
    const errno = (code: string) => Object.assign(new Error(`${code}: x`), { code })
    assert.strictEqual(Seed.fileProblem(path, errno("ENOENT")), "seed file /srv/app/seed.json does not exist")
    assert.strictEqual(Seed.fileProblem(path, errno("EACCES")), "seed file /srv/app/seed.json cannot be read (permission denied)")
    assert.strictEqual(Seed.fileProblem(path, errno("EISDIR")), "seed file /srv/app/seed.json is a directory, not a JSON file")
    const syntax = (text: string) => {
      try {
        JSON.parse(text)
      } catch (e) {
        return Seed.fileProblem(path, e, text)
      }
      throw new Error("parsed")
    }
    assert.strictEqual(syntax("{\"merchants\": [],\n  oops}"), "seed file /srv/app/seed.json is not valid JSON: syntax error at line 2, column 3")
    assert.strictEqual(syntax("  \n"), `seed file /srv/app/seed.json is empty: it needs a JSON object { "merchants": [...] }`)
  })
})

describe("Seed provider account ids (D13)", () => {
  const account = (id: string) => ({
    id,
    provider: "simulator",
    environment: "test" as const,
    credentials: { notification_secret: "sim_account_secret_SEED_0001" }
  })
  const holding = (merchantId: string, accountId: string) => ({
    id: merchantId,
    name: merchantId,
    allowed_checkout_modes: ["merchant" as const],
    api_keys: [],
    routes: [],
    provider_accounts: [account(accountId)]
  })
  const services = Layer.merge(
    Merchants.layerMemory(),
    Provider.layerRegistry([Simulator.make()], { accountKeys: [{ id: "k1", key: randomBytes(32).toString("base64") }] })
  )

  it.effect("D13 a seed whose provider account id another merchant of the store holds fails ProviderAccountHeld naming the id and both merchants; nothing is written", () =>
    Effect.gen(function*() {
      yield* Seed.apply({ merchants: [holding("mch_first", "acct_shared")] })
      const refused = yield* Effect.flip(Seed.apply({ merchants: [holding("mch_later", "acct_shared")] }))
      assert.strictEqual(refused._tag, "ProviderAccountHeld")
      if (refused._tag !== "ProviderAccountHeld") return
      assert.deepStrictEqual([refused.accountId, refused.merchantId, refused.heldBy], ["acct_shared", "mch_later", ["mch_first"]])
      assert.include(refused.message, "\"acct_shared\"")
      assert.include(refused.message, "mch_later")
      assert.include(refused.message, "already held by merchant mch_first")
      assert.notInclude(refused.message, "sim_account_secret")
      assert.isTrue(Option.isNone(yield* Effect.flatMap(Merchants.Merchants, (m) => m.findMerchant("mch_later"))))
      // The holder applying its own seed again is no conflict.
      yield* Seed.apply({ merchants: [holding("mch_first", "acct_shared")] })
    }).pipe(Effect.provide(services)))

  it.effect("D13 two merchants of one seed with the same provider account id: InvalidSeed naming the id and both merchants", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(Seed.decode({ merchants: [holding("mch_a", "acct_twice"), holding("mch_b", "acct_twice")] }))
      assert.strictEqual(refused.message, "provider account id \"acct_twice\" is held by merchants mch_a and mch_b: account ids are unique across merchants")
    }))
})
