/**
 * Start the Express example: `npm start -w @tender/example-express`. Its settings come from the
 * environment (`settingsFromEnv`, docs/server.md): PORT (default 3001), DATABASE_URL,
 * PUBLIC_URL (default http://127.0.0.1:PORT/payments), TENDER_CHECKOUT_SECRET,
 * TENDER_TABLE_PREFIX, TENDER_SEED (default seed.json); STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET
 * and STRIPE_API_BASE install Stripe (src/stripe.js). `npm start` loads example.env for a
 * developer's machine; a variable already set in the environment wins over it.
 */
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import { settingsFromEnv } from "@tender/server"
import pg from "pg"
import { makeApp } from "./app.js"
import { stripeFromEnv } from "./stripe.js"

// Checked at once: a bad PORT or PUBLIC_URL, or no checkout secret, stops the start with the variable's name.
const settings = settingsFromEnv(process.env, { port: 3001, merchants: fileURLToPath(new URL("../seed.json", import.meta.url)) })
const { port, publicUrl } = settings

/** The app's logger: one JSON object a line, as pino writes them (pino itself fits as it is). */
const line = (level) => (fields, msg) => process.stdout.write(JSON.stringify({ level, msg, ...fields }) + "\n")
const logger = { info: line("info"), warn: line("warn"), error: line("error") }

// The app's own pool: Tender borrows it and never ends it.
const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 10 })
const { app, tender } = await makeApp({
  ...settings.onPool(pool),
  // Stripe beside the simulator when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set; its
  // notifications arrive at {PUBLIC_URL}/provider_notifications/stripe.
  providers: stripeFromEnv(process.env, { returnUrl: `${publicUrl}/` }),
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
