/**
 * A Hono app with routes of its own and Tender mounted under /payments, through Tender's
 * fetch-style handler (the same line serves Bun and Deno): plain JavaScript, no Effect
 * (docs/embedding.md).
 */
import { createTender } from "@tender/server"
import { Hono } from "hono"

/**
 * @param {object} options
 * @param {import("pg").Pool} options.pool the app's own pool: Tender borrows it and never ends it
 * @param {string} options.publicUrl where clients reach Tender, e.g. https://shop.example.com/payments
 * @param {string} options.checkoutSecret
 * @param {string} options.seedPath the merchants (docs/seed-format.md)
 * @param {string | undefined} [options.tablePrefix]
 * @param {import("@tender/server").HostLogger} options.logger pino, console, or any { info, warn, error }
 */
export const makeApp = async ({ pool, publicUrl, checkoutSecret, seedPath, tablePrefix, logger }) => {
  const tender = await createTender({
    storage: { postgres: pool, tablePrefix },
    publicUrl,
    checkoutSecret,
    merchants: seedPath,
    logger
  })
  const app = new Hono()
  // Tender's own paths get the raw request (its body unread); every other path goes on to the app.
  app.use("*", (c, next) => (tender.owns(c.req.url) ? tender.fetch(c.req.raw) : next()))
  app.get("/health", (c) => c.json({ ok: true }))
  app.post("/orders", async (c) => c.json({ order: await c.req.json() }, 201))
  return { app, tender }
}
