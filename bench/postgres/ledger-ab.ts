/**
 * `npm run bench:ledger`: what the ledger (D12) costs on PostgreSQL, as ratios measured in one run
 * in alternating rounds (the machine's load drifts over both sides alike):
 *
 * 1. confirm → succeeded (create, confirm, the workers' drain) with the ledger in front of the
 *    store's commit (`Tender.layer`) against the same services without it (goal ≥ 0.9);
 * 2. payment successes all on one merchant against the same spread over 100 merchants, both with
 *    the ledger (goal ≥ 0.9: no row every payment of one merchant must lock);
 * 3. payout creates all on one balance (which the balance's lock serializes) against the same
 *    spread over 40 balances.
 *
 * Each side runs on tables of its own prefix, dropped at the end. Env: `BENCH_ROUNDS` (5),
 * `BENCH_PAYMENTS` (40 per round), `BENCH_CONCURRENCY` (8), `BENCH_DATABASE_URL`/`DATABASE_URL`.
 */
import { type Authentication, Balances, PaymentIntent, PaymentIntents, PayoutIntent, PayoutIntents, Seed, Tender, Workers } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { promptpayNamed } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { loadavg } from "node:os"
import { dropPrefix } from "../shared/pg-prefix.js"

const rounds = Number(process.env["BENCH_ROUNDS"] ?? "5")
const perRound = Number(process.env["BENCH_PAYMENTS"] ?? "40")
const concurrency = Number(process.env["BENCH_CONCURRENCY"] ?? "8")
const url = process.env["BENCH_DATABASE_URL"] ?? process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const run = Date.now().toString(36)

const merchants = Array.from({ length: 100 }, (_, i) => ({
  id: `mch_bench_${i}`,
  name: `Bench ${i}`,
  allowed_checkout_modes: ["merchant" as const],
  api_keys: [],
  routes: [{ id: `rt_bench_${i}`, method: "th_promptpay", provider: "simulator", environments: ["test" as const] }],
  fees: { th_promptpay: { rate_bps: 165 } }
}))
const seed: Seed.Seed = { merchants }
const hostedCheckout = { baseUrl: "https://pay.example.test", secret: "bench-ledger-secret" }
const principals: Array<Authentication.Principal> = Seed.toDirectory(seed, 0).merchants.map((merchant) => ({
  merchant,
  environment: "test",
  apiKeyId: "key_bench"
}))

const storage = (tablePrefix: string) => PgStorage.layerFromUrl({ url, tablePrefix, maxConnections: 10 })
/** Tender as `Tender.layer` wires it: the ledger in front of the store's commit. */
const withLedger = (prefix: string) => Layer.orDie(Tender.layer({ seed, hostedCheckout }, storage(prefix)))
/** The same services, the store's commit as it is: what Tender was before the ledger. */
const withoutLedger = (prefix: string) =>
  Layer.orDie(
    Layer.merge(Tender.layerWithoutStorage({ seed, hostedCheckout }), Layer.merge(Seed.layerRouteHealth(seed), Seed.layerApply(seed))).pipe(
      Layer.provideMerge(storage(prefix))
    )
  )

const promptpay = Schema.decodeUnknownSync(PaymentIntent.CreateParams)({ ...promptpayNamed, amount: "100000" })

/** `n` payments created and confirmed, `concurrency` at a time, merchant i of `spread`, then the workers drain. */
const payments = (n: number, spread: number) =>
  Effect.gen(function*() {
    yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
      Effect.gen(function*() {
        const ctx = { principal: principals[i % spread]!, requestId: "req_bench" }
        const created = yield* PaymentIntents.create(ctx, promptpay)
        yield* PaymentIntents.confirm(ctx, JSON.parse(created.body).id)
      }), { concurrency, discard: true })
    yield* Effect.repeatN(Workers.drain({ owner: "bench", concurrency }), 1)
  })

const payout = (i: number) =>
  Schema.decodeUnknownSync(PayoutIntent.CreateParams)({
    amount: "100",
    currency: "THB",
    merchant_reference: `bench-${run}-${i}-${Math.random()}`,
    destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "Somchai Jaidee" }
  })

/** `n` payout creates, `concurrency` at a time, on balance i of `spread`; each must be created. */
const payouts = (n: number, spread: number) =>
  Effect.forEach(
    Array.from({ length: n }, (_, i) => i),
    (i) =>
      Effect.map(PayoutIntents.create({ principal: principals[i % spread]!, requestId: "req_bench" }, payout(i)), (r) => {
        if (r.status !== 201) throw new Error(`payout create answered ${r.status}: ${r.body}`)
      }),
    { concurrency, discard: true }
  )

const timed = async (runtime: ManagedRuntime.ManagedRuntime<any, never>, effect: Effect.Effect<void, unknown, any>, n: number) => {
  const start = performance.now()
  await runtime.runPromise(effect)
  return n / ((performance.now() - start) / 1000)
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Rounds alternating `a` and `b` (in alternating order); the medians and their ratio a / b. */
const ab = async (name: string, a: () => Promise<number>, b: () => Promise<number>) => {
  const as: Array<number> = []
  const bs: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      as.push(await a())
      bs.push(await b())
    } else {
      bs.push(await b())
      as.push(await a())
    }
  }
  const ratio = median(as) / median(bs)
  process.stdout.write(
    `${name}: ${median(as).toFixed(1)}/s against ${median(bs).toFixed(1)}/s, ratio ${ratio.toFixed(2)} (rounds: ${
      as.map((x, i) => (x / bs[i]!).toFixed(2)).join(", ")
    })\n`
  )
  return ratio
}

const main = async () => {
  const load = () => loadavg().map((x) => x.toFixed(2)).join(", ")
  process.stdout.write(`ledger A/B on PostgreSQL, ${rounds} rounds of ${perRound} operations, concurrency ${concurrency}; load average ${load()}\n`)
  const prefixes = { with: `bench_lg_w_${run}_`, without: `bench_lg_o_${run}_` }
  const ledger = ManagedRuntime.make(withLedger(prefixes.with))
  const plain = ManagedRuntime.make(withoutLedger(prefixes.without))
  try {
    // Warm both: migrations, the directory, prepared statements.
    await ledger.runPromise(payments(8, 100))
    await plain.runPromise(payments(8, 100))
    await ab(
      "1. confirm -> succeeded, ledger / no ledger",
      () => timed(ledger, payments(perRound, 1), perRound),
      () => timed(plain, payments(perRound, 1), perRound)
    )
    await ab(
      "2. payment successes, one merchant / 100 merchants (ledger)",
      () => timed(ledger, payments(perRound, 1), perRound),
      () => timed(ledger, payments(perRound, 100), perRound)
    )
    // Fund every balance a payout draws from.
    await ledger.runPromise(
      Effect.forEach(principals.slice(0, 40), (p) =>
        Balances.adjust({ merchantId: p.merchant.id, environment: "test" }, {
          amount: "100000000",
          currency: "THB",
          description: "bench",
          idempotency_key: `fund-${run}`
        }), { discard: true })
    )
    await ab(
      "3. payout creates, one balance / 40 balances (ledger)",
      () => timed(ledger, payouts(perRound, 1), perRound),
      () => timed(ledger, payouts(perRound, 40), perRound)
    )
    process.stdout.write(`load average at the end ${load()}\n`)
  } finally {
    await ledger.dispose()
    await plain.dispose()
    for (const prefix of Object.values(prefixes)) dropPrefix(prefix, url)
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`)
  process.exit(1)
})
