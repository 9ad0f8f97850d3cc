/**
 * Start the Hono example: `npm start -w @tender/example-hono`. Its settings come from the
 * environment (`settingsFromEnv`, docs/server.md): PORT (default 3003), DATABASE_URL,
 * PUBLIC_URL (default http://127.0.0.1:PORT/payments), TENDER_CHECKOUT_SECRET,
 * TENDER_TABLE_PREFIX, TENDER_SEED (default seed.json). `npm start` loads example.env for a
 * developer's machine; a variable already set in the environment wins over it.
 */
import { serve } from "@hono/node-server"
import { fileURLToPath } from "node:url"
import { settingsFromEnv } from "@tender/server"
import pg from "pg"
import { makeApp } from "./app.js"

// Checked at once: a bad PORT or PUBLIC_URL, or no checkout secret, stops the start with the variable's name.
const settings = settingsFromEnv(process.env, { port: 3003, merchants: fileURLToPath(new URL("../seed.json", import.meta.url)) })
const { port, publicUrl } = settings

// The app's own pool: Tender borrows it and never ends it.
const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 10 })
const { app, tender } = await makeApp({
  ...settings.onPool(pool),
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
