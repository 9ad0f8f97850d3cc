/**
 * Named prepared statements (docs/postgres.md, "Prepared statements"; docs/upstream.md, "Named
 * prepared statements"). `@effect/sql-pg` sends every statement unnamed, so the server parses and plans it again
 * each time: for a list page's select of 31 cast columns that was about half of the statement's
 * time on the server. `preparing(pool)` is the
 * same pool seen through a proxy whose connections run each parameterized statement under a
 * name derived from its text, so each connection parses and plans it once. The pool itself and
 * its connections are not changed: a host's own use of them is untouched.
 *
 * Statements without parameters (migrations, `SET LOCAL`, `LISTEN`) keep the simple protocol,
 * which may carry several commands. A connection prepares at most `maxPerConnection` texts; past
 * that a new text runs unnamed, so a stream of distinct texts never grows the server's memory.
 */
import { createHash } from "node:crypto"
import type Pg from "pg"

/** The most statements one connection prepares. @internal */
export const maxPerConnection = 256

// Text -> name. Tender's statement texts are few (dozens per table prefix); a bound all the same.
const names = new Map<string, string>()
const maxNames = 4096

/** A name unique to the text: pg refuses one name for two texts. 7 + 27 characters, within NAMEDATALEN (63). */
export const nameOf = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    name = `tender_${createHash("sha1").update(text).digest("base64url")}`
    if (names.size < maxNames) names.set(text, name)
  }
  return name
}

type Query = (...args: Array<any>) => any

/** What each connection has prepared, by name. */
const preparedOn = new WeakMap<object, Set<string>>()

const namedQuery = (client: Pg.PoolClient): Query =>
  function(this: unknown, ...args: Array<any>) {
    const [text, values, callback] = args
    if (typeof text === "string" && Array.isArray(values) && values.length > 0) {
      let prepared = preparedOn.get(client)
      if (prepared === undefined) preparedOn.set(client, prepared = new Set())
      const name = nameOf(text)
      if (prepared.has(name) || prepared.size < maxPerConnection) {
        prepared.add(name)
        return client.query({ name, text, values }, callback)
      }
    }
    return (client.query as Query)(...args)
  }

/** A proxy of `target` whose `query` is `query` and whose other methods run on `target` itself. */
const withQuery = <A extends object>(target: A, query: Query): A =>
  new Proxy(target, {
    get: (t, property) => {
      if (property === "query") return query
      const value = Reflect.get(t, property, t)
      return typeof value === "function" ? value.bind(t) : value
    }
  })

/**
 * `pool` as `@effect/sql-pg` sees it, whose connections prepare their parameterized statements
 * (above). Everything else (`query`, `end`, `options`, events) is the pool's own.
 *
 * @internal
 */
export const preparing = (pool: Pg.Pool): Pg.Pool => {
  const proxies = new WeakMap<Pg.PoolClient, Pg.PoolClient>()
  const wrap = (client: Pg.PoolClient): Pg.PoolClient => {
    let proxy = proxies.get(client)
    if (proxy === undefined) proxies.set(client, proxy = withQuery(client, namedQuery(client)))
    return proxy
  }
  const connect = (callback?: (err: Error | undefined, client: Pg.PoolClient | undefined, done: (release?: any) => void) => void) =>
    callback === undefined
      ? pool.connect().then(wrap)
      : pool.connect((err, client, done) => callback(err, client === undefined ? undefined : wrap(client), done))
  return new Proxy(pool, {
    get: (t, property) => {
      if (property === "connect") return connect
      const value = Reflect.get(t, property, t)
      return typeof value === "function" ? value.bind(t) : value
    }
  })
}
