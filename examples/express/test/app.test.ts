/**
 * The Express example as a host runs it: a real server, the host's own pg.Pool on the real
 * PostgreSQL, Tender under /payments beside the app's routes (docs/embedding.md). The checks
 * are the ones every framework example passes (@tender/test-support, `describeMountedHost`).
 */
import { describeMountedHost, dropPrefixed, freshTablePrefix, hostLogger, type LogLine } from "@tender/test-support/embedding"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, assert, beforeAll } from "vitest"
import { makeApp } from "../src/app.js"

const url = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const tablePrefix = freshTablePrefix()
const seedPath = fileURLToPath(new URL("../seed.json", import.meta.url))

const pool = new pg.Pool({ connectionString: url, max: 5 })
const logs: Array<LogLine> = []
let server: Server
let base = ""
let made: Awaited<ReturnType<typeof makeApp>>

beforeAll(async () => {
  server = createServer()
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  made = await makeApp({ pool, publicUrl: `${base}/payments`, checkoutSecret: "test-secret", seedPath, tablePrefix, logger: hostLogger(logs) })
  server.on("request", made.app)
})

afterAll(async () => {
  await new Promise((ok) => server.close(ok))
  await made.tender.close()
  await dropPrefixed(pool, tablePrefix)
  await pool.end()
})

describeMountedHost({
  framework: "Express",
  example: "express",
  base: () => base,
  pool,
  tablePrefix,
  logs,
  startAndDisposeAnother: async () => {
    const { app, tender } = await makeApp({ pool, publicUrl: `${base}/other`, checkoutSecret: "test-secret", seedPath, tablePrefix, logger: hostLogger([]) })
    assert.isFunction(app)
    await tender.close()
  }
})
