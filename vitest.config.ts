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
          name: "example",
          root: "examples/server",
          include: ["test/**/*.test.ts"],
          testTimeout: 30_000
        }
      }
    ]
  }
})
