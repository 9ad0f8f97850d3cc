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

/** A demo process just spawned: it may be starting, listening, or gone. */
export interface Launched extends DemoServer {
  readonly port: number
  /** What it wrote to stderr alone. */
  readonly errors: () => string
  /** Its exit code, once it exits. */
  readonly exited: Promise<number | null>
  /** Whether its banner says it listens. */
  readonly listening: () => boolean
}

/**
 * Spawn the demo with `env`, without waiting for it: node itself, or with `npm`, as an operator
 * does (`npm run dev -w @tender/example-server`, the sources, no build needed), so a signal to
 * the process started goes through npm as it does in production.
 */
export const launch = async (env: Record<string, string>, options: { readonly npm?: boolean } = {}): Promise<Launched> => {
  const port = await freePort()
  const child = options.npm === true
    ? spawn("npm", ["run", "dev", "--silent", "-w", "@tender/example-server"], {
      cwd: resolve(exampleRoot, "..", ".."),
      env: { ...process.env, PORT: String(port), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    : spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: exampleRoot,
      env: { ...process.env, PORT: String(port), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
  children.push(child)
  let out = ""
  let err = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => {
    out += d
    err += d
  })
  const exited = new Promise<number | null>((ok) => child.once("close", (code) => ok(code)))
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    errors: () => err,
    exited,
    listening: () => out.includes("listening on")
  }
}

/** Start the demo with `env` and wait until it listens; a failed start throws with its output. */
export const start = async (env: Record<string, string>): Promise<DemoServer> => {
  const server = await launch(env)
  const deadline = Date.now() + 30_000
  while (!server.listening()) {
    if (server.child.exitCode !== null || Date.now() > deadline) throw new Error(`example server did not start:\n${server.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return server
}
