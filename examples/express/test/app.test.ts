/**
 * The Express example as a host runs it: a real server, the host's own pg.Pool on the real
 * PostgreSQL, Tender under /payments beside the app's routes (docs/embedding.md). The checks
 * are the ones every framework example passes (@tender/repo-test-support, `describeExampleHost`).
 */
import { describeExampleHost } from "@tender/repo-test-support/embedding"
import { createServer } from "node:http"
import { assert } from "vitest"
import { makeApp } from "../src/app.js"

describeExampleHost(import.meta.url, {
  framework: "Express",
  makeApp: (options) => makeApp(options as Parameters<typeof makeApp>[0]),
  serve: async ({ app }, port) => {
    const server = createServer(app)
    await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok))
    return () => new Promise<void>((ok) => server.close(() => ok()))
  },
  disposeAnother: async ({ app, tender }) => {
    assert.isFunction(app)
    await tender.close()
  }
})
