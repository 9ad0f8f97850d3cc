/**
 * The payment lifecycle through the demo server as real processes, by HTTP alone: every
 * simulated outcome on the in-memory store and on PostgreSQL, and a server killed with
 * SIGKILL while its tasks are claimed and its confirms in flight, after which a new process
 * completes every task with no intent changed twice and no event missing or doubled.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { basic, closeServers, demoKey, formWith, png, promptpayFor } from "@tender/repo-test-support"
import { Effect } from "effect"
import { createServer as createHttpServer } from "node:http"
import { afterAll, assert, describe, it } from "vitest"
import { runSql, skipReason } from "./database.js"
import { type DemoServer as Server, freshTables, kill, onEachStore, orphanDueTasks, start, startToKill, stopDemos } from "./demoServer.js"

const auth = basic(demoKey)

afterAll(async () => {
  closeServers(receivers)
  await stopDemos()
})

const send = (server: Server, method: string, path: string, init: { json?: unknown; form?: FormData; key?: string } = {}) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: auth,
      ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
      ...(init.key !== undefined ? { "idempotency-key": init.key } : {})
    },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : init.form !== undefined ? { body: init.form } : {})
  }).then(async (res) => ({ status: res.status, body: await res.json() }))

const promptpay = promptpayFor
const bankTransfer = (amount: string) => ({
  ...promptpay(amount),
  payment_method: "th_bank_transfer",
  payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" }
})

/** A receipt as the payer uploads one. */
const receipt = () => formWith(png(256))

const create = async (server: Server, body: unknown) => {
  const r = await send(server, "POST", "/payment_intents", { json: body, key: crypto.randomUUID() })
  assert.strictEqual(r.status, 201, JSON.stringify(r.body))
  return r.body.id as string
}

/**
 * A webhook receiver on loopback that records every delivery and answers 200 after `delayMillis`,
 * which a test may change as it goes (slow answers only while it wants deliveries in flight).
 */
