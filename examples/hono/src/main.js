/**
 * Start the Hono example: `DATABASE_URL=postgres://… npm start -w @tender/example-hono`.
 * PORT (default 3003), PUBLIC_URL (default http://127.0.0.1:PORT/payments), TENDER_TABLE_PREFIX.
 */
import { serve } from "@hono/node-server"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { makeApp } from "./app.js"

const port = Number(process.env["PORT"] ?? "3003")
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const publicUrl = process.env["PUBLIC_URL"] ?? `http://127.0.0.1:${port}/payments`

// The app's own pool: Tender borrows it and never ends it.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
const { app, tender } = await makeApp({
  storage: { postgres: pool, tablePrefix: process.env["TENDER_TABLE_PREFIX"] },
  publicUrl,
  checkoutSecret: process.env["TENDER_CHECKOUT_SECRET"] ?? "example-checkout-secret-change-me",
  merchants: fileURLToPath(new URL("../seed.json", import.meta.url)),
  logger: console
})

const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => {
  process.stdout.write(`Hono example listening on http://127.0.0.1:${port} (Tender at ${publicUrl})\n`)
})

// Shutdown: stop taking connections, let requests in flight finish, stop Tender, then end the pool.
const stop = () => {
  server.close(async () => {
    await tender.close()
    await pool.end()
  })
}
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
