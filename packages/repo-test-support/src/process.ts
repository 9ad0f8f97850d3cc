/**
 * Child processes a test or benchmark starts: spawned with their output kept, waited on until
 * they say they listen (or exit, or run out of time), stopped at the end.
 */
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process"

/** A process just spawned: it may be starting, ready, or gone. */
export interface Spawned {
  readonly child: ChildProcess
  /** Everything it wrote, stdout and stderr interleaved. */
  readonly output: () => string
  /** What it wrote to stderr alone. */
  readonly errors: () => string
  /** Its exit code, once it exits. */
  readonly exited: Promise<number | null>
}

/** Spawn `command` with `args`, keeping what it writes. */
export const spawnProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: Omit<SpawnOptions, "stdio"> = {}
): Spawned => {
  const child = spawn(command, [...args], { ...options, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => {
    out += d
    err += d
  })
  const exited = new Promise<number | null>((ok) => child.once("close", (code) => ok(code)))
  return { child, output: () => out, errors: () => err, exited }
}

/**
 * Wait until `ready()` holds, polling; false when the process exited or `timeoutMs` passed
 * first (a bound on a hung start, not a timing assertion).
 */
export const waitUntil = async (spawned: Spawned, ready: () => boolean, timeoutMs = 30_000, pollMillis = 50): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs
  while (!ready()) {
    if (spawned.child.exitCode !== null || spawned.child.signalCode !== null || Date.now() > deadline) return false
    await new Promise((r) => setTimeout(r, pollMillis))
  }
  return true
}

/** Wait until the process prints its "listening on" banner; throws with its output when it does not. */
// 60 s: the TypeScript loader and a first migration take tens of seconds on a loaded 2-core machine.
export const waitListening = async (spawned: Spawned, what: string, timeoutMs = 60_000): Promise<void> => {
  if (!(await waitUntil(spawned, () => spawned.output().includes("listening on"), timeoutMs))) {
    throw new Error(`${what} did not start:\n${spawned.output()}`)
  }
}

/** Stop a process with `signal` and wait until it has exited (at once if it already has). */
export const stopProcess = (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((ok) => {
      child.once("close", () => ok())
      child.kill(signal)
    })

/** The environment without the test runner's own (its source condition, npm's and Vitest's variables), plus `extra`. */
export const cleanEnv = (extra: Record<string, string> = {}, drop: ReadonlyArray<string> = []): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === "NODE_OPTIONS" || drop.includes(k) || k.startsWith("npm_") || k.startsWith("VITEST")) continue
    env[k] = v
  }
  return { ...env, ...extra }
}