const receiver = async (delayMillis = 0) => {
  const received: Array<{ id: string; type: string; object: string }> = []
  const server = createHttpServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const event = JSON.parse(body)
      received.push({ id: String(req.headers["webhook-id"]), type: event.type, object: event.data.object.id })
      setTimeout(() => res.end("ok"), hook.delayMillis)
    })
  })
  const hook = { url: "", received, delayMillis }
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  receivers.push(server)
  const address = server.address()
  hook.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`
  return hook
}
const receivers: Array<ReturnType<typeof createHttpServer>> = []

const waitFor = async (condition: () => boolean, within: number) => {
  const deadline = Date.now() + within
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  return condition()
}

/** Poll until every intent is terminal, or the deadline passes; returns each one's last state. */
const settle = async (server: Server, ids: ReadonlyArray<string>, within = 25_000) => {
  const deadline = Date.now() + within
  let last: Array<{ id: string; status: string; failure_code: string | null; receipt: { status: string } | null }> = []
  while (Date.now() < deadline) {
    last = await Promise.all(ids.map((id) => send(server, "GET", `/payment_intents/${id}`).then((r) => r.body)))
    if (last.every((i) => ["succeeded", "failed", "expired"].includes(i.status))) return last
    await new Promise((r) => setTimeout(r, 250))
  }
  return last
}

/** Every simulated outcome by HTTP alone, on the server's store (D9, 4.4, 4.5). */
const walkEveryOutcome = async (server: Server) => {
  const success = await create(server, promptpay("150000"))
  const declined = await create(server, promptpay("40002"))
  const slow = await create(server, promptpay("20201"))
  const expiring = await create(server, promptpay("40801"))
  const accepted = await create(server, bankTransfer("150000"))
  const rejected = await create(server, bankTransfer("40003"))
  // The expiring one first: its action must still be open when it is confirmed.
  for (const id of [expiring, success, declined, slow]) {
    const r = await send(server, "POST", `/payment_intents/${id}/confirm`)
    assert.strictEqual(r.status, 200, JSON.stringify(r.body))
  }
  const asset = await send(server, "POST", "/assets", { form: receipt(), key: crypto.randomUUID() })
  assert.strictEqual(asset.status, 201, JSON.stringify(asset.body))
  const byAsset = await send(server, "POST", `/payment_intents/${accepted}/receipt`, { json: { asset_id: asset.body.id } })
  assert.strictEqual(byAsset.status, 200, JSON.stringify(byAsset.body))
  assert.deepStrictEqual(byAsset.body.receipt, { status: "submitted", asset_id: asset.body.id })
  const byFile = await send(server, "POST", `/payment_intents/${rejected}/receipt`, { form: receipt(), key: crypto.randomUUID() })
  assert.strictEqual(byFile.status, 200, JSON.stringify(byFile.body))
  const [s, d, sl, e, a, r] = await settle(server, [success, declined, slow, expiring, accepted, rejected])
  assert.strictEqual(s?.status, "succeeded")
  assert.strictEqual(d?.status, "failed")
  assert.strictEqual(d?.failure_code, "payment_declined")
  assert.strictEqual(sl?.status, "succeeded")
  assert.strictEqual(e?.status, "expired")
  assert.strictEqual(a?.status, "succeeded")
  assert.strictEqual(a?.receipt?.status, "accepted")
  assert.strictEqual(r?.status, "failed")
  assert.strictEqual(r?.failure_code, "receipt_rejected")
}

describe("the payment lifecycle through the demo server (D9, 4.4, 4.5)", () => {
  onEachStore(
    {
      memory: "D9 on the in-memory store, a test payment reaches succeeded, failed and expired by HTTP alone, receipts included",
      postgres: "D9 on PostgreSQL, a test payment reaches succeeded, failed and expired by HTTP alone, receipts included"
    },
    walkEveryOutcome,
    60_000
  )

  // On PostgreSQL only: where it cannot run, onEachStore's skip says why.
  if (skipReason === undefined) {
    it(
      "D7 D12 a server killed with SIGKILL while tasks are claimed and confirms in flight loses no task: after a restart every intent is terminal once, every change has exactly one event and every payment exactly one balance transaction",
      async () => {
        // The simulator's own 5 s slow delay: the slow confirmations must still be polling at the kill.
        const { env, prefix, server: first } = await startToKill()
        // Slow confirmations keep tasks polling; plain ones are confirmed while the kill lands.
        const ids = await Promise.all([
          ...Array.from({ length: 12 }, () => create(first, promptpay("20201"))),
          ...Array.from({ length: 12 }, () => create(first, promptpay("150000")))
        ])
        const confirms = ids.map((id) => send(first, "POST", `/payment_intents/${id}/confirm`).then((r) => r.status === 200, () => false))
        await new Promise((r) => setTimeout(r, 30))
        const killed = kill(first)
        const answered = await Promise.all(confirms)
        await killed
        const orphaned = await orphanDueTasks(prefix)

        const second = await start(env)
        // A client retries the confirms the kill cut off; the ones answered 200 were recorded and are not sent again.
        const retried = ids.filter((_, i) => !answered[i])
        for (const id of retried) {
          const r = await send(second, "POST", `/payment_intents/${id}/confirm`)
          assert.strictEqual(r.status, 200, JSON.stringify(r.body))
        }
        const states = await settle(second, ids, 40_000)
        assert.deepStrictEqual(states.map((s) => s.status), ids.map(() => "succeeded"), `${orphaned} orphaned, ${retried.length} retried\n${second.output()}`)

        const rows = await runSql(Effect.gen(function*() {
          const sql = yield* SqlClient
          const events = yield* sql<{ resource_id: string; type: string; n: string }>`SELECT resource_id, type, count(*)::text AS n
          FROM ${sql(`${prefix}events`)} GROUP BY resource_id, type`
          const transactions = yield* sql<{ source: string; type: string; amount: string }>`SELECT source, type, amount::text AS amount
          FROM ${sql(`${prefix}balance_transactions`)}`
          return { events, transactions }
        }))
        // D12: the kill left no state change without its transaction, and none twice.
        for (const id of ids) {
          const mine = rows.transactions.filter((t) => t.source === id)
          assert.deepStrictEqual(mine.map((t) => t.type), ["payment"], id)
        }
        assert.strictEqual(rows.transactions.length, ids.length)
        for (const id of ids) {
          const mine = rows.events.filter((e) => e.resource_id === id)
          const count = (type: string) => Number(mine.find((e) => e.type === type)?.n ?? "0")
          assert.strictEqual(count("payment_intent.created"), 1, id)
          assert.strictEqual(count("payment_intent.requires_action"), 1, id)
          assert.strictEqual(count("payment_intent.succeeded"), 1, id)
          assert.isAtMost(count("payment_intent.processing"), 1, id)
          assert.isTrue(mine.every((e) => Number(e.n) === 1), `${id} has a doubled event: ${JSON.stringify(mine)}`)
        }
        // Every task that was due runs to completion. Not necessarily by the time every intent is
        // terminal: a confirm whose answer the kill cut off may have been recorded and retried, and
        // its second task finishes on its next turn, once it finds the intent terminal.
        // Expiry timers are due 15 minutes after create: those may still wait; nothing else may.
        const unfinished = () =>
          runSql(Effect.flatMap(SqlClient, (sql) =>
            sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql(`${prefix}tasks`)}
            WHERE status <> 'done' AND kind <> 'payment_intent.expire'`)).then((r) => Number(r[0]?.n))
        let pending = await unfinished()
        for (const deadline = Date.now() + 30_000; pending > 0 && Date.now() < deadline; pending = await unfinished()) {
          await new Promise((r) => setTimeout(r, 100))
        }
        assert.strictEqual(pending, 0)
      },
      120_000
    )

    it("D7 a server killed with SIGKILL between the state change and the delivery still delivers every event after a restart", async () => {
      const { env, server: first } = await startToKill()
      // Slow answers keep deliveries in flight when the kill lands.
      const hook = await receiver(500)
      const registered = await send(first, "POST", "/webhook_endpoints", { json: { url: hook.url, enabled_events: ["payment_intent.created"] } })
      assert.strictEqual(registered.status, 201, JSON.stringify(registered.body))
      const ids = await Promise.all(Array.from({ length: 20 }, () => create(first, promptpay("150000"))))
      await kill(first)
      // The deliveries the kill cut off were in flight; the new process's need not be slow.
      hook.delayMillis = 0
      const second = await start(env)
      const all = await waitFor(() => ids.every((id) => hook.received.some((r) => r.object === id)), 30_000)
      assert.isTrue(all, `${ids.filter((id) => !hook.received.some((r) => r.object === id)).length} of ${ids.length} never delivered\n${second.output()}`)
      // At least once: a delivery in flight at the kill may arrive twice, never a different event under one id.
      const byId = new Map<string, Set<string>>()
      for (const r of hook.received) byId.set(r.id, (byId.get(r.id) ?? new Set()).add(r.object))
      assert.isTrue([...byId.values()].every((objects) => objects.size === 1))
    }, 90_000)

    it("D7 two servers on one database deliver each event once per endpoint", async () => {
      const env = freshTables()
      const hook = await receiver()
      // Both at once: their migrations take turns on the database's lock.
      const [a, b] = await Promise.all([start(env), start(env)])
      const registered = await send(a, "POST", "/webhook_endpoints", { json: { url: hook.url } })
      assert.strictEqual(registered.status, 201)
      const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => create(i % 2 === 0 ? a : b, promptpay("150000"))))
      // created and requires_action for each intent.
      assert.isTrue(await waitFor(() => hook.received.length >= ids.length * 2, 30_000), `${hook.received.length} delivered`)
      await new Promise((r) => setTimeout(r, 1_000))
      const counts = new Map<string, number>()
      for (const r of hook.received) counts.set(r.id, (counts.get(r.id) ?? 0) + 1)
      assert.strictEqual(counts.size, ids.length * 2)
      assert.deepStrictEqual([...counts.values()].filter((n) => n > 1), [], "an event was delivered twice without a crash")
    }, 90_000)
  }
})

