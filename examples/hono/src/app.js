/**
 * A Hono app with routes of its own and Tender mounted under /payments, through Tender's
 * fetch-style handler (the same line serves Bun and Deno): plain JavaScript, no Effect
 * (docs/embedding.md).
 */
import { createTender } from "@tender/server"
import { Hono } from "hono"

/** @param {import("@tender/server").TenderOptions} options createTender's, as they are (src/main.js) */
export const makeApp = async (options) => {
  const tender = await createTender(options)
  const app = new Hono()
  // Tender's own paths get the raw request (its body unread); every other path goes on to the app.
  app.use("*", (c, next) => (tender.owns(c.req.url) ? tender.fetch(c.req.raw) : next()))
  app.get("/health", (c) => c.json({ ok: true }))
  app.post("/orders", async (c) => c.json({ order: await c.req.json() }, 201))
  return { app, tender }
}
