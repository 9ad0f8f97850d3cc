/**
 * Fastify glue (docs/embedding.md): `await app.register(Fastify.plugin(tender))`. Tender
 * takes its own paths in an `onRequest` hook, before Fastify's content-type parsers run, so
 * its JSON parser never consumes the body Tender reads byte for byte (D5), and the reply is
 * written by Tender (`reply.hijack()`). Every other path goes on to the host's routes. The
 * hook is registered on the host's instance (not encapsulated) so it sees every request.
 * Fastify is not a dependency: the types below are the few members the plugin touches.
 *
 * @since 0.1.0
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import * as NodeHttp from "./NodeHttp.js"
import type { WebHandler } from "./TenderHttp.js"

/** The members of a Fastify instance, request and reply the plugin uses. @since 0.1.0 */
export interface FastifyLike {
  addHook(
    name: "onRequest",
    hook: (request: { readonly raw: IncomingMessage }, reply: { readonly raw: ServerResponse; hijack(): void }, done: (error?: Error) => void) => void
  ): unknown
}

/**
 * The plugin. `skip-override` is what `fastify-plugin` sets: the hook applies to the whole
 * instance, not to a child context Tender would otherwise get.
 *
 * @since 0.1.0
 */
export const plugin = (tender: WebHandler) =>
  Object.assign(
    async (fastify: FastifyLike): Promise<void> => {
      fastify.addHook("onRequest", (request, reply, done) => {
        if (!tender.owns(request.raw.url ?? "/")) {
          tender.outside(request.raw.url ?? "/")
          return done()
        }
        reply.hijack()
        void NodeHttp.serve(tender, request.raw, reply.raw)
      })
    },
    { [Symbol.for("skip-override")]: true, [Symbol.for("fastify.display-name")]: "@tender/http" }
  )
