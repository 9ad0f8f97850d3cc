/**
 * @tender/test-support: what the repository's tests and benchmarks share (docs/architecture.md,
 * "Test support"). Private: never published, run from its TypeScript sources.
 */
export * from "./demo.js"
export * from "./embedding.js"
export * from "./http.js"
export * from "./net.js"
export * from "./process.js"
export * from "./requests.js"
