/**
 * The D12 model-based property test, written once for every store (memory: Ledger.test.ts;
 * PostgreSQL: packages/postgres/test/LedgerModel.test.ts): random sequences of money operations
 * run against Tender through its core operations and against a small model of the books, and after
 * every step the ledger's rules are checked on what the store holds. Not a test file itself.
 */
import { assert } from "@effect/vitest"
import { promptpayNamed } from "@tender/repo-test-support"
import { Duration, Effect, Layer, ManagedRuntime, Schema, TestClock, TestContext } from "effect"
import fc from "fast-check"
import {
  Balances,
  BalanceTransaction,
  type Merchants,
  PaymentIntent,
  PaymentIntents,
  PayoutIntent,
  PayoutIntents,
  Refund,
  Refunds,
  Simulator,
  Storage,
  type Task,
  Tender,
  TopupIntent,
  TopupIntents,
  Workers
} from "../src/index.js"
import { checkoutOptions, keys, login, seed } from "./fixtures.js"

/** The demo merchant with a PromptPay fee of 1.65 % + 0.10 and one day of settlement delay. */
export const modelSeed: typeof seed = {
  ...seed,
  merchants: seed.merchants.map((m) =>
    m.id === "mch_demo" ? { ...m, fees: { th_promptpay: { rate_bps: 165, fixed_amount: "10" } }, settlement_delay_days: 1 } : m
  )
}
const rate = { rateBps: 165, fixedAmount: "10" }
const day = 24 * 60 * 60 * 1000
const scope = { merchantId: "mch_demo", environment: "test" as const }

/** One transaction the model expects. */
interface Expected {
  readonly type: BalanceTransaction.Type
  readonly amount: bigint
  readonly fee: bigint
  readonly availableAt: number
}

/** The model: the transactions it expects, the payments still refundable and the payouts awaiting approval. */
export interface Model {
  readonly txns: Array<Expected>
  readonly paid: Array<{ id: string; refundable: bigint }>
  readonly awaiting: Array<{ id: string; amount: bigint }>
  now: number
}

const available = (m: Model) => m.txns.reduce((sum, t) => (t.availableAt <= m.now || t.amount - t.fee < 0n ? sum + t.amount - t.fee : sum), 0n)

type Runtime = ManagedRuntime.ManagedRuntime<any, never>

/** The real system: a runtime of Tender on one store, its clock a test clock. */
export interface Real {
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
}

const context = (requestId: string) => Effect.map(login(keys.demoTest), (principal) => ({ principal, requestId, idempotencyKey: undefined }))
const drain = Effect.repeatN(Workers.drain({ owner: "model" }), 2)

const pay = (amount: bigint) =>
  Effect.gen(function*() {
    const ctx = yield* context("req_pay")
    const params = yield* Effect.orDie(Schema.decodeUnknown(PaymentIntent.CreateParams)({ ...promptpayNamed, amount: String(amount) }))
    const created = JSON.parse((yield* PaymentIntents.create(ctx, params)).body)
    yield* PaymentIntents.confirm(ctx, created.id)
    yield* drain
    return created.id as string
  })

class Pay implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: bigint) {}
  check = () => true
  async run(m: Model, r: Real) {
    const id = await r.run(pay(this.amount))
    m.paid.push({ id, refundable: this.amount })
    m.txns.push({ type: "payment", amount: this.amount, fee: BalanceTransaction.applicationFee(this.amount, rate), availableAt: m.now + day })
  }
  toString = () => `pay(${this.amount})`
}

class RefundPart implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly fails: boolean) {}
  check = (m: Readonly<Model>) => m.paid.some((p) => p.refundable >= 40005n)
  async run(m: Model, r: Real) {
    const candidates = m.paid.filter((p) => p.refundable >= 40005n)
    const target = candidates[this.pick % candidates.length]!
    const amount = this.fails ? BigInt(Simulator.magicAmounts.refundFails) : 100n
    const answer = await r.run(Effect.gen(function*() {
      const params = yield* Effect.orDie(Schema.decodeUnknown(Refund.CreateParams)({ payment_intent: target.id, amount: String(amount) }))
      const res = yield* Refunds.create(yield* context("req_refund"), params)
      yield* drain
      return res
    }))
    assert.strictEqual(answer.status, 201, answer.body)
    m.txns.push({ type: "refund", amount: -amount, fee: 0n, availableAt: m.now })
    if (this.fails) m.txns.push({ type: "refund_failure", amount, fee: 0n, availableAt: m.now })
    else target.refundable -= amount
  }
  toString = () => `refund(${this.pick}, ${this.fails ? "fails" : "100"})`
}

