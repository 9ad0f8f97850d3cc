/**
 * The demo server (`examples/server`) as a real process, for the tests that need several
 * processes on one database: @tender/test-support's starter, with the processes of this test
 * file recorded in `children` for its `afterAll` to stop. Not a test file itself.
 */
import { type DemoServer, launchDemo, startDemo } from "@tender/test-support"
import type { ChildProcess } from "node:child_process"

export { type DemoServer, freePort } from "@tender/test-support"

/** Every process started, for the file's `afterAll` to stop. */
export const children: Array<ChildProcess> = []

/** Spawn the demo with `env`, without waiting for it (through npm with `{ npm: true }`). */
export const launch = (env: Record<string, string>, options: { readonly npm?: boolean } = {}): Promise<DemoServer> =>
  launchDemo(env, { children, ...options })

/** Start the demo with `env` and wait until it listens; a failed start throws with its output. */
export const start = (env: Record<string, string>): Promise<DemoServer> => startDemo(env, { children })
