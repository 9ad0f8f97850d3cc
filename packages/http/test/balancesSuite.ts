/**
 * D12 over HTTP, written once and run on every store (memory here: Balances.test.ts; PostgreSQL:
 * packages/postgres/test/Balances.test.ts): the balance and its transactions as the merchant
 * reads them, funded with `test_funding` top-ups as D12 says a test balance is funded.
 */
import { assert } from "@effect/vitest"
import { Balances, PayoutIntents, Simulator } from "@tender/core"
import { payout, promptpayFor, topup } from "@tender/repo-test-support"
import { Effect } from "effect"
import { describe, it } from "vitest"
import { keys, seed } from "../../core/test/fixtures.js"
import type { Key } from "./harness.js"
import { type StoreLayer, storeTenders } from "./storeTenders.js"

/** The fixtures' seed with a PromptPay fee of 1.65 % + 0.10 for `mch_other` (D12). */
export const feeSeed: typeof seed = {
  ...seed,
  merchants: seed.merchants.map((m) => m.id === "mch_other" ? { ...m, fees: { th_promptpay: { rate_bps: 165, fixed_amount: "10" } } } : m)
}

const txnId = /^txn_[0-9A-Za-z]{24}$/
const signed = /^-?(0|[1-9]\d*)$/
const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const txnFields = [
  "id",
  "object",
  "environment",
  "type",
  "amount",
  "fee",
  "net",
  "currency",
  "fee_details",
  "status",
  "available_at",
  "source",
  "description",
  "provider_account",
  "created_at"
].sort()

/** Every D12 field of a transaction, with its format; `net = amount − fee`, `fee` the sum of `fee_details`. */
export const assertTransaction = (t: any) => {
  assert.deepStrictEqual(Object.keys(t).sort(), txnFields)
  assert.match(t.id, txnId)
  assert.strictEqual(t.object, "balance_transaction")
  for (const field of ["amount", "fee", "net"]) assert.match(t[field], signed, field)
  assert.isFalse(t.fee.startsWith("-"))
  assert.strictEqual(BigInt(t.net), BigInt(t.amount) - BigInt(t.fee))
  assert.strictEqual(t.fee_details.reduce((sum: bigint, d: any) => sum + BigInt(d.amount), 0n), BigInt(t.fee))
  assert.match(t.available_at, time)
  assert.match(t.created_at, time)
  assert.include(["pending", "available"], t.status)
}

