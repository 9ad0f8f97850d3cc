import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { runDatabaseEnv } from "./packages/repo-test-support/src/runDatabase.js"

/**
 * `npm run test:packaging`: the repository as a host and a reader get it (test/Pack.test.ts,
 * test/Readme.test.ts). Apart from `npm test` because each installs packages and builds in a
 * fresh folder for minutes of CPU: run beside the whole suite on a shared machine, that starved
 * Vitest's own worker calls. `.ci/run` runs it after `npm test`. One file at a time, for the same
 * reason. Its PostgreSQL tests run in a database of their own, as `npm test`'s (vitest.config.ts).
 */
runDatabaseEnv(process.env)

export default defineConfig({
  test: {
    globalSetup: [fileURLToPath(new URL("./packages/repo-test-support/src/vitestGlobalSetup.ts", import.meta.url))],
    name: "packaging",
    root: "test",
    include: ["**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false
  }
})
