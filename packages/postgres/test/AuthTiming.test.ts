/**
 * D2, timing (issue 14, defect 5): on PostgreSQL a refused authentication does the same work
 * whether or not the public key exists. Timing itself is measured by `bench/auth-timing.ts`
 * (no timing thresholds in tests); this checks the structure of the work: every refusal makes
 * exactly one statement (the same statement), one hash and one constant-time comparison, and
 * parses no merchant JSON; and the lookup never answers a key other than the one asked for.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { Authentication, Merchants, Seed } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Effect, Either, Layer, Option, Tracer } from "effect"
import { client, dropTables, freshPrefix, skipReason } from "./database.js"

const counts = vi.hoisted(() => ({ hashes: 0, comparisons: 0 }))

vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>()
  return {
    ...actual,
    createHash: (...args: Parameters<typeof actual.createHash>) => {
      counts.hashes++
      return actual.createHash(...args)
    },
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      counts.comparisons++
      return actual.timingSafeEqual(a, b)
    }
  }
})

const routes = [
  { id: "rt_t_pp", method: "th_promptpay", provider: "simulator", environments: ["test" as const], priority: 1 },
  { id: "rt_t_bt", method: "th_bank_transfer", provider: "simulator", environments: ["test" as const], priority: 2 }
]

const seed: Seed.Seed = {
  merchants: [
    {
      id: "mch_timing_a",
      name: "Timing A",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [
        { id: "key_timing_a", public_key: "pk_test_mmmmA1b2C3d4", secret_key: "sk_test_mmmmSECRETa1b2c3" },
        { id: "key_timing_revoked", public_key: "pk_test_rrrrA1b2C3d4", secret_key: "sk_test_rrrrSECRETa1b2c3", revoked: true }
      ],
      routes
    },
    {
      id: "mch_timing_b",
      name: "Timing B",
      allowed_checkout_modes: ["hosted"],
      api_keys: [{ id: "key_timing_b", public_key: "pk_test_ttttA1b2C3d4", secret_key: "sk_test_ttttSECRETa1b2c3" }],
      routes: [routes[0]!]
    }
  ]
}

/** Every refusal: known keys with a wrong or mismatched secret, revoked, and unknown keys below, between and above the stored ones. */
const refused = {
  "known key, wrong secret": { publicKey: "pk_test_mmmmA1b2C3d4", secretKey: "sk_test_mmmmWRONGGa1b2c3" },
  "known key, live secret": { publicKey: "pk_test_mmmmA1b2C3d4", secretKey: "sk_live_mmmmSECRETa1b2c3" },
  "revoked key, right secret": { publicKey: "pk_test_rrrrA1b2C3d4", secretKey: "sk_test_rrrrSECRETa1b2c3" },
  "unknown key below every key": { publicKey: "pk_test_0000A1b2C3d4", secretKey: "sk_test_mmmmWRONGGa1b2c3" },
  "unknown key between keys": { publicKey: "pk_test_nnnnA1b2C3d4", secretKey: "sk_test_mmmmWRONGGa1b2c3" },
  "unknown key above every key": { publicKey: "pk_test_zzzzA1b2C3d4", secretKey: "sk_test_mmmmWRONGGa1b2c3" },
  "unknown key, another's secret": { publicKey: "pk_test_nnnnA1b2C3d4", secretKey: "sk_test_mmmmSECRETa1b2c3" },
  "malformed key": { publicKey: "x", secretKey: "y" }
} as const

/** Run `effect` counting statements (with their text), hashes, comparisons and JSON.parse calls. */
const measured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const base = yield* Effect.tracer
    const statements: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      span: (...args) => {
        const span = base.span(...args)
        if (args[0] === "sql.execute") statements.push(span)
        return span
      },
      context: base.context
    })
    const parse = vi.spyOn(JSON, "parse")
    const before = { ...counts }
    const result = yield* Effect.either(Effect.withTracer(effect, tracer))
    const work = {
      statements: statements.length,
      hashes: counts.hashes - before.hashes,
      comparisons: counts.comparisons - before.comparisons,
      parses: parse.mock.calls.length
    }
    parse.mockRestore()
    const texts = statements.map((s) => String(s.attributes.get("db.query.text")))
    return { result, work, texts }
  })

