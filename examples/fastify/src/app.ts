/**
 * A Fastify app with routes of its own and Tender mounted under /payments.
 */
import * as TenderFastify from "@tender/http/Fastify"
import Fastify from "fastify"
import { makeTender, type TenderOptions } from "./tender.js"

export const makeApp = async (options: TenderOptions) => {
  const tender = makeTender(options)
  const app = Fastify()
  // Tender takes its own paths before Fastify's JSON parser runs; the app's routes keep it.
  await app.register(TenderFastify.plugin(tender))
  app.get("/health", async () => ({ ok: true }))
  app.post("/orders", async (request, reply) => reply.code(201).send({ order: request.body }))
  return { app, tender }
}
