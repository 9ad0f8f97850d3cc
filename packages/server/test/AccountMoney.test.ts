/**
 * D13 for the money that is not a payment: a merchant whose route names its own simulator
 * account has its top-ups taken and its payouts sent through that account, fixed on each
 * object, and its balance transactions name the account (D12); a merchant without one keeps the
 * deployment's. On memory and on PostgreSQL.
 */
import { until } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createTender, type SeedInput, type TenderInstance } from "../src/index.js"

const hostKey = { id: "k1", key: randomBytes(32).toString("base64") }
const merchant = (id: string, account?: string) => ({
  id,
  name: id,
  allowed_checkout_modes: ["merchant" as const],
  api_keys: [],
  routes: [{ id: `rt_${id}`, method: "th_promptpay", provider: "simulator", ...(account === undefined ? {} : { provider_account: account }) }],
  ...(account === undefined
    ? {}
    : {
      provider_accounts: [{
        id: account,
        provider: "simulator",
        environment: "test" as const,
        credentials: { notification_secret: `sim_${account}_secret_01` }
      }]
    })
})
const seed: SeedInput = { merchants: [merchant("mch_own", "acct_money_own"), merchant("mch_shared")] }

const { pool, fresh } = prefixedPool(4)

for (const storage of [{ name: "memory", postgres: false }, { name: "PostgreSQL", postgres: true }] as const) {
  describe(`D13 top-ups and payouts on ${storage.name}`, () => {
    let tender: TenderInstance
    beforeAll(async () => {
      tender = await createTender({
        publicUrl: "http://127.0.0.1:1/payments",
        checkoutSecret: "test-secret-account-money",
        storage: storage.postgres ? { postgres: pool, tablePrefix: fresh() } : { memory: true },
        merchants: seed,
        providerAccountKeys: [hostKey],
        logger: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
        workers: { pollMillis: 20 }
      })
    }, 60_000)
    afterAll(async () => {
      await tender?.close()
    })

    /** A funded balance and a payout sent, for `merchantId`; the provider account each balance transaction names. */
    const moneyOf = async (merchantId: string) => {
      const scope = { merchant: merchantId, environment: "test" } as const
      const topup = await tender.topupIntents.create(
        { destination_amount: "50000", destination_currency: "THB", source: { type: "test_funding" } },
        { ...scope, idempotencyKey: crypto.randomUUID() }
      )
      assert.strictEqual((await until(() => tender.topupIntents.retrieve(topup.id, scope), (t) => t.status !== "requires_payment")).status, "succeeded")
      const payout = await tender.payoutIntents.create({
        amount: "10000",
        currency: "THB",
        merchant_reference: `po-${crypto.randomUUID()}`,
        destination: { type: "bank_account", bank: "KBANK", account_number: "1234567890", account_name: "Somchai Jaidee" }
      }, scope)
      await tender.payoutIntents.approve(payout.id, scope)
      assert.strictEqual((await until(() => tender.payoutIntents.retrieve(payout.id, scope), (p) => p.status !== "processing")).status, "succeeded")
      const transactions = (await tender.balanceTransactions.list({ limit: 100 }, scope)).data
      const of = (source: string) => transactions.filter((t) => t.source === source).map((t) => t.provider_account)
      return { topup: of(topup.id), payout: of(payout.id) }
    }

    it(
      "D13 a merchant's route naming its own account takes its top-ups and sends its payouts through that account; without one, the deployment's",
      async () => {
        const own = await moneyOf("mch_own")
        assert.isNotEmpty(own.topup)
        assert.isNotEmpty(own.payout)
        assert.deepStrictEqual([...new Set([...own.topup, ...own.payout])], ["acct_money_own"], "the money moved through another account than the route's")
        const shared = await moneyOf("mch_shared")
        assert.deepStrictEqual([...new Set([...shared.topup, ...shared.payout])], [null], "a merchant without an account moved money through one")
      },
      60_000
    )
  })
}
