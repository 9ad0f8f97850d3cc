/**
 * A Fastify app with routes of its own and Tender mounted under /payments: plain JavaScript,
 * no Effect (docs/embedding.md).
 */
import { createTender } from "@tender/server"
import Fastify from "fastify"

/** @param {import("@tender/server").TenderOptions} options createTender's, as they are (src/main.js) */
export const makeApp = async (options) => {
  const tender = await createTender(options)
  const app = Fastify()
  // Tender takes its own paths before Fastify's JSON parser runs; the app's routes keep it.
  await app.register(tender.fastify())
  app.get("/health", async () => ({ ok: true }))
  app.post("/orders", async (request, reply) => reply.code(201).send({ order: request.body }))
  return { app, tender }
}
