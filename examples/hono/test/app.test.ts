/**
 * The Hono example as a host runs it: a real server (@hono/node-server), the host's own
 * pg.Pool on the real PostgreSQL, Tender under /payments beside the app's routes through its
 * fetch-style handler (docs/embedding.md). The checks are the ones every framework example
 * passes (@tender/repo-test-support, `describeExampleHost`).
 */
import { serve } from "@hono/node-server"
import { describeExampleHost } from "@tender/repo-test-support/embedding"
import { makeApp } from "../src/app.js"

describeExampleHost(import.meta.url, {
  framework: "Hono",
  makeApp: (options) => makeApp(options as Parameters<typeof makeApp>[0]),
  serve: ({ app }, port) =>
    new Promise((ok) => {
      const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => ok(() => new Promise<void>((closed) => server.close(() => closed()))))
    })
})
