/**
 * 4.9.7 on real PostgreSQL behind a TCP proxy the test controls (the shared server itself is never
 * stopped): a create whose commit never reached the server answers 503, and its release meets the
 * database down too. The demo server then owes the store that release, which it tries again in
 * the background on a back-off of up to 2 s (docs/reliability.md, "Database outage"). A client
 * retrying with the same Idempotency-Key as soon as the database answers again reaches a fresh
 * handler: 201, not 409 `idempotency_conflict` for a request that already answered.
 */
import { assert, it } from "vitest"
import { create } from "./create.js"
import { freshPrefix } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"
import { demoBehindProxy, storedIntentIds } from "./proxy.js"

const prefix = freshPrefix()

describeOnPostgres("a same-key retry right after a 503 whose claim the database could not take back", () => {
  const demo = demoBehindProxy(prefix, { TENDER_DB_STATEMENT_TIMEOUT_MS: "1000", TENDER_RELEASE_RETRY_MS: "600000" })

  it("4.9.7 a 5xx releases the lock: the retry the moment the database is back is served (201), never 409 in flight", async () => {
    const before = await storedIntentIds(prefix)
    // The create's commit (the one statement inserting the intent) is held before it reaches the server, and
    // everything after it: the commit times out, then the release of the key's claim too.
    demo.proxy.holdAt(`INSERT INTO "${prefix}payment_intents"`)
    const failed = await create(demo.server.url, "retry-after-503")
    assert.strictEqual(failed.status, 503, JSON.stringify(failed))
    // The database is down (held connections reset, what they held dropped); the release waits on
    // its back-off (ten minutes here), owed by the process.
    demo.proxy.cut()
    demo.proxy.release()
    demo.proxy.restore()
    const retried = await create(demo.server.url, "retry-after-503")
    assert.strictEqual(retried.status, 201, JSON.stringify(retried))
    assert.isFalse(retried.replayed)
    const after = await storedIntentIds(prefix)
    assert.strictEqual(after.length, before.length + 1, "exactly one intent for the key")
    const replay = await create(demo.server.url, "retry-after-503")
    assert.deepInclude(replay, { status: 201, id: retried.id!, replayed: true })
  }, 60_000)
})
