/**
 * A Fastify app with routes of its own and Tender mounted under /payments: plain JavaScript,
 * no Effect (docs/embedding.md).
 */
import { createTender } from "@tender/server"
import Fastify from "fastify"

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
  const app = Fastify()
  // Tender takes its own paths before Fastify's JSON parser runs; the app's routes keep it.
  await app.register(tender.fastify())
  app.get("/health", async () => ({ ok: true }))
  app.post("/orders", async (request, reply) => reply.code(201).send({ order: request.body }))
  return { app, tender }
}
