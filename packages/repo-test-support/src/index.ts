/**
 * @tender/repo-test-support: what the repository's tests and benchmarks share (docs/architecture.md,
 * "Test support"). Private: never published, run from its TypeScript sources. Nothing here
 * imports Vitest, so the benchmarks load it too; the framework examples' shared suite, which
 * does, is `@tender/repo-test-support/embedding`.
 */
export * from "./backlog.js"
export * from "./demo.js"
export * from "./demoBundle.js"
export * from "./eventLoop.js"
export * from "./fileEnd.js"
export * from "./files.js"
export * from "./hostedPage.js"
export * from "./http.js"
export * from "./merchantApi.js"
export * from "./net.js"
export * from "./poll.js"
export * from "./postgres.js"
export * from "./process.js"
export * from "./receiver.js"
export * from "./requests.js"
export * from "./stats.js"
