/**
 * Refunds and cancel (D10) through the demo server as real processes, by HTTP alone: every
 * simulated refund outcome, cancel and a late payment on the in-memory store and on
 * PostgreSQL; concurrent refunds of one payment; and a server killed with SIGKILL while its
 * refunds are in flight, after which a new process settles every refund once.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { basic, demoKey, promptpayFor } from "@tender/repo-test-support"
import { Effect } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { runSql, skipReason } from "./database.js"
import { type DemoServer as Server, kill, onEachStore, orphanDueTasks, start, startToKill, stopDemos } from "./demoServer.js"

const auth = basic(demoKey)

afterAll(() => stopDemos())

const send = (server: Server, method: string, path: string, json?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: auth, ...(json !== undefined ? { "content-type": "application/json" } : {}) },
    ...(json !== undefined ? { body: JSON.stringify(json) } : {})
  }).then(async (res) => ({ status: res.status, body: await res.json() }))

const promptpay = promptpayFor

const create = async (server: Server, amount: string) => {
  const r = await send(server, "POST", "/payment_intents", promptpay(amount))
  assert.strictEqual(r.status, 201, JSON.stringify(r.body))
  return r.body.id as string
}

/** Poll `path` until `done` holds of its body, or the deadline passes; returns the last body. */
const until = async (server: Server, path: string, done: (body: any) => boolean, within = 30_000) => {
  const deadline = Date.now() + within
  let last = (await send(server, "GET", path)).body
  while (!done(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200))
    last = (await send(server, "GET", path)).body
  }
  return last
}

/** A payment the simulator paid. */
const paid = async (server: Server, amount = "150000") => {
  const id = await create(server, amount)
  assert.strictEqual((await send(server, "POST", `/payment_intents/${id}/confirm`)).status, 200)
  assert.strictEqual((await until(server, `/payment_intents/${id}`, (b) => b.status === "succeeded")).status, "succeeded")
  return id
}

const refund = (server: Server, body: Record<string, unknown>) => send(server, "POST", "/refunds", body)
const terminal = (b: { status: string }) => b.status === "succeeded" || b.status === "failed"

/** Every refund outcome, cancel and a late payment, by HTTP alone (D10, D9). */
const walkRefunds = async (server: Server) => {
  const id = await paid(server)
  const partial = await refund(server, { payment_intent: id, amount: "50000", reason: "requested_by_customer" })
  assert.strictEqual(partial.status, 201, JSON.stringify(partial.body))
  const failing = await refund(server, { payment_intent: id, amount: "40005" })
  assert.strictEqual(failing.status, 201, JSON.stringify(failing.body))
  const over = await refund(server, { payment_intent: id, amount: "100001" })
  assert.deepStrictEqual([over.status, over.body.error.code], [409, "amount_exceeds_refundable"])
  assert.strictEqual((await until(server, `/refunds/${partial.body.id}`, terminal)).status, "succeeded")
  const failed = await until(server, `/refunds/${failing.body.id}`, terminal)
  assert.deepStrictEqual([failed.status, failed.failure_code], ["failed", "refund_failed"])
  // The failed refund's amount is refundable again: the rest of the payment is.
  const rest = await refund(server, { payment_intent: id })
  assert.strictEqual(rest.body.amount, "100000")
  await until(server, `/refunds/${rest.body.id}`, terminal)
  assert.strictEqual((await send(server, "GET", `/payment_intents/${id}`)).body.amount_refunded, "150000")
  const listed = await send(server, "GET", `/refunds?payment_intent=${id}&status=succeeded`)
  assert.sameMembers(listed.body.data.map((r: { id: string }) => r.id), [partial.body.id, rest.body.id])

  const canceled = await send(server, "POST", `/payment_intents/${await create(server, "150000")}/cancel`, { cancellation_reason: "abandoned" })
  assert.deepStrictEqual([canceled.status, canceled.body.status, canceled.body.cancellation_reason], [200, "canceled", "abandoned"])
  // Paid as the cancel reached the provider (D9 magic amount): refunded as a late payment.
  const late = await create(server, "40901")
  assert.strictEqual((await send(server, "POST", `/payment_intents/${late}/cancel`)).body.status, "canceled")
  const lateRefunds = await until(server, `/refunds?payment_intent=${late}`, (b) => b.data.length === 1 && terminal(b.data[0]))
  assert.deepStrictEqual(
    lateRefunds.data.map((r: any) => [r.reason, r.amount, r.status]),
    [["late_payment", "40901", "succeeded"]]
  )
  const after = (await send(server, "GET", `/payment_intents/${late}`)).body
  assert.deepStrictEqual([after.status, after.amount_refunded], ["canceled", "40901"])
}

