/**
 * The crash fuzzer's target, run as a CHILD process so that a crash is seen as the
 * child dying: Tender served by `Startup.serve` on a real `node:http` server with the errors
 * Node answers itself in the D1 shape (`ClientErrors.install`), as the demo server does, on the
 * in-memory store seeded with the test fixtures (`packages/core/test/fixtures.ts`, whose keys
 * the fuzzer sends). No workers run: nothing is delivered to a webhook URL the fuzzer invents.
 *
 * Over its IPC channel it says `{ port }` once listening, and answers `"memory"` with
 * `process.memoryUsage()` taken after a full GC (started with `--expose-gc`): the leak check
 * needs no endpoint of its own. Nothing here catches an uncaught error: one ends the process.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ManagedRuntime } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { layer } from "../../../core/test/fixtures.js"
import { ClientErrors, Startup } from "../../src/index.js"

const server = ClientErrors.install(createServer({
  // The demo's limits (docs/reliability.md, "What a host must set"), with a shorter request
  // timeout so a body the fuzzer leaves unfinished costs seconds, not half a minute.
  requestTimeout: 10_000,
  headersTimeout: 10_000,
  connectionsCheckingInterval: 1_000,
  maxHeaderSize: 16 * 1024
}))

const runtime = ManagedRuntime.make(
  Startup.serve({ services: layer(), server: NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }) })
)

const send = (message: unknown) => process.send?.(message)

process.on("message", (message) => {
  if (message === "memory") {
    const gc = (globalThis as { gc?: () => void }).gc
    // Twice: the first pass runs finalizers whose objects the second one frees.
    gc?.()
    gc?.()
    server.getConnections((_, connections) => send({ memory: { ...process.memoryUsage(), connections }, gc: gc !== undefined }))
  } else if (message === "stop") {
    void runtime.dispose().then(() => process.exit(0))
  }
})
// The parent gone (a killed fuzz run): do not outlive it.
process.on("disconnect", () => process.exit(0))

await runtime.runtime()
send({ port: (server.address() as AddressInfo).port })
