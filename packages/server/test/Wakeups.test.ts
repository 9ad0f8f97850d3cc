/**
 * Task wake-ups on PostgreSQL (docs/payment-lifecycle.md, "Workers"): work written through one
 * Tender runs in the workers of another on the same tables, each on its own connections. The two
 * Tenders stand for two processes of one host. The poll asked for is an hour, but the workers cap it
 * at `Task.wakeHorizonMillis` (5 s) and `until` waits longer than that, so this shows the work
 * crosses processes, not that NOTIFY woke it: packages/postgres/test/Wakeups.test.ts proves the
 * wake path with the clock stopped (docs/postgres.md, "Task wake-ups").
 */
import { customer, promptpay, until } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { afterAll, assert, describe, it } from "vitest"
import { createTender, type TenderInstance } from "../src/index.js"
import { seedPath as merchants } from "./fixtures.js"

const { pool, fresh } = prefixedPool(6)
const options = { publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret-123", merchants, logger: { info() {}, warn() {}, error() {} } }
const demo = { merchant: "mch_demo", environment: "test" } as const
const started: Array<TenderInstance> = []
afterAll(async () => {
  for (const t of started) await t.close()
})

describe("task wake-ups on PostgreSQL", () => {
  it("with a poll of an hour asked for, a confirm, a refund and a payout written through one Tender run in another's workers on the same tables", async () => {
    const tablePrefix = fresh()
    const writer = await createTender({ ...options, storage: { postgres: pool, tablePrefix }, workers: false })
    started.push(writer)
    const worker = await createTender({ ...options, storage: { postgres: pool, tablePrefix }, workers: { pollMillis: 3_600_000 } })
    started.push(worker)
    const paid = await writer.paymentIntents.create(promptpay, demo)
    await writer.paymentIntents.confirm(paid.id, demo)
    assert.strictEqual((await until(() => writer.paymentIntents.retrieve(paid.id, demo), (p) => p.status === "succeeded")).status, "succeeded")
    const refund = await writer.refunds.create({ payment_intent: paid.id, amount: "100" }, demo)
    assert.strictEqual((await until(() => writer.refunds.retrieve(refund.id, demo), (r) => r.status !== "pending")).status, "succeeded")
    const payout = await writer.payoutIntents.create({
      amount: "10000",
      currency: "THB",
      merchant_reference: `po-${crypto.randomUUID()}`,
      destination: { type: "bank_account", bank: "KBANK", account_number: "1234567890", account_name: customer.name }
    }, demo)
    await writer.payoutIntents.approve(payout.id, demo)
    assert.strictEqual((await until(() => writer.payoutIntents.retrieve(payout.id, demo), (p) => p.status !== "processing")).status, "succeeded")
  })
})