/** D10 concurrency by HTTP: 16 refunds of 10,000 race on a payment of 150,000. */
const race = async (server: Server) => {
  const id = await paid(server)
  const answers = await Promise.all(Array.from({ length: 16 }, () => refund(server, { payment_intent: id, amount: "10000" })))
  const statuses = answers.map((a) => a.status)
  assert.strictEqual(statuses.filter((s) => s === 201).length, 15, JSON.stringify(answers.map((a) => a.body)))
  assert.isTrue(answers.filter((a) => a.status !== 201).every((a) => a.body.error.code === "amount_exceeds_refundable"))
  const settled = await until(server, `/payment_intents/${id}`, (b) => b.amount_refunded === "150000")
  assert.strictEqual(settled.amount_refunded, "150000")
}

describe("refunds and cancel through the demo server (D10)", () => {
  onEachStore({
    memory:
      "D10 on the in-memory store, refunds succeed, fail and pass no payment's amount, cancel answers canceled, and a late payment is refunded, by HTTP alone",
    postgres:
      "D10 on PostgreSQL, refunds succeed, fail and pass no payment's amount under 16 concurrent requests, cancel answers canceled, and a late payment is refunded"
  }, async (server) => {
    await walkRefunds(server)
    await race(server)
  }, 90_000)

  // On PostgreSQL only: where it cannot run, onEachStore's skip says why.
  if (skipReason === undefined) {
    it(
      "D10 a server killed with SIGKILL while refunds are in flight loses none and refunds none twice: after a restart each refund settles once and amount_refunded is their sum",
      async () => {
        // The simulator's own 5 s slow delay: the slow refunds must still be polling at the kill.
        const { env, prefix, server: first } = await startToKill()
        const ids = await Promise.all(Array.from({ length: 8 }, () => paid(first)))
        // Per payment a slow refund (still polling at the kill) and a plain one (its send task running).
        const created = await Promise.all(ids.flatMap((id) => [
          refund(first, { payment_intent: id, amount: "20203" }),
          refund(first, { payment_intent: id, amount: "50000" })
        ]))
        assert.isTrue(created.every((r) => r.status === 201), JSON.stringify(created.map((r) => r.body)))
        await kill(first)
        await orphanDueTasks(prefix)

        const second = await start(env)
        for (const r of created) {
          const settled = await until(second, `/refunds/${r.body.id}`, terminal, 40_000)
          assert.strictEqual(settled.status, "succeeded", `${r.body.id}\n${second.output()}`)
        }
        for (const id of ids) {
          const intent = (await send(second, "GET", `/payment_intents/${id}`)).body
          assert.strictEqual(intent.amount_refunded, String(20203 + 50000), id)
        }
        const rows = await runSql(Effect.gen(function*() {
          const sql = yield* SqlClient
          const events = yield* sql<{ resource_id: string; type: string; n: string }>`SELECT resource_id, type, count(*)::text AS n
          FROM ${sql(`${prefix}events`)} WHERE resource_type = 'refund' GROUP BY resource_id, type`
          const pending = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql(`${prefix}tasks`)}
          WHERE status <> 'done' AND kind = 'refund.send'`
          const counters = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql(`${prefix}payment_intents`)}
          WHERE refunds_pending <> 0`
          return { events, pending: Number(pending[0]?.n), counters: Number(counters[0]?.n) }
        }))
        for (const r of created) {
          const mine = rows.events.filter((e) => e.resource_id === r.body.id)
          assert.deepStrictEqual(mine.map((e) => [e.type, e.n]).sort(), [["refund.created", "1"], ["refund.succeeded", "1"]], r.body.id)
        }
        assert.strictEqual(rows.pending, 0)
        assert.strictEqual(rows.counters, 0)
      },
      150_000
    )
  }
})