if (skipReason === undefined) {
  const prefix = freshPrefix()
  const scratch = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))
  // The store's own lookup, without the directory cache (the last test has it on).
  const services = PgStorage.layer({ tablePrefix: prefix, directoryCache: false }).pipe(Layer.provideMerge(scratch), Layer.provideMerge(client))
  const cachedServices = PgStorage.layer({ tablePrefix: prefix }).pipe(Layer.provideMerge(scratch), Layer.provideMerge(client))

  describe("D2 authentication timing on PostgreSQL: the same work for a known and an unknown key", () => {
    it.effect("D2 every refusal (wrong secret, revoked, mismatched environment, unknown key anywhere in the key order) makes one and the same statement, one hash, one constant-time comparison, and parses no merchant JSON", () =>
      Effect.gen(function*() {
        yield* Seed.apply(seed)
        const seen: Array<string> = []
        let statement: string | undefined
        for (const [label, credentials] of Object.entries(refused)) {
          // Twice: the first of a kind may warm a cache; the second is what is compared.
          yield* measured(Authentication.authenticate(credentials))
          const { result, work, texts } = yield* measured(Authentication.authenticate(credentials))
          assert.isTrue(Either.isLeft(result) && result.left._tag === "InvalidApiKey", label)
          assert.deepStrictEqual(work, { statements: 1, hashes: 1, comparisons: 1, parses: 0 }, label)
          statement ??= texts[0]
          assert.strictEqual(texts[0], statement, `${label}: the same statement`)
          seen.push(label)
        }
        assert.lengthOf(seen, Object.keys(refused).length)

        // The accepted key does the same, and its merchant's JSON is parsed when read, correctly.
        const { result, work } = yield* measured(Authentication.authenticate({ publicKey: "pk_test_mmmmA1b2C3d4", secretKey: "sk_test_mmmmSECRETa1b2c3" }))
        assert.deepStrictEqual(work, { statements: 1, hashes: 1, comparisons: 1, parses: 0 })
        assert.isTrue(Either.isRight(result))
        if (Either.isRight(result)) {
          assert.strictEqual(result.right.merchant.id, "mch_timing_a")
          assert.deepStrictEqual(result.right.merchant.allowedCheckoutModes, ["hosted", "merchant"])
          assert.deepStrictEqual(result.right.merchant.routes, routes)
        }
      }).pipe(Effect.provide(services)))

    it.effect("D2 the lookup answers only the key asked for: an unknown key is none wherever it sorts, though its neighbour's row is read", () =>
      Effect.gen(function*() {
        yield* Seed.apply(seed)
        const merchants = yield* Merchants.Merchants
        for (const publicKey of ["", "a", "pk_test_0000A1b2C3d4", "pk_test_mmmmA1b2C3d", "pk_test_mmmmA1b2C3d4 ", "pk_test_nnnnA1b2C3d4", "pk_test_zzzzA1b2C3d4", "\uffff"]) {
          assert.isTrue(Option.isNone(yield* merchants.findCredentials(publicKey)), JSON.stringify(publicKey))
        }
        for (const [publicKey, merchantId] of [["pk_test_mmmmA1b2C3d4", "mch_timing_a"], ["pk_test_rrrrA1b2C3d4", "mch_timing_a"], ["pk_test_ttttA1b2C3d4", "mch_timing_b"]] as const) {
          const found = yield* merchants.findCredentials(publicKey)
          assert.isTrue(Option.isSome(found), publicKey)
          if (Option.isSome(found)) {
            assert.strictEqual(found.value.apiKey.publicKey, publicKey)
            assert.strictEqual(found.value.merchant.id, merchantId)
          }
        }
      }).pipe(Effect.provide(services)))

    it.effect("D2 the lookup is answered from the unique index on public_key, never a sequential scan", () =>
      Effect.gen(function*() {
        yield* Seed.apply(seed)
        const { texts } = yield* measured(Authentication.authenticate(refused["unknown key between keys"]))
        const sql = yield* SqlClient
        const plan = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql.unsafe("SET LOCAL enable_seqscan = off")
          return yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${texts[0]}`, ["pk_test_nnnnA1b2C3d4"])
        }))
        const text = plan.map((r) => r["QUERY PLAN"]).join("\n")
        assert.notInclude(text, "Seq Scan", text)
        assert.include(text, `${prefix}api_keys_public_key`, text)
      }).pipe(Effect.provide(services)))

    it.live("D2 with the directory cache: a refusal repeated makes no statement whether the key exists or not, and its first makes the same one", () =>
      Effect.gen(function*() {
        yield* Seed.apply(seed)
        // Let the seed's own change notifications arrive first (they clear the cache, rightly).
        yield* Effect.sleep("300 millis")
        const accepted = { publicKey: "pk_test_mmmmA1b2C3d4", secretKey: "sk_test_mmmmSECRETa1b2c3" }
        // The cache serves once its listening connection is up: wait for the accepted key to be served from it.
        let served = false
        for (let i = 0; i < 200 && !served; i++) {
          served = (yield* measured(Authentication.authenticate(accepted))).work.statements === 0
          if (!served) yield* Effect.sleep("25 millis")
        }
        assert.isTrue(served, "the directory cache came up")
        let statement: string | undefined
        const asked = new Set([accepted.publicKey])
        for (const [label, credentials] of Object.entries(refused)) {
          const first = yield* measured(Authentication.authenticate(credentials))
          const again = yield* measured(Authentication.authenticate(credentials))
          assert.isTrue(Either.isLeft(again.result) && again.result.left._tag === "InvalidApiKey", label)
          if (!asked.has(credentials.publicKey)) {
            asked.add(credentials.publicKey)
            // (A key not asked for yet: the store's one statement.)
            assert.deepStrictEqual(first.work, { statements: 1, hashes: 1, comparisons: 1, parses: 0 }, label)
            statement ??= first.texts[0]
            assert.strictEqual(first.texts[0], statement, `${label}: the same statement`)
          }
          assert.deepStrictEqual(again.work, { statements: 0, hashes: 1, comparisons: 1, parses: 0 }, label)
        }
      }).pipe(Effect.provide(cachedServices)))
  })
} else {
  describe("D2 authentication timing on PostgreSQL", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}
