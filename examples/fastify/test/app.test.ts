/**
 * The Fastify example as a host runs it: a real server, the host's own pg.Pool on the real
 * PostgreSQL, Tender under /payments beside the app's routes (docs/embedding.md). The checks
 * are the ones every framework example passes (@tender/test-support, `describeMountedHost`).
 */
import { freePort } from "@tender/test-support"
import { describeMountedHost, dropPrefixed, freshTablePrefix, hostLogger, type LogLine } from "@tender/test-support/embedding"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, beforeAll } from "vitest"
import { makeApp } from "../src/app.js"

const url = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const tablePrefix = freshTablePrefix()
const seedPath = fileURLToPath(new URL("../seed.json", import.meta.url))

const pool = new pg.Pool({ connectionString: url, max: 5 })
const logs: Array<LogLine> = []
// A free port, known before the app is made: its public URL (hosted links) names it.
const port = await freePort()
const base = `http://127.0.0.1:${port}`
let made: Awaited<ReturnType<typeof makeApp>>

beforeAll(async () => {
  made = await makeApp({ pool, publicUrl: `${base}/payments`, checkoutSecret: "test-secret", seedPath, tablePrefix, logger: hostLogger(logs) })
  await made.app.listen({ port, host: "127.0.0.1" })
})

afterAll(async () => {
  await made.app.close()
  await made.tender.close()
  await dropPrefixed(pool, tablePrefix)
  await pool.end()
})

describeMountedHost({
  framework: "Fastify",
  example: "fastify",
  base: () => base,
  pool,
  tablePrefix,
  logs,
  startAndDisposeAnother: async () => {
    const { app, tender } = await makeApp({ pool, publicUrl: `${base}/other`, checkoutSecret: "test-secret", seedPath, tablePrefix, logger: hostLogger([]) })
    await app.ready()
    await tender.close()
    await app.close()
  }
})
