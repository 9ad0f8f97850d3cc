/**
 * Every way a host mounts Tender, each started on a free port over a real socket: the Effect
 * server of the demo (`NodeHttpServer`), the `node:http` listener, Express and Fastify. Shared by
 * the tests that must hold through each of them (bodies, the providers' door). Not a test file
 * itself: calling `hostMounts()` registers the file's `afterAll` that closes what it started.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll } from "@effect/vitest"
import { type Layer, ManagedRuntime } from "effect"
import express from "express"
import fastify, { type FastifyInstance } from "fastify"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { layer } from "../../core/test/fixtures.js"
import * as Express from "../src/Express.js"
import * as Fastify from "../src/Fastify.js"
import { Startup, TenderHttp } from "../src/index.js"
import * as NodeHttp from "../src/NodeHttp.js"

/** `http://127.0.0.1:{port}` of a listening server. */
export const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

/**
 * `mounts` (name to a start resolving to the origin), and `listening` and `webHandler` for a
 * test's own host; everything started is closed in the file's `afterAll`, last first. `fastifyRoutes`
 * adds the host's own routes to the Fastify app.
 */
export const hostMounts = (options: { readonly fastifyRoutes?: (app: FastifyInstance) => void } = {}) => {
  const closers: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const close of closers.reverse()) await close()
  }, 30_000)

  const listening = async (server: Server) => {
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    // Every connection is cut, not awaited: a test that left a keep-alive (or an endless upload)
    // open would otherwise hold close() past the hook's timeout on a loaded machine.
    closers.push(() =>
      new Promise((ok) => {
        server.close(ok)
        server.closeAllConnections()
      })
    )
    return origin(server)
  }

  const webHandler = (services: Layer.Layer<TenderHttp.Services> = layer()) => {
    const tender = TenderHttp.toWebHandler(services)
    closers.push(tender.dispose)
    return tender
  }

  const mounts: Record<string, () => Promise<string>> = {
    "Effect server (NodeHttpServer, as the demo)": async () => {
      const server = createServer()
      const runtime = ManagedRuntime.make(
        Startup.serve({ services: layer(), server: NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }) })
      )
      // The Effect server's close waits for open connections: cut them first (see `listening`).
      closers.push(() => {
        server.closeAllConnections()
        return runtime.dispose()
      })
      await runtime.runtime()
      return origin(server)
    },
    "node:http listener": () => listening(createServer(NodeHttp.listener(webHandler()))),
    "Express middleware": () => {
      const app = express()
      app.use(Express.middleware(webHandler()))
      return listening(createServer(app))
    },
    "Fastify plugin": async () => {
      // Fastify's close waits for requests in flight unless told to cut every connection.
      const app = fastify({ forceCloseConnections: true })
      await app.register(Fastify.plugin(webHandler()))
      options.fastifyRoutes?.(app)
      await app.listen({ port: 0, host: "127.0.0.1" })
      closers.push(() => app.close())
      return origin(app.server)
    }
  }

  return { mounts, listening, webHandler }
}
