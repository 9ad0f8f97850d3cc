/**
 * The directory cache's change signal on PostgreSQL (docs/performance.md, "Caches across
 * processes"): a dedicated connection listening on `<prefix>directory`, which migration 0013's
 * triggers notify on every change to merchants, API keys or route availability, and migration
 * 0015's on every change to webhook endpoints, each with the table's name as its payload, which
 * the cache reads to drop only what that table holds (`DirectoryCache.partOf`). The connection
 * is Tender's own `pg.Client`, not the pool's, because it must report its loss (the cache stops
 * serving at once and is dropped whole) and be opened again (the cache serves again only once
 * `LISTEN` has answered).
 */
import type { PgClient } from "@effect/sql-pg"
import { DirectoryCache } from "@tender/core"
import { Redacted } from "effect"
import * as Pg from "pg"

/** How a listening connection (`role`: what it listens for) reaches the server: the pool's own settings. */
export const clientConfig = (config: PgClient.PgClientConfig, role = "directory"): Pg.ClientConfig => ({
  ...(config.url === undefined ? {} : { connectionString: Redacted.value(config.url) }),
  ...(config.host === undefined ? {} : { host: config.host }),
  ...(config.port === undefined ? {} : { port: config.port }),
  ...(config.database === undefined ? {} : { database: config.database }),
  ...(config.username === undefined ? {} : { user: config.username }),
  ...(config.password === undefined ? {} : { password: Redacted.value(config.password) }),
  ...(config.ssl === undefined ? {} : { ssl: config.ssl }),
  ...(config.stream === undefined ? {} : { stream: config.stream as NonNullable<Pg.ClientConfig["stream"]> }),
  application_name: `${config.applicationName ?? "tender"} ${role}`,
  // A server gone without a word is found by TCP keepalive; until then the cache's maxAge bounds.
  keepAlive: true,
  connectionTimeoutMillis: 10_000
})

/** `name` without `prefix`, or undefined when it is not one of the prefix's names. */
export const unprefixed = (name: string | undefined, prefix: string): string | undefined =>
  name !== undefined && name.startsWith(prefix) ? name.slice(prefix.length) : undefined

/**
 * Let `client`'s socket not hold the host's process open by itself: a listening connection is
 * Tender's, not the host's work (docs/embedding.md, "Shutdown"). A custom stream without `unref`
 * is left as it is. `@types/pg` does not declare the driver's `unref`.
 */
export const unref = (client: Pg.Client) => {
  const stream = client.connection.stream as Partial<Pick<import("node:net").Socket, "unref">>
  if (typeof stream.unref === "function") stream.unref()
}

/**
 * Listen on `channel` for as long as the scope lives, feeding `cache` (`DirectoryCache.follow`)
 * the name of each table a notification names (its payload, without `prefix`): core decides
 * what a change to it drops.
 */
export const listen = (config: Pg.ClientConfig, channel: string, cache: DirectoryCache.DirectoryCache, prefix: string) =>
  DirectoryCache.follow(cache, "directory cache listener", (signal) => {
    const client = new Pg.Client(config)
    unref(client)
    client.on("error", signal.lost)
    client.on("end", () => signal.lost(new Error("the directory listening connection ended")))
    client.on("notification", (message) => {
      if (message.channel === channel) signal.change(unprefixed(message.payload, prefix))
    })
    client.connect().then(() => client.query(`LISTEN "${channel}"`)).then(signal.up, signal.lost)
    return () => {
      client.removeAllListeners("end")
      client.end().catch(() => {})
    }
  })
