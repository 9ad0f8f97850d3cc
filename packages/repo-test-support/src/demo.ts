/**
 * The demo server (`examples/server`, what `npm start` runs) as a real process on a free port:
 * the examples' own test, the PostgreSQL tests that need several processes on one database,
 * and the benchmarks start it through here.
 */
import type { ChildProcess } from "node:child_process"
import { resolve } from "node:path"
import { demoEntry } from "./demoBundle.js"
import { freePort } from "./net.js"
import { type Spawned, spawnProcess, waitListening, waitUntil } from "./process.js"

/** The repository's root folder. */
export const repoRoot = resolve(import.meta.dirname, "..", "..", "..")

/** The example server's folder. */
export const demoRoot = resolve(repoRoot, "examples", "server")

/** The demo seed's test key (examples/server/seed.json), the one the README's curl uses. */
export const demoKey = { public: "pk_test_demo4f8Kq2Lm9XwZ", secret: "sk_test_demo7Hn3Rt5Vb8Yc2Pq6Jw" } as const

/** A demo process just spawned: it may be starting, listening, or gone. */
export interface DemoServer extends Spawned {
  readonly port: number
  readonly url: string
  /** Whether its banner says it listens. */
  readonly listening: () => boolean
}

export interface LaunchOptions {
  /** The entry and loader arguments after `node` (default: the test run's bundle of the sources, else the sources through tsx: demoBundle.ts). */
  readonly args?: ReadonlyArray<string>
  /** The whole environment (default: this process's), to which `env` and PORT are added. */
  readonly baseEnv?: Record<string, string | undefined>
  /** Where every spawned process is recorded, for the caller's `afterAll` to stop. */
  readonly children?: Array<ChildProcess>
  /**
   * Start it through npm, as an operator does (`npm run dev -w @tender/example-server`, the
   * sources, no build needed), so a signal to the process started goes through npm as in production.
   */
  readonly npm?: boolean
}

/** The variables that choose the demo's store: a spawned demo takes them from its caller only, never from the suite. */
const storeVariables = ["DATABASE_URL", "MONGODB_URL", "TENDER_TABLE_PREFIX"] as const

/**
 * The environment of a demo spawned with `env` on `port`: the base environment (this process's)
 * without the suite's store, so a demo runs in memory unless its caller names a database, and a
 * caller that names one names a table prefix of its own too (which its file drops). The suite's
 * `DATABASE_URL` under the demo's default prefix `tender_` would be shared by every demo of the
 * run, which would claim one another's tasks and leave their tables behind.
 */
export const demoEnvironment = (
  env: Record<string, string>,
  port: number,
  baseEnv: Record<string, string | undefined> = process.env
): Record<string, string | undefined> => {
  const base = { ...baseEnv }
  for (const name of storeVariables) delete base[name]
  const environment: Record<string, string | undefined> = { ...base, PORT: String(port), ...env }
  const onDatabase = (environment["DATABASE_URL"] ?? "") !== "" || (environment["MONGODB_URL"] ?? "") !== ""
  if (onDatabase && (environment["TENDER_TABLE_PREFIX"] ?? "") === "") {
    throw new Error(
      "launchDemo: a demo on a database needs a TENDER_TABLE_PREFIX of its own (freshTablePrefix) that its file drops; the default prefix tender_ would be shared with every other demo of the run"
    )
  }
  return environment
}

/** Spawn the demo with `env` on a free port, without waiting for it. */
export const launchDemo = async (env: Record<string, string> = {}, options: LaunchOptions = {}): Promise<DemoServer> => {
  const port = await freePort()
  const environment = demoEnvironment(env, port, options.baseEnv)
  const spawned = options.npm === true
    ? spawnProcess("npm", ["run", "dev", "--silent", "-w", "@tender/example-server"], { cwd: resolve(demoRoot, "..", ".."), env: environment })
    : spawnProcess(process.execPath, options.args ?? demoEntry(), { cwd: demoRoot, env: environment })
  options.children?.push(spawned.child)
  return { ...spawned, port, url: `http://127.0.0.1:${port}`, listening: () => spawned.output().includes("listening on") }
}

/** Start the demo with `env` and wait until it listens; a failed start throws with its output. */
export const startDemo = async (env: Record<string, string> = {}, options: LaunchOptions = {}): Promise<DemoServer> => {
  for (let attempt = 1;; attempt++) {
    const server = await launchDemo(env, options)
    try {
      await waitListening(server, "example server")
      return server
    } catch (e) {
      // The free port was taken between the probe and the demo's listen (another process's
      // outgoing connection may draw it too): another port, a few times, never another error.
      if (attempt >= 3 || !server.output().includes("EADDRINUSE")) throw e
    }
  }
}

/** Launch the demo and wait until it listens or exits (a start meant to fail is not an error here). */
export const runDemo = async (env: Record<string, string> = {}, options: LaunchOptions = {}): Promise<DemoServer> => {
  const server = await launchDemo(env, options)
  // 60 s as waitListening's: a bound on a hung start on a loaded machine, not a timing check.
  await waitUntil(server, server.listening, 60_000)
  return server
}
