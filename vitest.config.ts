import { fileURLToPath } from "node:url"
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config"
import { demoBundleEnv } from "./packages/test-support/src/demoBundle.js"
import { runDatabaseEnv } from "./packages/test-support/src/runDatabase.js"

/**
 * Tests run on the packages' TypeScript sources, never on their build (no `npm run build`
 * needed, never a stale `dist/`): the "@tender/source" export condition of every package.json
 * "exports" points `@tender/*` at `src/`. Vitest runs test files in Vite's SSR environment, so
 * the condition goes to `ssr.resolve` as well. A process a test starts itself (the demo server
 * through `node --import tsx …`) inherits the condition through NODE_OPTIONS, set for every
 * test below, so no spawn site has to remember it. docs/architecture.md, "Building".
 */
const conditions = ["@tender/source", "import", "module", "node", "default"]
const NODE_OPTIONS = [process.env["NODE_OPTIONS"], "--conditions=@tender/source"].filter(Boolean).join(" ")

/** One package's tests, resolved against the sources. */
const project = (test: NonNullable<TestProjectInlineConfiguration["test"]>): TestProjectInlineConfiguration => ({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@tender/source"] } },
  test: { ...test, env: { NODE_OPTIONS, ...test.env } }
})

/**
 * The run's own PostgreSQL database and the demo server's bundle, named here so that every worker
 * and every process a test starts inherits them; the global setup creates both, and after the last
 * file fails the run if any table is left in the database, then removes both
 * (packages/test-support/src/runDatabase.ts, demoBundle.ts).
 */
runDatabaseEnv(process.env)
demoBundleEnv(process.env)

/**
 * Three files at once, one more than the cores of the 2-core machine the suite is measured on:
 * most of a file's time is spent waiting on PostgreSQL, a child process, a browser or a simulated
 * delay, not on the CPU, so a third file fills the waits. The core, http, client and mongodb files
 * share their worker's loaded modules (`isolate: false`): nothing of theirs (process, database,
 * global) outlives them, and loading Effect and the packages once per worker instead of once per
 * file saves more than their tests take. `TENDER_TEST_WORKERS=<n>` runs n files at once instead;
 * `TENDER_TEST_SHARED=0` isolates every file. A worker must reach its event loop at least every
 * 60 s, or Vitest's own call to its main process times out and fails the run ("Timeout calling
 * onTaskUpdate"): a test that loops on in-memory or synchronous work lets the loop turn
 * (`eventLoopTurn` of @tender/test-support). docs/test-environment.md, "Running the repository's tests".
 */
const maxWorkers = process.env["TENDER_TEST_WORKERS"] ? Number(process.env["TENDER_TEST_WORKERS"]) : 3
const shared = process.env["TENDER_TEST_SHARED"] === "0" ? {} : ({ isolate: false } as const)

export default defineConfig({
  test: {
    maxWorkers,
    globalSetup: [fileURLToPath(new URL("./packages/test-support/src/vitestGlobalSetup.ts", import.meta.url))],
    projects: [
      // 30 s, not Vitest's 5 s: a bound on a hang, not a measure; property tests on a machine
      // shared with other runs took longer than 5 s and failed for it.
      project({ name: "core", root: "packages/core", include: ["test/**/*.test.ts"], testTimeout: 30_000, ...shared }),
      project({ name: "http", root: "packages/http", include: ["test/**/*.test.ts"], testTimeout: 30_000, ...shared }),
      project({
        name: "postgres",
        root: "packages/postgres",
        include: ["test/**/*.test.ts"],
        testTimeout: 60_000,
        hookTimeout: 60_000,
        // Each file in a fresh process, so no file's layers outlive it (in one shared fork the
        // contract suite's hooks ran again during the next file). Files may share the database:
        // each uses its own table prefix and drops it after.
        pool: "forks",
        poolOptions: { forks: { isolate: true, singleFork: false } }
      }),
      project({
        name: "server",
        root: "packages/server",
        include: ["test/**/*.test.ts"],
        testTimeout: 60_000,
        hookTimeout: 60_000,
        pool: "forks",
        poolOptions: { forks: { isolate: true, singleFork: false } }
      }),
      // @tender/client against a real Tender on a port, and against scripted servers.
      project({ name: "client", root: "packages/client", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000, ...shared }),
      // @tender/stripe against the Stripe stand-in of @tender/testing (no network).
      project({ name: "stripe", root: "packages/stripe", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }),
      // @tender/adyen against the Adyen stand-in of @tender/testing (HTTPS on 127.0.0.1, no network).
      project({ name: "adyen", root: "packages/adyen", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }),
      project({ name: "mongodb", root: "packages/mongodb", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000, ...shared }),
      // The embedding examples (docs/embedding.md): each starts a host and creates an intent.
      project({
        name: "examples",
        root: "examples",
        include: ["express/test/**/*.test.ts", "fastify/test/**/*.test.ts", "hono/test/**/*.test.ts", "nestjs/test/**/*.test.ts", "effect-host/test/**/*.test.ts", "provider-adapter/test/**/*.test.ts"],
        testTimeout: 60_000,
        hookTimeout: 60_000,
        pool: "forks"
      }),
      project({ name: "example", root: "examples/server", include: ["test/**/*.test.ts"], testTimeout: 60_000 })
      // The repository as a whole (test/: the packed packages in a fresh host, the README's
      // commands) runs apart, in `npm run test:packaging` (vitest.packaging.config.ts).
    ]
  }
})
