/**
 * Tender's timers and listening connections never hold the host's process open by themselves
 * (docs/embedding.md, "Shutdown"): a host whose own server is gone (closed, or it never listened:
 * the port was taken) exits without calling `close`, while its workers still ran tasks as long as
 * the server held the event loop. A real child process each (idleHost.ts), on memory and PostgreSQL.
 */
import { cleanEnv, dropPrefixed, freshTablePrefix, type Spawned, spawnProcess, stopProcess, testDatabaseUrl } from "@tender/repo-test-support"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, assert, describe, it } from "vitest"

const script = fileURLToPath(new URL("./idleHost.ts", import.meta.url))
const children: Array<Spawned> = []
const prefixes: Array<string> = []
afterAll(async () => {
  for (const c of children) await stopProcess(c.child, "SIGKILL")
  if (prefixes.length === 0) return
  const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1 })
  for (const p of prefixes) await dropPrefixed(pool, p)
  await pool.end()
})

/** The child's exit code, or "still running" after `boundMillis` (a bound on a hang: the TypeScript loader alone takes seconds). */
const exitOf = async (args: ReadonlyArray<string>, boundMillis = 90_000) => {
  const spawned = spawnProcess(process.execPath, ["--conditions=@tender/source", "--import", "tsx", script, ...args], { env: cleanEnv() })
  children.push(spawned)
  let timer: NodeJS.Timeout | undefined
  const code = await Promise.race([spawned.exited, new Promise<"still running">((ok) => (timer = setTimeout(() => ok("still running"), boundMillis)))])
  clearTimeout(timer)
  return { code, output: spawned.output() }
}

describe("a host process with Tender's workers on exits by itself once its own server is gone", () => {
  it("memory: the workers ran the confirm while the server held the loop, and the process exits without close", async () => {
    const { code, output } = await exitOf(["memory"])
    assert.deepStrictEqual([output.includes("ran while serving"), output.includes("server closed"), code], [true, true, 0], output)
  }, 120_000)

  it("PostgreSQL (a pool that exits when idle): the same, with the LISTEN connections open", async () => {
    const prefix = freshTablePrefix()
    prefixes.push(prefix)
    const { code, output } = await exitOf(["postgres", prefix])
    assert.deepStrictEqual([output.includes("ran while serving"), output.includes("server closed"), code], [true, true, 0], output)
  }, 120_000)
})
