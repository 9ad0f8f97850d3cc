/**
 * The demo server (`examples/server`) as a real process, for the tests that need several
 * processes on one database: @tender/repo-test-support's starter, with the processes and table
 * prefixes of this test file recorded for its `afterAll` (`stopDemos`). Not a test file itself.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { type DemoServer, launchDemo, startDemo } from "@tender/repo-test-support"
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { it } from "vitest"
import { dropTables, freshPrefix, runSql, skipReason, url } from "./database.js"

export { type DemoServer, freePort } from "@tender/repo-test-support"

/** Every process started, for the file's `afterAll` to stop. */
const children: Array<ChildProcess> = []
/** Every table prefix handed out by `freshTables`, for the file's `afterAll` to drop. */
const prefixes: Array<string> = []

/** Spawn the demo with `env`, without waiting for it (through npm with `{ npm: true }`). */
export const launch = (env: Record<string, string>, options: { readonly npm?: boolean } = {}): Promise<DemoServer> => launchDemo(env, { children, ...options })

/** Start the demo with `env` and wait until it listens; a failed start throws with its output. */
export const start = (env: Record<string, string>): Promise<DemoServer> => startDemo(env, { children })

/** A demo's environment on `databaseUrl` (the test database by default) under a table prefix of its own, dropped by `stopDemos`. */
export const freshTables = (databaseUrl: string = url) => {
  const prefix = freshPrefix()
  prefixes.push(prefix)
  return { DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefix }
}

/**
 * A demo to be killed mid-work (`kill`), on fresh tables with task leases of 2 s: a restart on
 * its `env` claims what the dead process held soon after.
 */
export const startToKill = async () => {
  const env = { ...freshTables(), TENDER_TASK_LEASE_MS: "2000" }
  return { env, prefix: env.TENDER_TABLE_PREFIX, server: await start(env) }
}

/** SIGKILL `server`'s process: resolves once it has closed. */
export const kill = (server: DemoServer): Promise<void> => {
  const closed = server.child.exitCode !== null ? Promise.resolve() : new Promise<void>((ok) => server.child.once("close", () => ok()))
  server.child.kill("SIGKILL")
  return closed
}

/**
 * What a crash leaves behind besides a dead process: the due tasks under `prefix` claimed by a
 * worker that never completes them, their leases lapsing in 2 s. Answers how many.
 */
export const orphanDueTasks = (prefix: string): Promise<number> =>
  runSql(Effect.gen(function*() {
    const sql = yield* SqlClient
    const claimed = yield* sql`UPDATE ${sql(`${prefix}tasks`)} SET lease_owner = 'killed', attempts = attempts + 1,
      lease_until = now() + interval '2 seconds', version = version + 1
      WHERE status = 'pending' AND due_at <= now() RETURNING id`
    return claimed.length
  }))

/**
 * The file's `afterAll`: stop every demo it started, then drop the tables of `freshTables` and
 * of `more` prefixes. SIGKILL unless the file means a graceful stop: a process still waiting on
 * a frozen database must not outlive the file.
 */
export const stopDemos = async (signal: NodeJS.Signals = "SIGKILL", more: ReadonlyArray<string> = []): Promise<void> => {
  // The next file may run in this worker with this module still loaded: it starts from nothing.
  const stopping = children.splice(0)
  const dropping = [...prefixes.splice(0), ...more]
  delete shared.memory
  delete shared.postgres
  for (const child of stopping) child.kill(signal)
  if (skipReason === undefined) await runSql(Effect.forEach(dropping, dropTables))
}

/**
 * The simulator's slow magic amounts shortened (docs/test-environment.md, "Magic amounts"): no
 * test clock reaches a process, so a slow confirmation or refund settles after 1 s instead of 5
 * and an expiring action ends after 5 s instead of 10 (still long after a walk has confirmed it,
 * however loaded the machine). Confirming a slow payment still answers `processing` (that answer
 * depends on the amount alone); only the wait for what follows is shorter. The SIGKILL tests keep
 * the simulator's own delays: their slow tasks must still be polling when the kill lands.
 */
export const quickSimulator = { TENDER_SIMULATOR_SLOW_MS: "1000", TENDER_SIMULATOR_EXPIRY_MS: "5000" } as const

/** The file's demo on each store, started by the first walk that needs it and shared by the others. */
const shared: { memory?: Promise<DemoServer>; postgres?: Promise<DemoServer> } = {}

/**
 * One walk through the demo by HTTP alone on each store: the in-memory one and PostgreSQL under
 * fresh tables (skipped, saying why, where no database answers). The two walks run at once, and
 * every walk of the file on one store shares one process: a walk makes and reads only its own
 * intents, so neither sees the other's, and the simulator's delays (a slow confirmation, a
 * short expiry; `quickSimulator`) overlap instead of adding up.
 */
export const onEachStore = (
  titles: { readonly memory: string; readonly postgres: string },
  walk: (server: DemoServer) => Promise<void>,
  timeout: number
): void => {
  it.concurrent(titles.memory, async () => walk(await (shared.memory ??= start({ ...quickSimulator, DATABASE_URL: "" }))), timeout)
  if (skipReason !== undefined) it.skip(`skipped on PostgreSQL: ${skipReason}`, () => {})
  else it.concurrent(titles.postgres, async () => walk(await (shared.postgres ??= start({ ...quickSimulator, ...freshTables() }))), timeout)
}