class Topup implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: bigint) {}
  check = () => true
  async run(m: Model, r: Real) {
    const destination = String(this.amount)
    await r.run(Effect.gen(function*() {
      const params = yield* Effect.orDie(
        Schema.decodeUnknown(TopupIntent.CreateParams)({
          destination_amount: destination,
          destination_currency: "THB",
          source: { type: "test_funding" }
        })
      )
      const res = yield* TopupIntents.create({ ...yield* context("req_topup"), idempotencyKey: crypto.randomUUID() }, params)
      assert.strictEqual(res.status, 201, res.body)
      yield* drain
    }))
    m.txns.push({ type: "topup", amount: this.amount, fee: 0n, availableAt: m.now })
  }
  toString = () => `topup(${this.amount})`
}

const payoutBody = (amount: bigint) => ({
  amount: String(amount),
  currency: "THB",
  merchant_reference: `model-${crypto.randomUUID()}`,
  destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "Somchai Jaidee" }
})

class Payout implements fc.AsyncCommand<Model, Real> {
  /** `fails`: the magic amount whose payout the simulator fails once approved. */
  constructor(readonly amount: bigint, readonly fails: boolean) {}
  check = () => true
  async run(m: Model, r: Real) {
    const amount = this.fails ? BigInt(Simulator.magicAmounts.payoutFails) : this.amount
    const covered = available(m) >= amount
    const res = await r.run(Effect.gen(function*() {
      const params = yield* Effect.orDie(Schema.decodeUnknown(PayoutIntent.CreateParams)(payoutBody(amount)))
      return yield* PayoutIntents.create(yield* context("req_payout"), params)
    }))
    if (!covered) {
      // D12: refused with nothing created.
      assert.strictEqual(res.status, 422, res.body)
      assert.strictEqual(JSON.parse(res.body).error.code, "balance_insufficient")
      return
    }
    assert.strictEqual(res.status, 201, res.body)
    const id = JSON.parse(res.body).id as string
    m.txns.push({ type: "payout", amount: -amount, fee: 0n, availableAt: m.now })
    if (this.fails) {
      await r.run(Effect.zipRight(PayoutIntents.approve(scope, id), drain))
      m.txns.push({ type: "payout_failure", amount, fee: 0n, availableAt: m.now })
    } else {
      m.awaiting.push({ id, amount })
    }
  }
  toString = () => `payout(${this.fails ? "fails" : this.amount})`
}

class CancelPayout implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.awaiting.length > 0
  async run(m: Model, r: Real) {
    const [target] = m.awaiting.splice(this.pick % m.awaiting.length, 1)
    const res = await r.run(Effect.flatMap(context("req_cancel"), (ctx) => PayoutIntents.cancel(ctx, target!.id)))
    assert.strictEqual(res.status, 200, res.body)
    m.txns.push({ type: "payout_cancel", amount: target!.amount, fee: 0n, availableAt: m.now })
  }
  toString = () => `cancelPayout(${this.pick})`
}

class Adjust implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: bigint) {}
  check = () => true
  async run(m: Model, r: Real) {
    await r.run(Balances.adjust(scope, { amount: String(this.amount), currency: "THB", description: "model", idempotency_key: crypto.randomUUID() }))
    m.txns.push({ type: "adjustment", amount: this.amount, fee: 0n, availableAt: m.now })
  }
  toString = () => `adjust(${this.amount})`
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly hours: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    await r.run(TestClock.adjust(Duration.hours(this.hours)))
    m.now += this.hours * 60 * 60 * 1000
  }
  toString = () => `wait(${this.hours}h)`
}

/** The simulator's magic amounts (D9) drive outcomes of their own: a plain amount is none of them. */
const magic = new Set<string>(Object.values(Simulator.magicAmounts))
const amount = (min: number, max: number) => fc.integer({ min, max }).filter((a) => !magic.has(String(a))).map(BigInt)

