/**
 * The standing outage check (docs/reliability.md "Database outage"): the demo
 * server on real PostgreSQL through a TCP proxy that the test cuts and restores (the shared
 * server itself is never stopped). During the outage creates answer 503 `service_unavailable`
 * with `Retry-After`; after it, normal service; every 201 is stored; no Idempotency-Key stays
 * claimed beyond Idempotency.lockMillis.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Idempotency } from "@tender/core"
import { Effect } from "effect"
import { assert, it } from "vitest"
import { create, type Outcome } from "./create.js"
import { freshPrefix, runSql } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"
import { demoBehindProxy, storedIntentIds } from "./proxy.js"

const prefix = freshPrefix()

const storedIds = async () => new Set(await storedIntentIds(prefix))

describeOnPostgres("a database outage under the demo server", () => {
  const demo = demoBehindProxy(prefix)

  it("D1 during an outage creates answer 503 service_unavailable with Retry-After; after it, normal; nothing 201'd is lost; no key stays claimed", async () => {
    const created: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const r = await create(demo.server.url, `before-${i}`)
      assert.strictEqual(r.status, 201, JSON.stringify(r))
      created.push(r.id!)
    }

    // A steady load across the cut and the restore: every answer is a 201 or a 503, none hangs.
    let running = true
    const load = Promise.all(Array.from({ length: 4 }, async (_, w) => {
      const outcomes: Array<Outcome> = []
      for (let i = 0; running; i++) outcomes.push(await create(demo.server.url, `load-${w}-${i}`, String(1000 + i)))
      return outcomes
    }))
    await new Promise((r) => setTimeout(r, 300))
    demo.proxy.cut()

    // During the outage: 503 service_unavailable with Retry-After, for every key.
    const during: Array<Outcome> = []
    for (let i = 0; i < 10; i++) during.push(await create(demo.server.url, `during-${i}`))
    for (const r of during) {
      assert.strictEqual(r.status, 503, JSON.stringify(r))
      assert.strictEqual(r.code, "service_unavailable")
      assert.match(r.retryAfter ?? "", /^\d+$/)
    }

    demo.proxy.restore()
    // After: the same keys run (none was left claimed or stored with the 503), and then replay.
    let first: Outcome | undefined
    const deadline = Date.now() + 20_000
    do first = await create(demo.server.url, "during-0")
    while (first.status === 503 && Date.now() < deadline)
    assert.strictEqual(first.status, 201, JSON.stringify(first))
    created.push(first.id!)
    for (let i = 1; i < 10; i++) {
      const r = await create(demo.server.url, `during-${i}`)
      assert.strictEqual(r.status, 201, JSON.stringify(r))
      assert.isFalse(r.replayed)
      created.push(r.id!)
    }
    const replay = await create(demo.server.url, "during-3")
    assert.isTrue(replay.replayed)
    assert.strictEqual(replay.id, created[created.length - 7])

    await new Promise((r) => setTimeout(r, 500))
    running = false
    const loaded = (await load).flat()
    for (const r of loaded) assert.include([201, 503], r.status, JSON.stringify(r))
    assert.isAbove(loaded.filter((r) => r.status === 503).length, 0)
    created.push(...loaded.filter((r) => r.status === 201).map((r) => r.id!))

    // Nothing 201'd is lost: every id answered 201 is in the table, read directly, not through the proxy.
    const stored = await storedIds()
    for (const id of created) assert.isTrue(stored.has(id), `201'd ${id} is not stored`)

    // No key is left claimed beyond its documented lock: every key without a stored answer is
    // locked at most Idempotency.lockMillis from now (a claim the outage cut off lapses by then).
    const claimed = await runSql(Effect.gen(function*() {
      const sql = yield* SqlClient
      return yield* sql<{ key: string; ahead: number }>`SELECT key, EXTRACT(EPOCH FROM (locked_until - now())) * 1000 AS ahead
        FROM ${sql(`${prefix}idempotency_keys`)} WHERE response_status IS NULL`
    }))
    for (const row of claimed) assert.isAtMost(Number(row.ahead), Idempotency.lockMillis, row.key)
  })
})
