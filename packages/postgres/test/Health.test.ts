/**
 * Health on real PostgreSQL (docs/observability.md, "Health"): the demo server through a TCP
 * proxy the test cuts and restores. Readiness answers 503 while the database is unreachable
 * and 200 again once it is back; liveness stays 200 throughout.
 */
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"
import { children, type DemoServer, start } from "./demoServer.js"
import { makeProxy, type Proxy } from "./proxy.js"

const prefix = freshPrefix()

const get = async (base: string, path: string) => {
  const res = await fetch(`${base}${path}`)
  return { status: res.status, body: await res.json() as { status: string; checks: Record<string, string> } }
}

if (skipReason !== undefined) {
  describe("health on PostgreSQL", () => it.skip(`skipped: ${skipReason}`, () => {}))
} else {
  describe("health: liveness and readiness on PostgreSQL", () => {
    let proxy: Proxy
    let server: DemoServer
    beforeAll(async () => {
      proxy = await makeProxy(url)
      server = await start({ DATABASE_URL: proxy.url, TENDER_TABLE_PREFIX: prefix })
    }, 60_000)
    afterAll(async () => {
      for (const child of children) child.kill("SIGKILL")
      await proxy.close()
      await runSql(dropTables(prefix))
    })

    it("health: GET /readyz is 200 with storage ok and workers running; 503 with storage unreachable while PostgreSQL is cut, 200 once restored; GET /healthz stays 200", async () => {
      const ready = await get(server.url, "/readyz")
      assert.deepStrictEqual(ready, { status: 200, body: { status: "ok", checks: { storage: "ok", workers: "running" } } })
      proxy.cut()
      const down = await get(server.url, "/readyz")
      assert.strictEqual(down.status, 503)
      assert.strictEqual(down.body.status, "unavailable")
      assert.include(["unreachable", "timeout"], down.body.checks["storage"])
      assert.deepStrictEqual(await get(server.url, "/healthz"), { status: 200, body: { status: "ok", checks: {} } })
      proxy.restore()
      let again = await get(server.url, "/readyz")
      for (let i = 0; i < 50 && again.status !== 200; i++) {
        await new Promise((ok) => setTimeout(ok, 100))
        again = await get(server.url, "/readyz")
      }
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    }, 30_000)
  })
}
