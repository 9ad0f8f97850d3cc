/**
 * A TCP proxy in front of the test database that a test can hold, cut and restore: database
 * faults for one test's connections only, never for the shared PostgreSQL server itself (other
 * test files run on it). Not a test file itself.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { connect, createServer, type Server, type Socket } from "node:net"
import { afterAll, beforeAll } from "vitest"
import { runSql, url } from "./database.js"
import { type DemoServer, start, stopDemos } from "./demoServer.js"

interface Pair {
  readonly client: Socket
  upstream: Socket | undefined
  readonly toServer: Array<Buffer>
  readonly toClient: Array<Buffer>
}

export interface Proxy {
  /** `postgres://…` for the proxy: the test database's URL with the proxy's host and port. */
  readonly url: string
  /**
   * Hold: connections are accepted and bytes are taken in both ways, but none is passed on (a
   * database that accepts TCP and never answers; its clients wait).
   */
  readonly hold: () => void
  /**
   * Hold from the first chunk a client sends that contains `text` (a statement): that chunk is
   * held too, so the statement never reaches the server; or, with `deliver`, it is passed on and
   * everything after it held, so the server runs it and its answer is held (a commit that lands
   * while its client hears nothing).
   */
  readonly holdAt: (text: string, options?: { readonly deliver?: boolean }) => void
  /** Pass bytes again, including what was held. */
  readonly release: () => void
  /** Cut: every connection is reset and new ones are reset at once (a database that is down). */
  readonly cut: () => void
  /** Accept and pass connections again after a cut. */
  readonly restore: () => void
  /** How many connections it has accepted so far. */
  readonly accepted: () => number
  readonly close: () => Promise<void>
}

/** A proxy to the database at `databaseUrl`, passing bytes until told otherwise. */
export const makeProxy = async (databaseUrl: string): Promise<Proxy> => {
  const target = new URL(databaseUrl)
  const host = target.hostname
  const port = Number(target.port || "5432")
  const pairs = new Set<Pair>()
  let held = false
  let trigger: { readonly text: string; readonly deliver: boolean } | undefined
  let refusing = false
  let accepted = 0
  // Named prepared statements (docs/postgres.md): a statement's text crosses once per connection,
  // in its Parse message; later runs name it only. Each name seen is kept with its text, so a
  // trigger also matches a chunk that runs a statement by the name of a text containing it.
  const prepared = new Map<string, string>()
  const learn = (d: Buffer) => {
    // A Parse is the name and its text; a Bind names the statement followed by an empty string.
    for (const m of d.toString("latin1").matchAll(/(tender_[A-Za-z0-9_-]{27})\u0000([^\u0000]+)\u0000/g)) prepared.set(m[1]!, m[2]!)
  }
  const matches = (d: Buffer, text: string) => {
    if (d.includes(text)) return true
    for (const [name, statement] of prepared) if (statement.includes(text) && d.includes(name)) return true
    return false
  }

  const open = (pair: Pair) => {
    const upstream = connect(port, host)
    pair.upstream = upstream
    upstream.on("error", () => pair.client.destroy())
    upstream.on("close", () => pair.client.destroy())
    upstream.on("data", (d) => (held ? pair.toClient.push(d) : pair.client.write(d)))
    for (const d of pair.toServer.splice(0)) upstream.write(d)
  }

  const server: Server = createServer((client) => {
    accepted++
    if (refusing) {
      client.resetAndDestroy()
      return
    }
    const pair: Pair = { client, upstream: undefined, toServer: [], toClient: [] }
    pairs.add(pair)
    client.on("error", () => pair.upstream?.destroy())
    client.on("close", () => {
      pair.upstream?.destroy()
      pairs.delete(pair)
    })
    client.on("data", (d: Buffer) => {
      learn(d)
      if (trigger !== undefined && !held && matches(d, trigger.text)) {
        const deliver = trigger.deliver && pair.upstream !== undefined
        trigger = undefined
        held = true
        if (deliver) return pair.upstream!.write(d)
      }
      if (held || pair.upstream === undefined) pair.toServer.push(d)
      else pair.upstream.write(d)
    })
    if (!held) open(pair)
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("proxy has no port")
  const url = new URL(databaseUrl)
  url.hostname = "127.0.0.1"
  url.port = String(address.port)

  return {
    url: url.toString(),
    hold: () => {
      held = true
    },
    holdAt: (text, options = {}) => {
      trigger = { text, deliver: options.deliver === true }
    },
    release: () => {
      held = false
      for (const pair of pairs) {
        if (pair.upstream === undefined) open(pair)
        else for (const d of pair.toServer.splice(0)) pair.upstream.write(d)
        for (const d of pair.toClient.splice(0)) pair.client.write(d)
      }
    },
    cut: () => {
      refusing = true
      for (const pair of pairs) {
        pair.client.resetAndDestroy()
        pair.upstream?.destroy()
      }
      pairs.clear()
    },
    restore: () => {
      refusing = false
    },
    accepted: () => accepted,
    close: () =>
      new Promise<void>((ok) => {
        for (const pair of pairs) {
          pair.client.destroy()
          pair.upstream?.destroy()
        }
        server.close(() => ok())
      })
  }
}

/**
 * The demo server on `prefix`'s tables, reaching PostgreSQL through a proxy the test controls
 * (the shared server itself is never stopped): started before the enclosing `describe`'s tests,
 * stopped after, its tables dropped. Read `proxy` and `server` inside the tests.
 */
export const demoBehindProxy = (prefix: string, env: Record<string, string> = {}) => {
  const demo = {} as { proxy: Proxy; server: DemoServer }
  beforeAll(async () => {
    demo.proxy = await makeProxy(url)
    demo.server = await start({ DATABASE_URL: demo.proxy.url, TENDER_TABLE_PREFIX: prefix, ...env })
  }, 60_000)
  afterAll(async () => {
    await stopDemos("SIGKILL", [prefix])
    await demo.proxy.close()
  })
  return demo
}

/** The ids of the payment intents in `prefix`'s table, read directly (not through the proxy). */
export const storedIntentIds = (prefix: string) =>
  runSql(Effect.gen(function*() {
    const sql = yield* SqlClient
    const rows = yield* sql<{ id: string }>`SELECT id FROM ${sql(`${prefix}payment_intents`)}`
    return rows.map((r) => r.id)
  }))
