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
          // One database: its test files run one after another.
          pool: "forks",
          poolOptions: { forks: { singleFork: true } }
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
