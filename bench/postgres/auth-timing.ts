/**
 * `npx tsx bench/postgres/auth-timing.ts`: does the time of a refused authentication on PostgreSQL say
 * whether the public key exists (D2, timing)? Interleaves two paths through
 * `Authentication.authenticate` on `PgStorage`, both answered 401 `invalid_api_key`:
 *
 *   known   a real public key with a wrong secret
 *   unknown a public key of the same shape that does not exist, with a secret of the same shape
 *
 * and prints the median of each and their difference, then the same for the directory lookup
 * alone (`Merchants.findCredentials`), which is where a difference would come from.
 *
 * Reads DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); creates its tables
 * under a fresh prefix and drops them after. SAMPLES (default 3000) per path; WARMUP (500).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Authentication, Merchants, Seed } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { testDatabaseUrl as url } from "@tender/repo-test-support"
import { Effect, Either, ManagedRuntime } from "effect"

const samples = Number(process.env["SAMPLES"] ?? "3000")
const warmup = Number(process.env["WARMUP"] ?? "500")
const prefix = `authbench_${Date.now().toString(36)}_`

/** A merchant as the demo seeds it: two modes, three routes. */
const seed: Seed.Seed = {
  merchants: [{
    id: "mch_bench",
    name: "Bench Shop",
    allowed_checkout_modes: ["hosted", "merchant"],
    api_keys: [{ id: "key_bench", public_key: "pk_test_benchA1b2C3d4E5f6G7h8", secret_key: "sk_test_benchSECRETq1w2e3r4t5y6u7i8" }],
    routes: [
      { id: "rt_bench_promptpay", method: "th_promptpay", provider: "simulator", environments: ["test"], priority: 1 },
      { id: "rt_bench_bank_transfer", method: "th_bank_transfer", provider: "simulator", environments: ["test"], priority: 2 },
      { id: "rt_bench_online_banking", method: "th_online_banking", provider: "simulator", environments: ["test"], priority: 3 }
    ]
  }]
}

const known = { publicKey: "pk_test_benchA1b2C3d4E5f6G7h8", secretKey: "sk_test_benchWRONGGq1w2e3r4t5y6u7i8" }
const unknown = { publicKey: "pk_test_nobodyA1b2C3d4E5f6G7h", secretKey: "sk_test_benchWRONGGq1w2e3r4t5y6u7i8" }

// One connection: both paths meet the same socket and backend.
const runtime = ManagedRuntime.make(PgStorage.layerFromUrl({ url, tablePrefix: prefix, maxConnections: 1 }))

type Services = ManagedRuntime.ManagedRuntime.Context<typeof runtime>

const median = (xs: Array<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const timeOnce = async (effect: Effect.Effect<unknown, unknown, Services>): Promise<number> => {
  const start = process.hrtime.bigint()
  await runtime.runPromise(Effect.either(effect))
  return Number(process.hrtime.bigint() - start) / 1000
}

/** Interleaved samples of two effects, alternating which goes first; medians in µs. */
const compare = async (label: string, a: Effect.Effect<unknown, unknown, Services>, b: Effect.Effect<unknown, unknown, Services>) => {
  for (let i = 0; i < warmup; i++) {
    await timeOnce(a)
    await timeOnce(b)
  }
  const ta: Array<number> = []
  const tb: Array<number> = []
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      ta.push(await timeOnce(a))
      tb.push(await timeOnce(b))
    } else {
      tb.push(await timeOnce(b))
      ta.push(await timeOnce(a))
    }
  }
  const ma = median(ta)
  const mb = median(tb)
  process.stdout.write(
    `${label.padEnd(22)} known key, wrong secret ${ma.toFixed(1).padStart(7)} µs   unknown key ${mb.toFixed(1).padStart(7)} µs   ` +
      `difference ${(ma - mb).toFixed(1).padStart(6)} µs   (median of ${samples} interleaved samples each)\n`
  )
}

try {
  await runtime.runPromise(Seed.apply(seed))
  // Both paths are refused, with the same error.
  for (const c of [known, unknown]) {
    const result = await runtime.runPromise(Effect.either(Authentication.authenticate(c)))
    if (Either.isRight(result) || result.left._tag !== "InvalidApiKey") throw new Error(`expected invalid_api_key for ${c.publicKey}`)
  }
  await compare("authenticate", Authentication.authenticate(known), Authentication.authenticate(unknown))
  const lookup = (publicKey: string) => Effect.flatMap(Merchants.Merchants, (m) => m.findCredentials(publicKey))
  await compare("findCredentials only", lookup(known.publicKey), lookup(unknown.publicKey))
} finally {
  await runtime.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient
    const rows = yield* sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND starts_with(tablename, ${prefix})`
    for (const { name } of rows) yield* sql`DROP TABLE IF EXISTS ${sql(name)}`
    yield* sql`DROP FUNCTION IF EXISTS ${sql(`${prefix}guard_failed`)}(text)`
  }))
  await runtime.dispose()
}
