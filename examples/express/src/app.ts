/**
 * An Express app with routes of its own and Tender mounted under /payments.
 */
import * as Express from "@tender/http/Express"
import express from "express"
import { makeTender, type TenderOptions } from "./tender.js"

export const makeApp = (options: TenderOptions) => {
  const tender = makeTender(options)
  const app = express()
  // Before any body parser: Tender reads its request bodies itself, byte for byte.
  app.use(Express.middleware(tender))
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
