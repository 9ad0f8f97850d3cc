/**
 * Loaded into the demo server by bench/memory/upload-memory.ts (`node --expose-gc --import`): answers
 * the bench's messages on the IPC channel. `measure` runs two full collections and sends
 * `process.memoryUsage()`; `snapshot` writes a heap snapshot and sends its path. Not part of
 * any server a host runs.
 */
import { writeHeapSnapshot } from "node:v8"

const gc = globalThis.gc ?? (() => {})

process.on("message", (message) => {
  if (message === "measure") {
    gc()
    gc()
    process.send({ kind: "measure", usage: process.memoryUsage() })
  } else if (message === "snapshot") {
    gc()
    process.send({ kind: "snapshot", path: writeHeapSnapshot() })
  }
})
// The channel must not hold the server open by itself (SIGINT still stops it as the demo stops).
process.channel?.unref()
