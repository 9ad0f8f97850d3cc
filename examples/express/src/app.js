/**
 * An Express app with routes of its own and Tender mounted under /payments: plain JavaScript,
 * no Effect (docs/embedding.md).
 */
import { createTender } from "@tender/server"
import express from "express"

/** @param {import("@tender/server").TenderOptions} options createTender's, as they are (src/main.js) */
export const makeApp = async (options) => {
  // Storage migrated and seeded, workers started, once this resolves.
  const tender = await createTender(options)
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