/** Every command, with arbitrary amounts. */
export const commands = [
  amount(100, 500_000).map((a) => new Pay(a)),
  fc.tuple(fc.nat(), fc.boolean()).map(([pick, fails]) => new RefundPart(pick, fails)),
  amount(1, 300_000).map((a) => new Topup(a)),
  fc.tuple(amount(1, 400_000), fc.boolean()).map(([a, fails]) => new Payout(a, fails)),
  fc.nat().map((pick) => new CancelPayout(pick)),
  fc.integer({ min: -50_000, max: 50_000 }).filter((a) => a !== 0).map((a) => new Adjust(BigInt(a))),
  fc.integer({ min: 1, max: 30 }).map((h) => new Wait(h))
]

/**
 * The rules of D12 on what the store holds, checked after every step against the model: postings
 * sum to zero per currency; each balance is the sum of its transactions' net; net = amount − fee
 * and fee = the sum of fee_details; one transaction per money event, exactly those the model
 * expects; available below zero only after a refund or a negative adjustment.
 */
export const checkBooks = (m: Model, r: Real) =>
  r.run(Effect.gen(function*() {
    const storage = yield* Storage.Storage
    const rows = yield* storage.list(BalanceTransaction.table, { ...scope, limit: 100_000 })
    const postings = new Map<string, bigint>()
    for (const t of rows) {
      assert.strictEqual(BigInt(t.net), BigInt(t.amount) - BigInt(t.fee), t.id)
      assert.strictEqual(t.feeDetails.reduce((s, d) => s + BigInt(d.amount), 0n), BigInt(t.fee), t.id)
      assert.isTrue(BigInt(t.fee) >= 0n, t.id)
      for (const p of t.postings) postings.set(t.currency, (postings.get(t.currency) ?? 0n) + BigInt(p.amount))
    }
    for (const [currency, sum] of postings) assert.strictEqual(sum, 0n, `postings of ${currency}`)
    // One transaction per (source, type): a money event counted once.
    const events = rows.filter((t) => t.source !== null).map((t) => `${t.source}/${t.type}`)
    assert.strictEqual(new Set(events).size, events.length)
    const key = (t: { type: string; amount: bigint | string; fee: bigint | string }) => `${t.type} ${t.amount} ${t.fee}`
    assert.deepStrictEqual(rows.map(key).sort(), m.txns.map(key).sort())
    const [total] = yield* storage.balances({ ...scope, now: m.now })
    const sumNet = rows.reduce((s, t) => s + BigInt(t.net), 0n)
    if (rows.length === 0) return assert.isUndefined(total)
    assert.strictEqual(BigInt(total!.available) + BigInt(total!.pending), sumNet)
    assert.strictEqual(BigInt(total!.available), available(m))
    const mayBeNegative = m.txns.some((t) => t.type === "refund" || (t.type === "adjustment" && t.amount < 0n))
    if (!mayBeNegative) assert.isTrue(BigInt(total!.available) >= 0n, `available ${total!.available}`)
  }))

/** Each command, then the books checked. */
const checked = (c: fc.AsyncCommand<Model, Real>): fc.AsyncCommand<Model, Real> => ({
  check: (m) => c.check(m),
  run: async (m, r) => {
    await c.run(m, r)
    await checkBooks(m, r)
  },
  toString: () => c.toString()
})

/** The property on the store `storage()` makes: `runs` random sequences of up to `maxCommands` steps. */
export const ledgerProperty = (
  storage: () => Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, unknown>,
  options: { readonly runs: number; readonly maxCommands: number }
) =>
  fc.assert(
    fc.asyncProperty(fc.commands(commands.map((a) => a.map(checked)), { maxCommands: options.maxCommands }), async (cmds) => {
      const runtime: Runtime = ManagedRuntime.make(Layer.orDie(
        Tender.layer({ seed: modelSeed, hostedCheckout: checkoutOptions }, storage()).pipe(Layer.provideMerge(TestContext.TestContext))
      ) as Layer.Layer<any>)
      try {
        const real: Real = { run: (effect) => runtime.runPromise(effect as Effect.Effect<any, any, any>) }
        await fc.asyncModelRun(() => ({ model: { txns: [], paid: [], awaiting: [], now: 0 }, real }), cmds)
      } finally {
        await runtime.dispose()
      }
    }),
    { numRuns: options.runs }
  )
