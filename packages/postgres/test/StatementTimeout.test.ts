/**
 * The statement timeout (docs/postgres.md "Statement timeout", docs/reliability.md):
 * the demo server on real PostgreSQL through a TCP proxy that freezes the commit of a create,
 * either before it reaches the server or after the server ran it (its answer held). The
 * request answers 503 `service_unavailable` with Retry-After instead of waiting for ever; after
 * the freeze, a retry with the same Idempotency-Key replays or runs once: exactly one intent.
 */
import { assert, it } from "vitest"
import { create, type Outcome } from "./create.js"
import { freshPrefix } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"
import { demoBehindProxy, storedIntentIds } from "./proxy.js"

const prefix = freshPrefix()
/** The statement timeout the server runs with here, short so the test is quick. */
const timeoutMillis = 1000

/** The same create again until it is answered for good: a 503 or a 409 in flight is transient (4.9.7). */
const retry = async (base: string, key: string): Promise<Outcome> => {
  const deadline = Date.now() + 90_000
  let r: Outcome
  do r = await create(base, key)
  while ((r.status === 503 || r.status === 409) && Date.now() < deadline && (await new Promise((ok) => setTimeout(ok, 200)), true))
  return r
}

/** The intents stored, read directly (not through the proxy). */
const storedIds = () => storedIntentIds(prefix)

describeOnPostgres("a database frozen mid-query under the demo server", () => {
  const demo = demoBehindProxy(prefix, { TENDER_DB_STATEMENT_TIMEOUT_MS: String(timeoutMillis) })
  // The commit of a create is the one statement that inserts the intent.
  const commitText = `INSERT INTO "${prefix}payment_intents"`

  it("D1 a commit frozen before it reaches the server: 503 service_unavailable with Retry-After; the retry with the same key runs once", async () => {
    const before = await storedIds()
    demo.proxy.holdAt(commitText)
    const frozen = await create(demo.server.url, "frozen-before-commit")
    assert.strictEqual(frozen.status, 503, JSON.stringify(frozen))
    assert.strictEqual(frozen.code, "service_unavailable")
    assert.match(frozen.retryAfter ?? "", /^\d+$/)
    // Unfrozen: the held commit now reaches the server, landing or aborted by its claim's fence.
    demo.proxy.release()
    const again = await retry(demo.server.url, "frozen-before-commit")
    assert.strictEqual(again.status, 201, JSON.stringify(again))
    const after = await storedIds()
    assert.strictEqual(after.length, before.length + 1, "exactly one intent for the key")
    assert.include(after, again.id)
    // And the key answers that intent from now on.
    const replay = await create(demo.server.url, "frozen-before-commit")
    assert.deepInclude(replay, { status: 201, id: again.id!, replayed: true })
  })

  it("D1 a commit the server applied while its answer was frozen: 503; the retry with the same key replays it, never a second intent", async () => {
    const before = await storedIds()
    demo.proxy.holdAt(commitText, { deliver: true })
    const frozen = await create(demo.server.url, "frozen-after-commit")
    assert.strictEqual(frozen.status, 503, JSON.stringify(frozen))
    assert.strictEqual(frozen.code, "service_unavailable")
    assert.match(frozen.retryAfter ?? "", /^\d+$/)
    // The commit landed although its client heard nothing.
    const landed = (await storedIds()).filter((id) => !before.includes(id))
    assert.lengthOf(landed, 1)
    demo.proxy.release()
    const again = await retry(demo.server.url, "frozen-after-commit")
    assert.deepInclude(again, { status: 201, id: landed[0]!, replayed: true })
    assert.strictEqual((await storedIds()).length, before.length + 1, "exactly one intent for the key")
    // A new key is served as usual.
    assert.strictEqual((await create(demo.server.url, "after-the-freeze")).status, 201)
  })
})
