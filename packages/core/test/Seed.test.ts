/**
 * The seed is authoritative for the keys it declares (docs/seed-format.md, "Removing a key"),
 * on the in-memory directory: applying a seed that no longer declares a key revokes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Logger } from "effect"
import { Merchants, Seed } from "../src/index.js"
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
