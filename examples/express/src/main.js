/**
 * Start the Express example: `DATABASE_URL=postgres://… npm start -w @tender/example-express`.
 * PORT (default 3001), PUBLIC_URL (default http://127.0.0.1:PORT/payments), TENDER_TABLE_PREFIX.
 */
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { makeApp } from "./app.js"

const port = Number(process.env["PORT"] ?? "3001")
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const publicUrl = process.env["PUBLIC_URL"] ?? `http://127.0.0.1:${port}/payments`

/** The app's logger: one JSON object a line, as pino writes them (pino itself fits as it is). */
const line = (level) => (fields, msg) => process.stdout.write(JSON.stringify({ level, msg, ...fields }) + "\n")
const logger = { info: line("info"), warn: line("warn"), error: line("error") }

// The app's own pool: Tender borrows it and never ends it.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
const { app, tender } = await makeApp({
  storage: { postgres: pool, tablePrefix: process.env["TENDER_TABLE_PREFIX"] },
  publicUrl,
  checkoutSecret: process.env["TENDER_CHECKOUT_SECRET"] ?? "example-checkout-secret-change-me",
  merchants: fileURLToPath(new URL("../seed.json", import.meta.url)),
  logger
})

const server = createServer(app).listen(port, "127.0.0.1", () => {
  process.stdout.write(`Express example listening on http://127.0.0.1:${port} (Tender at ${publicUrl})\n`)
})

// Shutdown: stop taking connections, let requests in flight finish, stop Tender, then end the pool.
const stop = () => {
  server.close(async () => {
    await tender.close()
    await pool.end()
  })
  server.closeIdleConnections()
}
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
