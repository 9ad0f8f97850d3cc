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
          // One database: its test files run one after another, each in a fresh process, so
          // no file's layers outlive it (a single shared fork ran one file's hooks again in the next).
          pool: "forks",
          poolOptions: { forks: { maxForks: 1, minForks: 1, isolate: true } }
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
