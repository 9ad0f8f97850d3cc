/**
 * The seed is authoritative for the keys it declares (docs/seed-format.md, "Removing a key"):
 * on PostgreSQL, whose directory outlives a restart, a start on a seed that no longer declares
 * a key revokes it; a key issued at run time stays valid.
 */
import { assert, it } from "@effect/vitest"
import { Merchants, type Seed, Tender } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Effect, Either, Layer, Logger } from "effect"
import { kept, login, removed, seedWith } from "../../core/test/seedKeys.js"
import { dropTables, freshPrefix, runSql, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const hostedCheckout = { baseUrl: "https://pay.example.test", secret: "seed-revocation-secret" }

describeOnPostgres("Seed on PostgreSQL: a key removed from the seed is revoked at the next start", () => {
  it.effect(
    "Seed after a restart on a seed without a key, that key no longer authenticates; the kept key and a key issued at run time still do",
    () =>
      Effect.gen(function*() {
        const prefix = freshPrefix()
        const logs: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
        const capture = Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ message, annotations }) => {
            logs.push({ message, annotations: Object.fromEntries(annotations) })
          })
        )
        // One "process": Tender built on the shared tables with a seed, which it applies at start.
        const start = <A, E>(seed: Seed.Seed, use: Effect.Effect<A, E, Merchants.Merchants>) =>
          Effect.scoped(
            Layer.build(Tender.layer({ seed, hostedCheckout }, PgStorage.layerFromUrl({ url, tablePrefix: prefix, maxConnections: 2 }))).pipe(
              Effect.flatMap((ctx) => Effect.provide(use, ctx))
            )
          )
        try {
          const issued = yield* start(
            seedWith([kept, removed]),
            Effect.gen(function*() {
              assert.isTrue(Either.isRight(yield* login(kept)))
              assert.isTrue(Either.isRight(yield* login(removed)))
              return yield* Merchants.issueKeyPair("mch_s", "test")
            })
          )
          yield* start(
            seedWith([kept]),
            Effect.gen(function*() {
              const refused = yield* login(removed)
              assert.isTrue(Either.isLeft(refused) && refused.left._tag === "InvalidApiKey")
              assert.isTrue(Either.isRight(yield* login(kept)))
              assert.isTrue(Either.isRight(yield* login({ public_key: issued.publicKey, secret_key: issued.secretKey })))
            })
          ).pipe(Effect.provide(capture))
          // The start says which keys it revoked, through the host's logger.
          assert.deepStrictEqual(logs.map((l) => [l.message, l.annotations["key_ids"]]), [[
            ["tender: revoked API keys no longer in the seed"],
            "key_s_removed"
          ]])
          // A key put back into the seed stays revoked: revocation is permanent.
          yield* start(
            seedWith([kept, removed]),
            Effect.gen(function*() {
              assert.isTrue(Either.isLeft(yield* login(removed)))
            })
          )
        } finally {
          yield* Effect.promise(() => runSql(dropTables(prefix)))
        }
      }),
    60_000
  )
})
