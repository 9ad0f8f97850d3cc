/**
 * Health on real PostgreSQL (docs/observability.md, "Health"): the demo server through a TCP
 * proxy the test cuts and restores. Readiness answers 503 while the database is unreachable
 * and 200 again once it is back; liveness stays 200 throughout.
 */
import { assert, it } from "vitest"
import { freshPrefix } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"
import { demoBehindProxy } from "./proxy.js"

const prefix = freshPrefix()

const get = async (base: string, path: string) => {
  const res = await fetch(`${base}${path}`)
  return { status: res.status, body: await res.json() as { status: string; checks: Record<string, string> } }
}

describeOnPostgres("health: liveness and readiness on PostgreSQL", () => {
  const demo = demoBehindProxy(prefix)

  it(
    "health: GET /readyz is 200 with storage ok and workers running; 503 with storage unreachable while PostgreSQL is cut, 200 once restored; GET /healthz stays 200",
    async () => {
      const ready = await get(demo.server.url, "/readyz")
      assert.deepStrictEqual(ready, { status: 200, body: { status: "ok", checks: { storage: "ok", workers: "running" } } })
      demo.proxy.cut()
      // Readiness answers from a check at most a second old (docs/observability.md, "Health"): the
      // cut shows once the answer it had is older than that.
      let down = await get(demo.server.url, "/readyz")
      for (let i = 0; i < 50 && down.status === 200; i++) {
        await new Promise((ok) => setTimeout(ok, 100))
        down = await get(demo.server.url, "/readyz")
      }
      assert.strictEqual(down.status, 503)
      assert.strictEqual(down.body.status, "unavailable")
      assert.include(["unreachable", "timeout"], down.body.checks["storage"])
      assert.deepStrictEqual(await get(demo.server.url, "/healthz"), { status: 200, body: { status: "ok", checks: {} } })
      demo.proxy.restore()
      let again = await get(demo.server.url, "/readyz")
      for (let i = 0; i < 50 && again.status !== 200; i++) {
        await new Promise((ok) => setTimeout(ok, 100))
        again = await get(demo.server.url, "/readyz")
      }
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    },
    30_000
  )
})
