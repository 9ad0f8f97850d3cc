/** A server process a bench drives: started on a free port from the repository root, stopped with SIGINT. */
import { freePort, spawnProcess, stopProcess, waitListening } from "@tender/repo-test-support"
import type { ChildProcess } from "node:child_process"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")

export interface Server {
  readonly url: string
  readonly child: ChildProcess
}

export const startServer = async (entry: string, env: Record<string, string>, nodeArgs: Array<string> = []): Promise<Server> => {
  const port = await freePort()
  // The demo server runs as `npm start` runs it, built JavaScript (the bench scripts build
  // first); a ceiling server is a TypeScript file of the bench itself, run through tsx.
  const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : []
  const server = spawnProcess(process.execPath, [...nodeArgs, ...loader, entry], { cwd: root, env: { ...process.env, ...env, PORT: String(port) } })
  await waitListening(server, entry)
  return { url: `http://127.0.0.1:${port}`, child: server.child }
}

export const stopServer = (server: Server) => stopProcess(server.child, "SIGINT")
