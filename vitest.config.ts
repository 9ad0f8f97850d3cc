import { fileURLToPath } from "node:url"
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config"
import { demoBundleEnv } from "./packages/repo-test-support/src/demoBundle.js"
import { mockingFiles } from "./packages/repo-test-support/src/mockingFiles.js"
import { runDatabaseEnv } from "./packages/repo-test-support/src/runDatabase.js"

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

type Test = NonNullable<TestProjectInlineConfiguration["test"]>

/** One package's tests, resolved against the sources, each file run after the setup file. */
const resolved = (test: Test): TestProjectInlineConfiguration => ({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@tender/source"] } },
  test: { ...test, setupFiles: [setupFile], env: { NODE_OPTIONS, ...test.env } }
})
const setupFile = fileURLToPath(new URL("./packages/repo-test-support/src/vitestSetup.ts", import.meta.url))

/**
 * One package's tests in `pool`, sharing each worker's loaded modules; its files that mock a
 * module (mockingFiles.ts) go to a project of their own, `<name>-isolated`, whose files start
 * from freshly loaded modules.
 */
const project = (pool: "threads" | "forks", test: Test & { name: string; root: string; include: Array<string> }): Array<TestProjectInlineConfiguration> => {
  const mocking = [...new Set(test.include.map((glob) => glob.split("/")[0]!))].flatMap((dir) =>
    mockingFiles(fileURLToPath(new URL(`./${test.root}/`, import.meta.url)), dir)
  )
  return [
    resolved({ ...test, pool, exclude: [...configDefaults.exclude, ...mocking] }),
    ...(mocking.length === 0 ? [] : [resolved({ ...test, name: `${test.name}-isolated`, pool, include: mocking, poolOptions: { [pool]: { isolate: true } } })])
  ]
}

/**
 * The run's own PostgreSQL database and the demo server's bundle, named here so that every worker
 * and every process a test starts inherits them; the global setup creates both, and after the last
 * file fails the run if any table is left in the database, then removes both
 * (packages/repo-test-support/src/runDatabase.ts, demoBundle.ts).
 */
runDatabaseEnv(process.env)
demoBundleEnv(process.env)

/**
 * Two pools side by side, each running `TENDER_TEST_WORKERS` files at once (2 by default: four in
 * all, twice the cores of the 2-core machine the suite is measured on, since most of a file's time
 * is spent waiting on PostgreSQL, a child process, a browser or a simulated delay). Within a pool,
 * a worker keeps the modules it loaded from one file to the next (`isolate: false`), so Effect and
 * the packages load once per worker, not once per file (loading was most of the suite's time);
 * Vitest runs a pool's projects one after the other, so the two pools split the projects whose
 * files wait longest. `TENDER_TEST_SHARED=0` runs every file in a fresh worker. A worker must reach
 * its event loop at least every 60 s, or Vitest's own call to its main process times out and fails
 * the run ("Timeout calling onTaskUpdate"): a test that loops on in-memory or synchronous work lets
 * the loop turn (`eventLoopTurn` of @tender/repo-test-support). docs/test-environment.md, "Running the
 * repository's tests".
 */
const workers = process.env["TENDER_TEST_WORKERS"] ? Number(process.env["TENDER_TEST_WORKERS"]) : 2
const isolate = process.env["TENDER_TEST_SHARED"] === "0"

export default defineConfig({
  test: {
    poolOptions: { threads: { isolate, maxThreads: workers }, forks: { isolate, maxForks: workers } },
    globalSetup: [fileURLToPath(new URL("./packages/repo-test-support/src/vitestGlobalSetup.ts", import.meta.url))],
    projects: [
      // 30 s, not Vitest's 5 s: a bound on a hang, not a measure; property tests on a machine
      // shared with other runs took longer than 5 s and failed for it.
      ...project("threads", { name: "core", root: "packages/core", include: ["test/**/*.test.ts"], testTimeout: 30_000 }),
      ...project("threads", { name: "http", root: "packages/http", include: ["test/**/*.test.ts"], testTimeout: 30_000 }),
      // Files may share the database: each uses its own table prefix and drops it after.
      ...project("forks", { name: "postgres", root: "packages/postgres", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }),
      ...project("threads", { name: "server", root: "packages/server", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }),
      // @tender/client against a real Tender on a port, and against scripted servers.
      ...project("threads", { name: "client", root: "packages/client", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }),
      // @tender/stripe against its own Stripe stand-in, @tender/stripe/testing (no network).
      ...project("threads", { name: "stripe", root: "packages/stripe", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }),
      // @tender/adyen against its own Adyen stand-in, @tender/adyen/testing (HTTPS on 127.0.0.1, no network).
      ...project("threads", { name: "adyen", root: "packages/adyen", include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 }),
      ...project("threads", { name: "mongodb", root: "packages/mongodb", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }),
      // The embedding examples (docs/embedding.md): each starts a host and creates an intent.
      ...project("threads", {
        name: "examples",
        root: "examples",
        include: [
          "express/test/**/*.test.ts",
          "fastify/test/**/*.test.ts",
          "hono/test/**/*.test.ts",
          "nestjs/test/**/*.test.ts",
          "effect-host/test/**/*.test.ts",
          "provider-adapter/test/**/*.test.ts"
        ],
        testTimeout: 60_000,
        hookTimeout: 60_000
      }),
      ...project("forks", { name: "example", root: "examples/server", include: ["test/**/*.test.ts"], testTimeout: 60_000 })
      // The repository as a whole (test/: the packed packages in a fresh host, the README's
      // commands) runs apart, in `npm run test:packaging` (vitest.packaging.config.ts).
    ]
  }
})
