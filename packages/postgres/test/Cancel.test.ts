/**
 * PostgreSQL's CancelRequest, sent on a socket of its own (packages/postgres/src/internal/cancel.ts):
 * the way the direct path stops a statement past its deadline without a connection of the pool
 * (Direct.test.ts holds the pool to it). Here, the request itself: over TCP and over the server's
 * Unix socket it stops the statement it names, and where it cannot be sent it says so and throws
 * nothing.
 */
import { existsSync } from "node:fs"
import { createServer, type Socket } from "node:net"
import pg from "pg"
import { assert, describe, it } from "vitest"
import * as Cancel from "../src/internal/cancel.js"
import { url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const sent = (backend: Cancel.Backend, millis = 5_000) => new Promise<Cancel.Outcome>((ok) => Cancel.send(backend, millis, ok))

/** The error a long sleep on `client` ends with once `cancel` has run, and whether the cancel was taken. */
const sleepCancelled = async (client: pg.Client, cancel: (c: Cancel.Backend) => Promise<Cancel.Outcome>) => {
  await client.connect()
  try {
    const sleeping = client.query("SELECT pg_sleep(30)").then(() => undefined, (e: { code?: string }) => e.code)
    // The sleep is on the server before the cancel goes out.
    const watcher = new pg.Client({ connectionString: url })
    await watcher.connect()
    const pid = (client as unknown as Cancel.Backend).processID
    for (let i = 0; i < 100; i++) {
      const { rows } = await watcher.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'", [pid])
      if (rows[0].n === 1) break
      await new Promise((r) => setTimeout(r, 20))
    }
    await watcher.end()
    const outcome = await cancel(client as unknown as Cancel.Backend)
    return { outcome, code: await sleeping }
  } finally {
    await client.end()
  }
}

describeOnPostgres("D1 a statement past its deadline is stopped with PostgreSQL's CancelRequest", () => {
  it("D1 over TCP the CancelRequest stops the statement it names (57014 query_canceled)", async () => {
    const { code, outcome } = await sleepCancelled(new pg.Client({ connectionString: url }), (c) => sent(c))
    assert.strictEqual(outcome, "taken")
    assert.strictEqual(code, "57014")
  })

  const socketDir = "/var/run/postgresql"
  const onSocket = existsSync(`${socketDir}/.s.PGSQL.${new URL(url).port || "5432"}`)
  it.skipIf(!onSocket)(
    `D1 over the server's Unix socket the CancelRequest stops the statement it names${onSocket ? "" : ` (skipped: no socket in ${socketDir})`}`,
    async () => {
      const u = new URL(url)
      const client = new pg.Client({ host: socketDir, port: Number(u.port || "5432"), user: decodeURIComponent(u.username), database: u.pathname.slice(1) })
      const { code, outcome } = await sleepCancelled(client, (c) => sent(c))
      assert.strictEqual(outcome, "taken")
      assert.strictEqual(code, "57014")
    }
  )
})

describe("D1 a CancelRequest says what became of it and throws nothing", () => {
  it("D1 without the key the server gave the connection, nothing is sent", async () => {
    assert.strictEqual(await sent({ host: "127.0.0.1", port: 1, processID: null, secretKey: null }), "not sent")
  })

  it("D1 a port no socket can be opened to: not sent, not thrown", async () => {
    assert.strictEqual(await sent({ host: "127.0.0.1", port: 70_000, processID: 1, secretKey: 1 }), "not sent")
    assert.strictEqual(await sent({ host: "127.0.0.1", port: Number.NaN, processID: 1, secretKey: 1 }), "not sent")
  })

  it("D1 a server that refuses the connection: not sent", async () => {
    // A port just released: nothing listens on it.
    const server = createServer()
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    const { port } = server.address() as { port: number }
    await new Promise((ok) => server.close(ok))
    assert.strictEqual(await sent({ host: "127.0.0.1", port, processID: 1, secretKey: 1 }), "not sent")
  })

  it("D1 a server that reads the request and never closes: unknown within the bound (it may still act on it)", async () => {
    const held: Array<Socket> = []
    const server = createServer((s) => void held.push(s))
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    const { port } = server.address() as { port: number }
    try {
      assert.strictEqual(await sent({ host: "127.0.0.1", port, processID: 1, secretKey: 1 }, 200), "unknown")
    } finally {
      held.forEach((s) => s.destroy())
      await new Promise((ok) => server.close(ok))
    }
  })

  it("D1 a server that resets the connection after the request: unknown", async () => {
    const server = createServer((s) => s.once("data", () => s.resetAndDestroy()))
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    const { port } = server.address() as { port: number }
    try {
      assert.strictEqual(await sent({ host: "127.0.0.1", port, processID: 1, secretKey: 1 }), "unknown")
    } finally {
      await new Promise((ok) => server.close(ok))
    }
  })
})
