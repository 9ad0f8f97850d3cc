/**
 * Start-up (docs/reliability.md "Start-up"): the demo server as a real
 * process on PostgreSQL that is unreachable, frozen, or slow to answer at start. The port
 * opens only once storage is ready; a database that never gets ready stops the start with
 * one line on stderr and exit code 1; no request is left hanging.
 */
import { basic, demoKey, promptpayNamed } from "@tender/repo-test-support"
import { createServer, type Server, type Socket } from "node:net"
import { afterAll, assert, it } from "vitest"
import { url } from "./database.js"
import { freePort, freshTables, launch, stopDemos } from "./demoServer.js"
import { describeOnPostgres } from "./onPostgres.js"
import { makeProxy } from "./proxy.js"

const auth = basic(demoKey)
const create = promptpayNamed
const cleanups: Array<() => Promise<void>> = []

afterAll(async () => {
  await stopDemos()
  for (const cleanup of cleanups) await cleanup()
})

/** The stderr of a failed start: exactly one line, no stack trace. */
const assertOneLine = (errors: string) => {
  assert.match(errors, /^tender: [^\n]+\n$/, errors)
  assert.notInclude(errors, "    at ")
  assert.notInclude(errors, "SqlError:")
}

/** One create, answered, refused, or still open after `bound` ms ("hung"). */
const attempt = async (base: string, bound: number): Promise<number | "refused" | "hung"> => {
  try {
    const res = await fetch(`${base}/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify(create),
      signal: AbortSignal.timeout(bound)
    })
    await res.arrayBuffer()
    return res.status
  } catch (e) {
    if (e instanceof DOMException && e.name === "TimeoutError") return "hung"
    const code = (e as { cause?: { code?: string } }).cause?.code
    if (code === "ECONNREFUSED" || code === "ECONNRESET") return "refused"
    throw e
  }
}

/** A TCP server that accepts connections and never answers: a frozen database; closed after the test. */
const frozenDatabase = async () => {
  const sockets: Array<Socket> = []
  const frozen: Server = createServer((s) => sockets.push(s))
  await new Promise<void>((ok) => frozen.listen(0, "127.0.0.1", ok))
  cleanups.push(() =>
    new Promise((ok) => {
      for (const s of sockets) s.destroy()
      frozen.close(() => ok())
    })
  )
  return { port: (frozen.address() as { port: number }).port, sockets }
}

describeOnPostgres("demo server start-up on PostgreSQL", () => {
  // Each test starts its own processes on a database (frozen, held or closed) of its own: they run at once.
  it.concurrent("PostgreSQL unreachable at start: one clear line on stderr, exit code 1", async () => {
    const closed = await freePort()
    const server = await launch(freshTables(`postgres://postgres@127.0.0.1:${closed}/test`))
    assert.strictEqual(await server.exited, 1)
    assertOneLine(server.errors())
    assert.include(server.errors(), `cannot start on PostgreSQL store at 127.0.0.1:${closed}/test`)
    assert.include(server.errors(), `connection refused at 127.0.0.1:${closed}`)
    assert.isFalse(server.listening())
  })

  it.concurrent("PostgreSQL frozen at start (accepts TCP, never answers): gives up after TENDER_STARTUP_TIMEOUT_MS with one line, exit code 1", async () => {
    const { port, sockets } = await frozenDatabase()
    const server = await launch({ ...freshTables(`postgres://postgres@127.0.0.1:${port}/test`), TENDER_STARTUP_TIMEOUT_MS: "1500" })
    // Bounded: the start gives up on its own (the bound covers the TypeScript loader's start too).
    const code = await Promise.race([server.exited, new Promise<"still running">((ok) => setTimeout(() => ok("still running"), 25_000))])
    assert.strictEqual(code, 1, server.output())
    assert.isAbove(sockets.length, 0, "the server did reach the frozen database")
    assertOneLine(server.errors())
    assert.include(server.errors(), "not ready within 1500 ms (TENDER_STARTUP_TIMEOUT_MS)")
    assert.isFalse(server.listening())
  })

  it.concurrent("SIGTERM or SIGINT while start-up waits on a frozen database: the server exits at once, started with node or with npm", async () => {
    // The four starts at once, each on a frozen database of its own: a process's own connection
    // tells that it reached the database, and their start-ups overlap instead of adding up.
    const cases = [false, true].flatMap((npm) => (["SIGTERM", "SIGINT"] as const).map((signal) => ({ npm, signal })))
    await Promise.all(cases.map(async ({ npm, signal }) => {
      const { port, sockets } = await frozenDatabase()
      // A start-up timeout far beyond the bound below: only the signal can end the wait.
      const server = await launch({ ...freshTables(`postgres://postgres@127.0.0.1:${port}/test`), TENDER_STARTUP_TIMEOUT_MS: "600000" }, { npm })
      // Generous: the TypeScript loader starts slowly on a loaded machine.
      const connected = Date.now() + 60_000
      while (sockets.length === 0 && Date.now() < connected) await new Promise((r) => setTimeout(r, 50))
      assert.isAbove(sockets.length, 0, `${npm ? "npm" : "node"} ${signal}: the server did not reach the frozen database: ${server.output()}`)
      server.child.kill(signal)
      // `exited` settles once the process tree has closed its output: node itself is gone.
      const code = await Promise.race([server.exited, new Promise<"still running">((ok) => setTimeout(() => ok("still running"), 20_000))])
      assert.notStrictEqual(code, "still running", `${npm ? "npm" : "node"} ${signal}: ${server.output()}`)
      assert.isFalse(server.listening())
      assert.notInclude(server.errors(), "    at ")
    }))
  }, 300_000)

  it.concurrent("requests sent while storage is not ready are refused or answered within a bound, never left hanging; once ready the server serves", async () => {
    const proxy = await makeProxy(url)
    cleanups.push(proxy.close)
    proxy.hold()
    const server = await launch(freshTables(proxy.url))
    // Once the server is waiting on the database (it connected; nothing comes back), clients keep
    // trying for 4 s: each attempt ends within 5 s.
    const connected = Date.now() + 25_000
    while (proxy.accepted() === 0 && Date.now() < connected) await new Promise((r) => setTimeout(r, 50))
    assert.isAbove(proxy.accepted(), 0, server.output())
    const during: Array<number | "refused" | "hung"> = []
    const until = Date.now() + 4_000
    while (Date.now() < until) during.push(await attempt(server.url, 5_000))
    assert.isAbove(during.length, 0)
    assert.notInclude(during, "hung")
    for (const outcome of during) assert.include(["refused", 503], outcome)
    assert.isFalse(server.listening(), server.output())
    // A request sent now, with the database still held, and kept open across the release.
    const pending = attempt(server.url, 20_000)
    proxy.release()
    const deadline = Date.now() + 30_000
    while (!server.listening() && server.child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    assert.isTrue(server.listening(), server.output())
    assert.include(["refused", 503, 201], await pending)
    assert.strictEqual(await attempt(server.url, 10_000), 201)
  })
})
