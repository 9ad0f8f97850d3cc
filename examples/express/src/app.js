/**
 * An Express app with routes of its own and Tender mounted under /payments: plain JavaScript,
 * no Effect (docs/embedding.md).
 */
import { createTender } from "@tender/server"
import express from "express"

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
  // Storage migrated and seeded, workers started, once this resolves.
  const tender = await createTender({
    storage: { postgres: pool, tablePrefix },
    publicUrl,
    checkoutSecret,
    merchants: seedPath,
    logger
  })
  const app = express()
  // Before any body parser: Tender reads its request bodies itself, byte for byte.
  app.use(tender.express())
  app.use(express.json())
  // The app's own routes, beside Tender's.
  app.get("/health", (_req, res) => {
    res.json({ ok: true })
  })
  app.post("/orders", (req, res) => {
    res.status(201).json({ order: req.body })
  })
  return { app, tender }
}
