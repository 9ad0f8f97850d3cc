import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "core",
          root: "packages/core",
          include: ["test/**/*.test.ts"]
        }
      },
      {
        test: {
          name: "http",
          root: "packages/http",
          include: ["test/**/*.test.ts"]
        }
      },
      {
        test: {
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
        }
      },
      { test: { name: "mongodb", root: "packages/mongodb", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          // The embedding examples (docs/embedding.md): each starts a host and creates an intent.
          name: "examples",
          root: "examples",
          include: ["express/test/**/*.test.ts", "fastify/test/**/*.test.ts", "effect-host/test/**/*.test.ts", "provider-adapter/test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: "forks"
        }
      },
      {
        test: {
          name: "example",
          root: "examples/server",
          include: ["test/**/*.test.ts"],
          testTimeout: 30_000
        }
      }
    ]
  }
})