export const balancesSuite = (name: string, storage: () => StoreLayer) => {
  const start = storeTenders(storage, { seed: feeSeed })

  /** A tender with `amount` THB of test funding credited (D12: how a test balance is funded). */
  const funded = async (amount = "200000", key: Key = keys.demoTest) => {
    const t = await start()
    if (amount !== "0") {
      const created = await t.send("POST", "/topup_intents", { ...topup, destination_amount: amount }, key, crypto.randomUUID())
      assert.strictEqual(created.status, 201, created.text)
      await t.work()
      const got = await t.ok("GET", `/topup_intents/${created.json.id}`, undefined, key)
      assert.strictEqual(got.status, "succeeded")
    }
    const transactions = async (query = "", k: Key = key) => (await t.ok("GET", `/balance_transactions${query}`, undefined, k)).data as Array<any>
    const balance = async (k: Key = key) => t.ok("GET", "/balance", undefined, k)
    return { ...t, transactions, balance }
  }

  describe(`D12 balances over HTTP: ${name}`, () => {
    it("D12 a payout above the available balance -> 422 balance_insufficient; nothing is created (no payout, no transaction, no event)", async () => {
      const t = await funded("0")
      const refused = await t.send("POST", "/payout_intents", payout("d12-empty"))
      assert.strictEqual(refused.status, 422, refused.text)
      assert.strictEqual(refused.json.error.code, "balance_insufficient")
      assert.deepStrictEqual((await t.ok("GET", "/payout_intents")).data, [])
      assert.deepStrictEqual(await t.transactions(), [])
      assert.deepStrictEqual((await t.ok("GET", "/events?type=payout_intent.created")).data, [])
      assert.deepStrictEqual(await t.balance(), { object: "balance", environment: "test", available: [], pending: [] })
    })

    it("D12 a test_funding top-up credits destination.credited_amount; a payout draws it and its cancel gives it back, one transaction each", async () => {
      const t = await funded("200000")
      const [credit] = await t.transactions()
      assertTransaction(credit)
      assert.strictEqual(credit.type, "topup")
      assert.strictEqual(credit.amount, "200000")
      assert.strictEqual(credit.fee, "0")
      assert.strictEqual(credit.status, "available")
      assert.deepStrictEqual((await t.balance()).available, [{ amount: "200000", currency: "THB" }])
      const created = await t.send("POST", "/payout_intents", payout("d12-draw"))
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual((await t.balance()).available, [{ amount: "190000", currency: "THB" }])
      const canceled = await t.send("POST", `/payout_intents/${created.json.id}/cancel`, {})
      assert.strictEqual(canceled.status, 200, canceled.text)
      const all = await t.transactions()
      assert.deepStrictEqual(all.map((x) => [x.type, x.amount, x.source]), [
        ["payout_cancel", "10000", created.json.id],
        ["payout", "-10000", created.json.id],
        ["topup", "200000", credit.source]
      ])
      all.forEach(assertTransaction)
      // D12: every currency with a transaction is listed in both, so a merchant reads a zero as zero.
      assert.deepStrictEqual(await t.balance(), {
        object: "balance",
        environment: "test",
        available: [{ amount: "200000", currency: "THB" }],
        pending: [{ amount: "0", currency: "THB" }]
      })
    })

    it("D12 a payment carries the merchant's fee: floor(amount x rate_bps / 10000 + 1/2) + fixed_amount; a refund and its failure move the net back and forth", async () => {
      const t = await funded("0", keys.otherTest)
      const created = await t.send("POST", "/payment_intents", promptpayFor("100000"), keys.otherTest)
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual((await t.send("POST", `/payment_intents/${created.json.id}/confirm`, {}, keys.otherTest)).status, 200)
      await t.work()
      const [paid] = await t.transactions("", keys.otherTest)
      assertTransaction(paid)
      // 100000 x 165 / 10000 = 1650, + 10 fixed.
      assert.deepStrictEqual([paid.type, paid.amount, paid.fee, paid.net, paid.source], ["payment", "100000", "1660", "98340", created.json.id])
      assert.deepStrictEqual(paid.fee_details, [{ type: "application_fee", amount: "1660", currency: "THB", description: "Platform fee" }])
      const refund = await t.send("POST", "/refunds", { payment_intent: created.json.id, amount: Simulator.magicAmounts.refundFails }, keys.otherTest)
      assert.strictEqual(refund.status, 201, refund.text)
      assert.deepStrictEqual((await t.balance(keys.otherTest)).available, [{ amount: String(98340 - 40005), currency: "THB" }])
      await t.work()
      const all = await t.transactions("", keys.otherTest)
      assert.deepStrictEqual(all.map((x) => [x.type, x.amount, x.fee, x.source]), [
        ["refund_failure", "40005", "0", refund.json.id],
        ["refund", "-40005", "0", refund.json.id],
        ["payment", "100000", "1660", created.json.id]
      ])
      assert.deepStrictEqual((await t.balance(keys.otherTest)).available, [{ amount: "98340", currency: "THB" }])
      // Fees go to the platform: what the host reads.
      const revenue = await t.runtime.runPromise(Balances.feeRevenue("test"))
      assert.deepStrictEqual(revenue, [{ currency: "THB", amount: "1660" }])
    })

    it("D12 a late payment (D10) is a payment transaction, with its fee, and the refund that gives it back", async () => {
      const t = await funded("0", keys.otherTest)
      const created = await t.send("POST", "/payment_intents", promptpayFor(Simulator.magicAmounts.paidAfterCancel), keys.otherTest)
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual((await t.send("POST", `/payment_intents/${created.json.id}/cancel`, {}, keys.otherTest)).status, 200)
      await t.work()
      await t.work()
      const [refund] = (await t.ok("GET", `/refunds?payment_intent=${created.json.id}`, undefined, keys.otherTest)).data
      assert.strictEqual(refund.reason, "late_payment")
      const all = await t.transactions("", keys.otherTest)
      all.forEach(assertTransaction)
      // 40901 x 165 / 10000 = 674.87 -> 675, + 10 fixed.
      assert.deepStrictEqual(all.map((x) => [x.type, x.amount, x.fee, x.source]).sort(), [
        ["payment", "40901", "685", created.json.id],
        ["refund", "-40901", "0", refund.id]
      ])
      // The payer comes first: the refund may take the balance below zero (the fee stays earned).
      assert.deepStrictEqual((await t.balance(keys.otherTest)).available, [{ amount: "-685", currency: "THB" }])
    })

    it("D12 a merchant_reference replay answers the original payout whatever the balance is now", async () => {
      const t = await funded("10000")
      const first = await t.send("POST", "/payout_intents", payout("d12-replay"))
      assert.strictEqual(first.status, 201, first.text)
      assert.deepStrictEqual((await t.balance()).available, [{ amount: "0", currency: "THB" }])
      const again = await t.send("POST", "/payout_intents", payout("d12-replay"))
      assert.strictEqual(again.status, 200, again.text)
      assert.strictEqual(again.json.id, first.json.id)
      assert.strictEqual((await t.transactions("?type=payout")).length, 1)
    })

    it("D12 concurrent payouts never take the available balance below zero: exactly as many succeed as it covers", async () => {
      const t = await funded("200000")
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => t.send("POST", "/payout_intents", payout(`d12-race-${i}`))))
      assert.deepStrictEqual(answers.filter((a) => a.status !== 201 && a.status !== 422).map((a) => a.text), [])
      assert.strictEqual(answers.filter((a) => a.status === 201).length, 20)
      assert.isTrue(answers.filter((a) => a.status === 422).every((a) => a.json.error.code === "balance_insufficient"))
      assert.deepStrictEqual((await t.balance()).available, [{ amount: "0", currency: "THB" }])
      assert.strictEqual((await t.transactions("?type=payout&limit=100")).length, 20)
    })

    it("D12 a failed payout gives its amount back (payout_failure)", async () => {
      const t = await funded("100000")
      const created = await t.send("POST", "/payout_intents", { ...payout("d12-fails"), amount: Simulator.magicAmounts.payoutFails })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(await t.runtime.runPromise(PayoutIntents.approve({ merchantId: "mch_demo", environment: "test" }, created.json.id)), "approved")
      await t.work()
      assert.strictEqual((await t.ok("GET", `/payout_intents/${created.json.id}`)).status, "failed")
      const all = await t.transactions()
      assert.deepStrictEqual(all.map((x) => [x.type, x.amount]), [["payout_failure", "40004"], ["payout", "-40004"], ["topup", "100000"]])
      assert.deepStrictEqual((await t.balance()).available, [{ amount: "100000", currency: "THB" }])
    })

    it("D12 GET /balance_transactions filters by type, source and currency; another merchant's or environment's transaction is 404; a malformed id or cursor is 400", async () => {
      const t = await funded("200000")
      const created = await t.send("POST", "/payout_intents", payout("d12-filters"))
      const all = await t.transactions()
      assert.deepStrictEqual((await t.transactions("?type=topup,payout")).map((x) => x.type), ["payout", "topup"])
      assert.deepStrictEqual((await t.transactions(`?source=${created.json.id}`)).map((x) => x.type), ["payout"])
      assert.deepStrictEqual(await t.transactions("?currency=USD"), [])
      assert.strictEqual((await t.transactions("?limit=1")).length, 1)
      const page = await t.ok("GET", "/balance_transactions?limit=1")
      assert.isTrue(page.has_more)
      const next = await t.ok("GET", `/balance_transactions?limit=1&cursor=${page.next_cursor}`)
      assert.strictEqual(next.data[0].id, all[1].id)
      assert.deepStrictEqual(await t.ok("GET", `/balance_transactions/${all[0].id}`), all[0])
      assert.strictEqual((await t.send("GET", `/balance_transactions/${all[0].id}`, undefined, keys.otherTest)).status, 404)
      assert.strictEqual((await t.send("GET", `/balance_transactions/${all[0].id}`, undefined, keys.demoLive)).status, 404)
      assert.deepStrictEqual(await t.transactions("", keys.otherTest), [])
      const bad = await t.send("GET", "/balance_transactions/nope")
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(bad.json.error.param, "id")
      assert.strictEqual((await t.send("GET", "/balance_transactions?type=bogus")).status, 400)
      assert.strictEqual((await t.send("GET", "/balance_transactions?cursor=%%%")).status, 400)
      const future = await t.transactions("?created_after=2999-01-01T00:00:00.000Z")
      assert.deepStrictEqual(future, [])
    })

    it("D12 an adjustment moves the balance either way, may take it below zero, and answers its idempotency key again", async () => {
      const t = await funded("0")
      const scope = { merchantId: "mch_demo", environment: "test" as const }
      const debit = { amount: "-500", currency: "THB", description: "chargeback fee", idempotency_key: "adj-1" }
      const made = await t.runtime.runPromise(Balances.adjust(scope, debit))
      assertTransaction(made)
      assert.deepStrictEqual([made.type, made.amount, made.source, made.description], ["adjustment", "-500", null, "chargeback fee"])
      assert.deepStrictEqual((await t.balance()).available, [{ amount: "-500", currency: "THB" }])
      assert.deepStrictEqual(await t.runtime.runPromise(Balances.adjust(scope, debit)), made)
      const conflict = await t.runtime.runPromise(Effect.flip(Balances.adjust(scope, { ...debit, amount: "-600" })))
      assert.strictEqual(conflict._tag, "IdempotencyConflict")
      assert.strictEqual((await t.transactions()).length, 1)
      // A payout cannot draw from a negative balance.
      assert.strictEqual((await t.send("POST", "/payout_intents", payout("d12-negative"))).status, 422)
    })
  })
}
