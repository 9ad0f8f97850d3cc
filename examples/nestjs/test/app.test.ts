/**
 * The NestJS example as a host runs it: a real server, the host's own pg.Pool on the real
 * PostgreSQL, Tender under /payments beside the app's controllers (docs/embedding.md, "NestJS").
 * The checks are the ones every framework example passes (@tender/repo-test-support,
 * `describeExampleHost`); test/nest.test.ts checks what is Nest's own.
 */
import { describeExampleHost } from "@tender/repo-test-support/embedding"
import { makeApp } from "../src/app.js"

describeExampleHost(import.meta.url, {
  framework: "NestJS",
  makeApp: (options) => makeApp(options as Parameters<typeof makeApp>[0], { logger: false }),
  serve: async ({ app }, port) => {
    await app.listen(port, "127.0.0.1")
    return () => app.close()
  },
  // app.close() is what Nest's shutdown hooks run: TenderModule's onApplicationShutdown closes Tender.
  disposeAnother: ({ app }) => app.close()
})