/** Every simulated top-up outcome by HTTP alone (2.5, 3.2): paid, declined, expired, receipt accepted and rejected. */
const walkEveryTopup = async (server: Server) => {
  const topup = async (body: unknown) => {
    const r = await send(server, "POST", "/topup_intents", { json: body, key: crypto.randomUUID() })
    assert.strictEqual(r.status, 201, JSON.stringify(r.body))
    return r.body as { id: string; destination: { amount: string } }
  }
  const funding = await topup({ destination_amount: "50000", destination_currency: "THB", source: { type: "test_funding" } })
  const crypto_ = await topup({ destination_amount: "362500", destination_currency: "THB", source: { type: "provider_gateway", currency: "USDT" } })
  const declined = await topup({ destination_amount: "40002", destination_currency: "THB", source: { type: "provider_gateway" } })
  const expiring = await topup({ destination_amount: "40801", destination_currency: "THB", source: { type: "provider_gateway" } })
  const accepted = await topup({ destination_amount: "200000", destination_currency: "USDT", source: { type: "manual_receipt" } })
  const rejected = await topup({ destination_amount: "40003", destination_currency: "THB", source: { type: "manual_receipt" } })
  for (const t of [accepted, rejected]) {
    const asset = await send(server, "POST", "/assets", { form: receipt(), key: crypto.randomUUID() })
    assert.strictEqual(asset.status, 201, JSON.stringify(asset.body))
    const r = await send(server, "POST", `/topup_intents/${t.id}/receipt`, { json: { asset_id: asset.body.id } })
    assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    assert.strictEqual(r.body.status, "processing")
  }
  const ids = [funding, crypto_, declined, expiring, accepted, rejected].map((t) => t.id)
  const deadline = Date.now() + 25_000
  let last: Array<{ status: string; failure_code: string | null; destination: { amount: string; credited_amount: string } }> = []
  while (Date.now() < deadline) {
    last = await Promise.all(ids.map((id) => send(server, "GET", `/topup_intents/${id}`).then((r) => r.body)))
    if (last.every((t) => ["succeeded", "failed", "expired"].includes(t.status))) break
    await new Promise((r) => setTimeout(r, 250))
  }
  assert.deepStrictEqual(last.map((t) => t.status), ["succeeded", "succeeded", "failed", "expired", "succeeded", "failed"])
  assert.deepStrictEqual(last.map((t) => t.failure_code), [null, null, "payment_declined", null, null, "receipt_rejected"])
  // 2.5: a paid top-up credits exactly its destination amount; any other credits nothing.
  assert.deepStrictEqual(
    last.map((t) => t.destination.credited_amount),
    last.map((t) => (t.status === "succeeded" ? t.destination.amount : "0"))
  )
  const listed = await send(server, "GET", "/topup_intents?source_type=manual_receipt,provider_gateway&status=succeeded,failed&limit=100")
  assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
  assert.sameMembers(listed.body.data.map((t: { id: string }) => t.id), [crypto_.id, declined.id, accepted.id, rejected.id])
}

describe("top-up intents through the demo server (2.5, 3.2, 4.7, 4.8)", () => {
  onEachStore(
    {
      memory: "3.2 on the in-memory store, test top-ups reach succeeded, failed and expired by HTTP alone, receipts included",
      postgres: "3.2 on PostgreSQL, test top-ups reach succeeded, failed and expired by HTTP alone, receipts included"
    },
    walkEveryTopup,
    60_000
  )
})
