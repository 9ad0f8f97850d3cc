/**
 * D2, timing: on PostgreSQL a refused authentication does the same work
 * whether or not the public key exists. Timing itself is measured by `bench/postgres/auth-timing.ts`
 * (no timing thresholds in tests); this checks the structure of the work: every refusal makes
 * exactly two statements (the same two: the key by its public key, then its merchant, or for an
 * unknown key a merchant no one is; issue 49), one hash and one constant-time comparison, and
 * parses no merchant JSON; and the lookup never answers a key other than the one asked for.
 * Also the statements of a warm create with the directory cache: the claim and the
 * commit, the credentials and the merchant's webhook endpoints coming from the cache.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Authentication, Merchants, Seed, Tender } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { promptpayFor } from "@tender/repo-test-support"
import { Effect, Either, Layer, ManagedRuntime, Option, Tracer } from "effect"
import * as Pg from "pg"
import { vi } from "vitest"
import { checkoutOptions, keys, seed as tenderSeed } from "../../core/test/fixtures.js"
import { TenderHttp } from "../../http/src/index.js"
import { call } from "../../http/test/harness.js"
import { client, dropTables, freshPrefix, runSql, skipReason } from "./database.js"

const counts = vi.hoisted(() => ({ hashes: 0, comparisons: 0 }))

vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>()
  return {
    ...actual,
    createHash: (...args: Parameters<typeof actual.createHash>) => {
      counts.hashes++
      return actual.createHash(...args)
    },
    // The one-shot form core's `Canonical.sha256` uses where Node has it (20.12 on).
    hash: (...args: Parameters<typeof actual.hash>) => {
      counts.hashes++
      return actual.hash(...args)
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
          assert.deepStrictEqual(work, { statements: 2, hashes: 1, comparisons: 1, parses: 0 }, label)
          statement ??= texts.join("\n")
          assert.strictEqual(texts.join("\n"), statement, `${label}: the same statements`)
          seen.push(label)
        }
        assert.lengthOf(seen, Object.keys(refused).length)

        // The accepted key does the same, and its merchant's JSON is parsed when read, correctly.
        const { result, work } = yield* measured(Authentication.authenticate({ publicKey: "pk_test_mmmmA1b2C3d4", secretKey: "sk_test_mmmmSECRETa1b2c3" }))
        assert.deepStrictEqual(work, { statements: 2, hashes: 1, comparisons: 1, parses: 0 })
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
        for (
          const publicKey of [
            "",
            "a",
            "pk_test_0000A1b2C3d4",
            "pk_test_mmmmA1b2C3d",
            "pk_test_mmmmA1b2C3d4 ",
            "pk_test_nnnnA1b2C3d4",
            "pk_test_zzzzA1b2C3d4",
            "\uffff"
          ]
        ) {
          assert.isTrue(Option.isNone(yield* merchants.findCredentials(publicKey)), JSON.stringify(publicKey))
        }
        for (
          const [publicKey, merchantId] of [["pk_test_mmmmA1b2C3d4", "mch_timing_a"], ["pk_test_rrrrA1b2C3d4", "mch_timing_a"], [
            "pk_test_ttttA1b2C3d4",
            "mch_timing_b"
          ]] as const
        ) {
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
            // (A key not asked for yet: the store's two statements.)
            assert.deepStrictEqual(first.work, { statements: 2, hashes: 1, comparisons: 1, parses: 0 }, label)
            statement ??= first.texts.join("\n")
            assert.strictEqual(first.texts.join("\n"), statement, `${label}: the same statements`)
          }
          assert.deepStrictEqual(again.work, { statements: 0, hashes: 1, comparisons: 1, parses: 0 }, label)
        }
      }).pipe(Effect.provide(cachedServices)))
  })

  describe("the statements of a warm create on PostgreSQL", () => {
    /** Tender over HTTP on its own tables; every statement the driver sends is recorded in `sent` while `counting`. */
    const startTender = async (directoryCache: false | undefined) => {
      const tablePrefix = freshPrefix()
      const runtime = ManagedRuntime.make(Layer.orDie(Tender.layer(
        { seed: tenderSeed, hostedCheckout: checkoutOptions },
        PgStorage.layer({ tablePrefix, directoryCache }).pipe(Layer.provideMerge(client))
      )))
      const web = TenderHttp.toWebHandler(Layer.succeedContext(await runtime.runPromise(Effect.context<TenderHttp.Services>())))
      const close = async () => {
        await web.dispose()
        await runtime.dispose()
        await runSql(dropTables(tablePrefix))
      }
      return { web, close, tablePrefix }
    }
    /** The statements (their first words) of one create under a new idempotency key, and its answer. */
    const createCounted = async (handler: (r: Request) => Promise<Response>, n: number) => {
      const sent: Array<string> = []
      const query = Pg.Client.prototype.query
      const spy = vi.spyOn(Pg.Client.prototype, "query").mockImplementation(function(this: Pg.Client, ...args: Array<any>) {
        const text = typeof args[0] === "string" ? args[0] : String(args[0]?.text ?? "")
        sent.push(text.replace(/\s+/g, " ").slice(0, 60))
        return Reflect.apply(query, this, args)
      })
      try {
        const reply = await call(handler, "POST", "/payment_intents", {
          key: keys.demoTest,
          body: promptpayFor("150000"),
          headers: { "idempotency-key": `warm-${n}-${Math.random()}` }
        })
        assert.strictEqual(reply.status, 201, reply.text)
        return { sent, id: (reply.json as { id: string }).id }
      } finally {
        spy.mockRestore()
      }
    }

    it("a warm create with the directory cache makes two statements (the claim and the commit), and its deliveries reach the merchant's endpoint", async () => {
      const tender = await startTender(undefined)
      try {
        const endpoint = await call(tender.web.handler, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/hook" } })
        assert.strictEqual(endpoint.status, 201, endpoint.text)
        const endpointId = (endpoint.json as { id: string }).id
        // The cache serves once its listening connection is up and the seed's notifications are in.
        let warm: Awaited<ReturnType<typeof createCounted>> | undefined
        for (let i = 0; i < 200 && warm === undefined; i++) {
          const r = await createCounted(tender.web.handler, i)
          if (r.sent.length === 2) warm = r
          else await new Promise((resolve) => setTimeout(resolve, 25))
        }
        assert.isDefined(warm, "the directory cache came up")
        const ids = [warm!.id]
        for (let i = 0; i < 3; i++) {
          const r = await createCounted(tender.web.handler, 1000 + i)
          assert.strictEqual(r.sent.length, 2, r.sent.join("\n"))
          assert.match(r.sent[0]!, /^WITH k AS \(INSERT INTO/, "the claim")
          assert.match(r.sent[1]!, /^WITH /, "the commit")
          ids.push(r.id)
        }
        // Each warm create wrote its two events' deliveries to the endpoint the cache held.
        const rows = await runSql(Effect.flatMap(SqlClient, (sql) =>
          sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql(`${tender.tablePrefix}tasks`)} t
            JOIN ${sql(`${tender.tablePrefix}events`)} e ON e.id = t.resource_id
            WHERE t.kind = 'webhook.deliver' AND t.target_id = ${endpointId} AND e.resource_id IN ${sql.in(ids)}`))
        assert.strictEqual(rows[0]!.n, String(ids.length * 2))
      } finally {
        await tender.close()
      }
    }, 60_000)

    it(
      "4.9.3 over HTTP a replay the process has read once is answered with no statement: the first answer's status and body byte for byte, Idempotent-Replayed: true; another body under the key is 409",
      async () => {
        const tender = await startTender(undefined)
        const sent: Array<string> = []
        const query = Pg.Client.prototype.query
        const spy = vi.spyOn(Pg.Client.prototype, "query").mockImplementation(function(this: Pg.Client, ...args: Array<any>) {
          sent.push(typeof args[0] === "string" ? args[0] : String(args[0]?.text ?? args[0]?.name ?? ""))
          return Reflect.apply(query, this, args)
        })
        try {
          const headers = { "idempotency-key": `replay-http-${Math.random()}` }
          const post = (amount: string) => call(tender.web.handler, "POST", "/payment_intents", { key: keys.demoTest, body: promptpayFor(amount), headers })
          const first = await post("150000")
          assert.strictEqual(first.status, 201, first.text)
          await post("150000") // read from the store once, and kept
          sent.length = 0
          const replay = await post("150000")
          const conflict = await post("150001")
          assert.strictEqual(replay.status, 201)
          assert.strictEqual(replay.text, first.text)
          assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
          assert.strictEqual(conflict.status, 409, conflict.text)
          assert.strictEqual((conflict.json as { error: { code: string } }).error.code, "idempotency_conflict")
          // The credentials may be re-read when the directory cache's entry ages; the key never is.
          assert.isFalse(sent.some((text) => text.includes("idempotency_keys")), sent.join("\n"))
        } finally {
          spy.mockRestore()
          await tender.close()
        }
      },
      60_000
    )

    it(
      "without the directory cache a create makes six statements: the credentials (the key, then its merchant: issue 49), the claim, the host's word on routes, the endpoints and the commit",
      async () => {
        const tender = await startTender(false)
        try {
          await createCounted(tender.web.handler, 0)
          const r = await createCounted(tender.web.handler, 1)
          assert.strictEqual(r.sent.length, 6, r.sent.join("\n"))
        } finally {
          await tender.close()
        }
      },
      60_000
    )
  })
} else {
  describe("D2 authentication timing on PostgreSQL", () => {
    it.skip(`skipped: ${skipReason}`, () => {})
  })
}
