/**
 * The demo server (`examples/server`) as a real process, for the tests that need several
 * processes on one database. Not a test file itself.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { resolve } from "node:path"

const exampleRoot = resolve(import.meta.dirname, "..", "..", "..", "examples", "server")

/** A port nothing listens on now. */
export const freePort = () =>
  new Promise<number>((ok, fail) => {
    const srv = createServer()
    srv.once("error", fail)
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      srv.close(() => (typeof address === "object" && address !== null ? ok(address.port) : fail(new Error("no port"))))
    })
  })

/** A started demo server. */
export interface DemoServer {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
}

/** Every process started, for the file's `afterAll` to stop. */
export const children: Array<ChildProcess> = []

/** Start the demo with `env` and wait until it listens; a failed start throws with its output. */
export const start = async (env: Record<string, string>): Promise<DemoServer> => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: exampleRoot,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const deadline = Date.now() + 30_000
  while (!out.includes("listening on")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`example server did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { url: `http://127.0.0.1:${port}`, child, output: () => out }
}
