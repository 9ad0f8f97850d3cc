/**
 * The Fastify example as a host runs it: a real server, the host's own pg.Pool on the real
 * PostgreSQL, Tender under /payments beside the app's routes (docs/embedding.md). The checks
 * are the ones every framework example passes (@tender/repo-test-support, `describeExampleHost`).
 */
import { describeExampleHost } from "@tender/repo-test-support/embedding"
import { makeApp } from "../src/app.js"

describeExampleHost(import.meta.url, {
  framework: "Fastify",
  makeApp: (options) => makeApp(options as Parameters<typeof makeApp>[0]),
  serve: async ({ app }, port) => {
    await app.listen({ port, host: "127.0.0.1" })
    return () => app.close()
  },
  disposeAnother: async ({ app, tender }) => {
    await app.ready()
    await tender.close()
    await app.close()
  }
})
