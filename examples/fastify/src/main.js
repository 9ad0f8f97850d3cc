/**
 * Start the Fastify example: `DATABASE_URL=postgres://… npm start -w @tender/example-fastify`.
 * PORT (default 3002), PUBLIC_URL (default http://127.0.0.1:PORT/payments), TENDER_TABLE_PREFIX.
 */
import { fileURLToPath } from "node:url"
import pg from "pg"
import { makeApp } from "./app.js"

const port = Number(process.env["PORT"] ?? "3002")
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const publicUrl = process.env["PUBLIC_URL"] ?? `http://127.0.0.1:${port}/payments`

// The app's own pool: Tender borrows it and never ends it.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
const { app, tender } = await makeApp({
  storage: { postgres: pool, tablePrefix: process.env["TENDER_TABLE_PREFIX"] },
  publicUrl,
  checkoutSecret: process.env["TENDER_CHECKOUT_SECRET"] ?? "example-checkout-secret-change-me",
  merchants: fileURLToPath(new URL("../seed.json", import.meta.url)),
  // Any { info, warn, error } called as pino's methods are: console here, pino in production.
  logger: console
})

// Shutdown: Fastify's onClose runs once requests in flight are done; then Tender stops, then the pool ends.
app.addHook("onClose", async () => {
  await tender.close()
  await pool.end()
})
await app.listen({ port, host: "127.0.0.1" })
process.stdout.write(`Fastify example listening on http://127.0.0.1:${port} (Tender at ${publicUrl})\n`)
const stop = () => void app.close()
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
