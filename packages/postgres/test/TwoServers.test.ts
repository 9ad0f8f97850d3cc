/**
 * The example server as real processes on one PostgreSQL database: the foundation flow
 * across two servers, two servers racing on one Idempotency-Key and on one
 * merchant_reference leaving exactly one intent, and one provider notification sent to both at
 * once acting once (D11).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Canonical } from "@tender/core"
import { basic, demoKey, promptpayFor, simulatorNotificationHeaders } from "@tender/repo-test-support"
import { Effect } from "effect"
import { afterAll, assert, beforeAll, it } from "vitest"
import { freshPrefix, runSql, url } from "./database.js"
import { start as startDemo, stopDemos } from "./demoServer.js"
import { describeOnPostgres } from "./onPostgres.js"

const auth = basic(demoKey)
const prefix = freshPrefix()

const start = () => startDemo({ DATABASE_URL: url, TENDER_TABLE_PREFIX: prefix })

const post = (base: string, body: unknown, key?: string) =>
  fetch(`${base}/payment_intents`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
    body: JSON.stringify(body)
  }).then(async (res) => ({ status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", body: await res.json() }))

const countRows = (where: { amount: string } | { reference: string }) =>
  runSql(Effect.gen(function*() {
    const sql = yield* SqlClient
    const table = sql(`${prefix}payment_intents`)
    const rows = "amount" in where
      ? yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ${table} WHERE amount = ${where.amount}`
      : yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ${table} WHERE merchant_reference = ${where.reference}`
    return Number(rows[0]?.n)
  }))

const body = (amount: string, extra: Record<string, unknown> = {}) => ({ ...promptpayFor(amount), ...extra })

describeOnPostgres("example server on PostgreSQL, two processes", () => {
  let a: { url: string; output: () => string }
  let b: { url: string; output: () => string }
  beforeAll(async () => {
    // Both start at once on an empty prefix: they migrate and seed the same tables concurrently.
    ;[a, b] = await Promise.all([start(), start()])
  }, 120_000)
  afterAll(() => stopDemos("SIGTERM", [prefix]))

  it("serves the foundation flow from PostgreSQL: created on one server, read and listed on the other", async () => {
    // The banner names the database the test runs on (DATABASE_URL or the default), never its password.
    const db = new URL(url)
    assert.include(a.output(), `PostgreSQL store at ${db.hostname}:${db.port || "5432"}${db.pathname}, table prefix ${prefix}`)
    const created = await post(a.url, body("150000", { merchant_reference: "flow-1" }), "flow-key-1")
    assert.strictEqual(created.status, 201)
    const got = await fetch(`${b.url}/payment_intents/${created.body.id}`, { headers: { authorization: auth } })
    assert.strictEqual(got.status, 200)
    const intent = await got.json()
    assert.strictEqual(intent.id, created.body.id)
    assert.deepStrictEqual(intent.next_action, created.body.next_action)
    const listed = await (await fetch(`${b.url}/payment_intents?merchant_reference=flow-1`, { headers: { authorization: auth } })).json()
    assert.deepStrictEqual(listed.data.map((i: { id: string }) => i.id), [created.body.id])
    // The key's stored response replays from the other server, byte for byte.
    const replay = await fetch(`${b.url}/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json", "idempotency-key": "flow-key-1" },
      body: JSON.stringify(body("150000", { merchant_reference: "flow-1" }))
    })
    assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(await replay.text(), JSON.stringify(created.body))
  })

  it("4.9.6 two servers racing on one Idempotency-Key create exactly one intent", async () => {
    const amount = "777001"
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => post(i % 2 === 0 ? a.url : b.url, body(amount), "race-key-1")))
    const fresh = results.filter((r) => r.status === 201 && !r.replayed)
    assert.strictEqual(fresh.length, 1, JSON.stringify(results.map((r) => [r.status, r.replayed])))
    for (const r of results) {
      if (r.status === 201) assert.strictEqual(r.body.id, fresh[0]!.body.id)
      else {
        assert.strictEqual(r.status, 409)
        assert.strictEqual(r.body.error.code, "idempotency_conflict")
      }
    }
    assert.strictEqual(await countRows({ amount }), 1)
  })

  it("4.9 merchant_reference 2: two servers racing on one merchant_reference with different keys create exactly one intent", async () => {
    const reference = "race-order-1"
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => post(i % 2 === 0 ? a.url : b.url, body("777002", { merchant_reference: reference }), `ref-key-${i}`))
    )
    const created = results.filter((r) => r.status === 201)
    assert.strictEqual(created.length, 1, JSON.stringify(results.map((r) => r.status)))
    for (const r of results) {
      if (r.status === 200) assert.strictEqual(r.body.id, created[0]!.body.id)
      else if (r.status !== 201) {
        assert.strictEqual(r.status, 409)
        assert.strictEqual(r.body.error.code, "idempotency_conflict")
      }
    }
    assert.strictEqual(await countRows({ reference }), 1)
  })

  it("D11 two processes on one PostgreSQL receiving the same provider notification at once act once", async () => {
    const created = await post(a.url, body("150000"))
    assert.strictEqual(created.status, 201)
    const id: string = created.body.id
    // The simulator's payment id is derived from ours (docs/test-environment.md, "Notifications").
    const event = JSON.stringify({
      id: `evt_two_${id}`,
      type: "payment.succeeded",
      livemode: false,
      data: { payment_intent: id, provider_payment_id: "sim_" + Canonical.sha256(id).slice(0, 24), amount: "150000", currency: "THB" }
    })
    const answers = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          fetch(`${i % 2 === 0 ? a.url : b.url}/provider_notifications/simulator`, {
            method: "POST",
            headers: simulatorNotificationHeaders(event),
            body: event
          })
            .then(async (res) => [res.status, await res.text()] as const)
      )
    )
    for (const answer of answers) assert.deepStrictEqual(answer, [200, `{"received":true}`])
    let status = ""
    for (let i = 0; i < 100 && status !== "succeeded"; i++) {
      if (i > 0) await new Promise((ok) => setTimeout(ok, 100))
      status = (await (await fetch(`${b.url}/payment_intents/${id}`, { headers: { authorization: auth } })).json()).status
    }
    assert.strictEqual(status, "succeeded")
    const counts = await runSql(Effect.gen(function*() {
      const sql = yield* SqlClient
      const notices = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql(`${prefix}provider_notifications`)} WHERE event_id = ${`evt_two_${id}`}`
      const events = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ${
        sql(`${prefix}events`)
      } WHERE resource_id = ${id} AND type = 'payment_intent.succeeded'`
      return [Number(notices[0]?.n), Number(events[0]?.n)]
    }))
    assert.deepStrictEqual(counts, [1, 1], "one stored notice, one payment_intent.succeeded")
  })
})
