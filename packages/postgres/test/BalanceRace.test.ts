/**
 * D12 across processes: two demo servers (real processes) on one PostgreSQL database creating
 * payouts on one balance at once, and payment successes racing payouts. The balance never goes
 * below zero, exactly as many payouts succeed as it covers, and a lost race is answered as a
 * retry would be (a payout or a 422 balance_insufficient), never a 5xx.
 */
import { basic, demoKey, fundBalance, payout, promptpayFor, until } from "@tender/repo-test-support"
import { afterAll, assert, beforeAll, it } from "vitest"
import { freshTables, start, stopDemos } from "./demoServer.js"
import { describeOnPostgres } from "./onPostgres.js"

const auth = basic(demoKey)

const send = (base: string, method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }).then(async (res) => ({ status: res.status, body: await res.json() as any }))

const available = async (base: string) => {
  const balance = await send(base, "GET", "/balance")
  assert.strictEqual(balance.status, 200)
  return BigInt(balance.body.available.find((a: { currency: string }) => a.currency === "THB")?.amount ?? "0")
}

describeOnPostgres("D12 balances across two processes on PostgreSQL", () => {
  let a: { url: string }
  let b: { url: string }
  beforeAll(async () => {
    const tables = freshTables()
    ;[a, b] = await Promise.all([start(tables), start(tables)])
  }, 120_000)
  afterAll(() => stopDemos("SIGKILL"))

  it(
    "D12 many concurrent payouts on one balance from two processes: exactly as many succeed as the balance covers, the rest 422 balance_insufficient",
    async () => {
      await fundBalance(a.url, demoKey, "200000")
      const start = await available(b.url)
      assert.isTrue(start >= 200000n)
      const covered = Number(start / 10000n)
      const answers = await Promise.all(
        Array.from({ length: covered + 16 }, (_, i) => send(i % 2 === 0 ? a.url : b.url, "POST", "/payout_intents", payout(`race-${i}-${crypto.randomUUID()}`)))
      )
      assert.deepStrictEqual(answers.filter((r) => r.status !== 201 && r.status !== 422).map((r) => [r.status, r.body]), [])
      assert.strictEqual(answers.filter((r) => r.status === 201).length, covered)
      assert.isTrue(answers.filter((r) => r.status === 422).every((r) => r.body.error.code === "balance_insufficient"))
      assert.strictEqual(await available(a.url), start - BigInt(covered) * 10000n)
    },
    120_000
  )

  it(
    "D12 payment successes racing payouts on two processes never take the available balance below zero; every payment and payout has its transaction",
    async () => {
      const before = await available(a.url)
      const payments = Promise.all(Array.from({ length: 6 }, async () => {
        const created = await send(a.url, "POST", "/payment_intents", promptpayFor("20000"))
        assert.strictEqual(created.status, 201)
        await send(a.url, "POST", `/payment_intents/${created.body.id}/confirm`, {})
        return created.body.id as string
      }))
      const payouts: Array<{ status: number; body: any }> = []
      for (let round = 0; round < 8; round++) {
        const answers = await Promise.all(
          Array.from(
            { length: 3 },
            (_, i) => send(i % 2 === 0 ? b.url : a.url, "POST", "/payout_intents", payout(`mixed-${round}-${i}-${crypto.randomUUID()}`))
          )
        )
        payouts.push(...answers)
        assert.isTrue((await available(b.url)) >= 0n)
      }
      const ids = await payments
      for (const id of ids) {
        await until(() => send(b.url, "GET", `/payment_intents/${id}`), (r) => r.body.status === "succeeded")
      }
      assert.deepStrictEqual(payouts.filter((r) => r.status !== 201 && r.status !== 422).map((r) => [r.status, r.body]), [])
      const made = payouts.filter((r) => r.status === 201).length
      const after = await available(a.url)
      assert.isTrue(after >= 0n)
      assert.strictEqual(after, before + 6n * 20000n - BigInt(made) * 10000n)
      for (const id of ids) {
        const txns = await send(b.url, "GET", `/balance_transactions?source=${id}`)
        assert.deepStrictEqual(txns.body.data.map((t: { type: string }) => t.type), ["payment"])
      }
    },
    120_000
  )
})
