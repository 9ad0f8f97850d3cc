/**
 * A process's cache of the merchant directory (credentials with their merchant, the host's word
 * on routes, each merchant's enabled webhook endpoints), for storage adapters shared by several
 * processes (docs/performance.md, "Caches across processes"). The adapter feeds it the store's
 * change signal (PostgreSQL `LISTEN`, MongoDB change streams): `invalidate` on every change,
 * `connected(false)` when the signal is lost and `connected(true)` once it is listening again. While disconnected nothing is cached and
 * every read goes to the store, so a change is never missed; every entry also expires after
 * `maxAgeMillis`, the bound that holds whatever happens to the signal.
 *
 * Credentials are cached whether the key exists or not, in one bounded LRU: a second request
 * with the same public key costs the same whether it exists (D2, the time of a 401 must not
 * tell which keys exist), and no stream of random keys grows the process's memory.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schedule } from "effect"
import * as Background from "../runtime/Background.js"
import type { ListQuery, Write } from "../storage/Storage.js"
import { Storage } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import type { StoredRecord } from "../storage/Table.js"
import * as WebhookEndpoint from "../webhooks/WebhookEndpoint.js"
import type { Availability, Credentials } from "./Merchants.js"
import { Merchants } from "./Merchants.js"

/** @since 0.1.0 @category models */
export interface DirectoryCacheOptions {
  /** The most an entry is served after it was read, whatever the change signal does. Default 5,000 ms. */
  readonly maxAgeMillis?: number | undefined
  /** The most credentials kept (least recently used dropped first). Default 10,000. */
  readonly maxEntries?: number | undefined
}

/** @since 0.1.0 @category models */
export interface DirectoryCache {
  /** The credentials of `publicKey`, from the cache or `load` (whose answer is then kept). */
  readonly credentials: (
    publicKey: string,
    load: Effect.Effect<Option.Option<Credentials>, StorageError>
  ) => Effect.Effect<Option.Option<Credentials>, StorageError>
  /** The host's word on routes, from the cache or `load`. */
  readonly availability: (load: Effect.Effect<Availability, StorageError>) => Effect.Effect<Availability, StorageError>
  /**
   * The enabled webhook endpoints of one merchant and environment (`key` names them and the
   * query), from the cache or `load`: what every create reads to write its deliveries.
   */
  readonly endpoints: (
    key: string,
    load: Effect.Effect<ReadonlyArray<StoredRecord>, StorageError>
  ) => Effect.Effect<ReadonlyArray<StoredRecord>, StorageError>
  /**
   * Drop what changed: everything (a notification of the directory, or a write by this process),
   * or with `"endpoints"` only the webhook endpoints (a change to an endpoint says nothing of keys
   * or routes, and an endpoint's failure state changes as its deliveries fail and recover).
   */
  readonly invalidate: (what?: Part) => void
  /** The change signal is up (`true`, cache from now on) or lost (`false`, drop and bypass). */
  readonly connected: (up: boolean) => void
  /** How many credentials are held (for tests and metrics). */
  readonly size: () => number
}

/** A part of the cache that changes on its own: `"endpoints"`, the webhook endpoints. @since 0.1.0 @category models */
export type Part = "endpoints"

/**
 * What the cache holds is read from these stores (tables or collections, named without an
 * adapter's prefix): a store's change signal reports a change to any of them, naming it
 * (`Signal.change`), and the cache decides what the change drops (`partOf`). The adapter knows
 * no table of its own; a table the cache comes to read is one more name here.
 *
 * @since 0.1.0 @category constants
 */
export const watched: ReadonlyArray<string> = ["merchants", "api_keys", "route_availability", WebhookEndpoint.table.name]

/**
 * What a change to the store `name` (without prefix) drops: the webhook endpoints alone for a
 * change to their table (an endpoint's failure state changes as its deliveries fail and
 * recover, and says nothing of keys or routes), everything for any other or an unnamed change.
 *
 * @since 0.1.0
 */
export const partOf = (name: string | undefined): Part | undefined => name === WebhookEndpoint.table.name ? "endpoints" : undefined

/** The default bound on an entry's age. @since 0.1.0 @category constants */
export const defaultMaxAgeMillis = 5_000

interface Entry<A> {
  readonly value: A
  readonly at: number
}

/**
 * A cache that starts disconnected: it caches only once the adapter reports its signal up.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (options: DirectoryCacheOptions = {}): DirectoryCache => {
  const maxAge = options.maxAgeMillis ?? defaultMaxAgeMillis
  const maxEntries = Math.max(1, options.maxEntries ?? 10_000)
  const credentials = new Map<string, Entry<Option.Option<Credentials>>>()
  let availability: Entry<Availability> | undefined
  const endpoints = new Map<string, Entry<ReadonlyArray<StoredRecord>>>()
  let up = false
  // Bumped by every invalidation, of a part or of the whole: a read that began before one must
  // not store what it read (one counter for both is only more cautious).
  let generation = 0
  const invalidate = (what?: Part) => {
    generation++
    endpoints.clear()
    if (what === "endpoints") return
    credentials.clear()
    availability = undefined
  }
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  const fresh = <A>(entry: Entry<A> | undefined, t: number): entry is Entry<A> => entry !== undefined && t - entry.at < maxAge
  /** `load`, keeping its answer (through `keep`) only if nothing changed while it ran. */
  const through = <A>(load: Effect.Effect<A, StorageError>, keep: (entry: Entry<A>) => void) =>
    Effect.flatMap(now, (t) => {
      const before = generation
      return Effect.tap(load, (value) => Effect.sync(() => up && generation === before && keep({ value, at: t })))
    })
  /** `key` of `map` from the map while fresh, else from `load`; least recently used dropped past `maxEntries`. */
  const lru = <A>(map: Map<string, Entry<A>>, key: string, load: Effect.Effect<A, StorageError>) =>
    Effect.flatMap(now, (t) => {
      const hit = up ? map.get(key) : undefined
      if (fresh(hit, t)) {
        // Most recently used goes last: the first key in the map is the one to drop.
        map.delete(key)
        map.set(key, hit)
        return Effect.succeed(hit.value)
      }
      return through(load, (entry) => {
        map.delete(key)
        map.set(key, entry)
        if (map.size > maxEntries) map.delete(map.keys().next().value as string)
      })
    })
  return {
    credentials: (publicKey, load) => lru(credentials, publicKey, load),
    endpoints: (key, load) => lru(endpoints, key, load),
    availability: (load) =>
      Effect.flatMap(now, (t) => {
        const hit = up ? availability : undefined
        return fresh(hit, t) ? Effect.succeed(hit.value) : through(load, (entry) => void (availability = entry))
      }),
    invalidate,
    connected: (isUp) => {
      invalidate()
      up = isUp
    },
    size: () => credentials.size
  }
}

/**
 * `merchants` with its two per-request reads (`findCredentials`, `findAvailability`) served from
 * `cache`, and every write clearing this process's cache as soon as it is done (the other
 * processes hear of it through the adapter's change signal).
 *
 * @since 0.1.0 @category constructors
 */
export const cached = (merchants: Merchants["Type"], cache: DirectoryCache): Merchants["Type"] => {
  const clears = <A, E>(write: Effect.Effect<A, E>) => Effect.ensuring(write, Effect.sync(cache.invalidate))
  return Merchants.of({
    ...merchants,
    // The load is made only on a miss: a store may build its statement when the effect is made.
    findCredentials: (publicKey) => cache.credentials(publicKey, Effect.suspend(() => merchants.findCredentials(publicKey))),
    findAvailability: cache.availability(merchants.findAvailability),
    putMerchant: (merchant) => clears(merchants.putMerchant(merchant)),
    putApiKey: (key) => clears(merchants.putApiKey(key)),
    revokeApiKey: (keyId, at) => clears(merchants.revokeApiKey(keyId, at)),
    revokeSeededKeysExcept: (keep, at) => clears(merchants.revokeSeededKeysExcept(keep, at)),
    setAvailability: (target, available) => clears(merchants.setAvailability(target, available))
  })
}

/**
 * `storage` with the read every create makes of its merchant's enabled webhook endpoints
 * (`WebhookEndpoint.subscribed`) served from `cache`, and every commit that writes an endpoint
 * (create, delete, enable, auto-disable, secret rotation, its failure state) clearing
 * this process's endpoints as soon as it is done, as `cached` does for merchants. Every other
 * read and write goes to `storage` unchanged.
 *
 * @since 0.1.0 @category constructors
 */
export const cachedStorage = (storage: Storage["Type"], cache: DirectoryCache): Storage["Type"] => {
  const clears = Effect.sync(() => cache.invalidate("endpoints"))
  return Storage.of({
    ...storage,
    list: (table, query) =>
      table.name === WebhookEndpoint.table.name && isSubscribed(query)
        ? cache.endpoints(
          `${query.merchantId}\u0000${query.environment}\u0000${query.limit}`,
          // Made only on a miss: PostgreSQL builds the list statement when the effect is made, and
          // every create asks (bench:profile, issue 44: some 30 µs a create on a hit).
          Effect.suspend(() => storage.list(table, query))
        ) as Effect.Effect<ReadonlyArray<any>, StorageError>
        : storage.list(table, query),
    commit: (writes) => writes.some(writesEndpoint) ? Effect.ensuring(storage.commit(writes), clears) : storage.commit(writes)
  })
}

/** The two services a store shared by several processes puts behind the cache. @since 0.1.0 @category models */
export interface Cacheable {
  readonly storage: Storage["Type"]
  readonly merchants: Merchants["Type"]
}

/**
 * A store's `storage` and `merchants` behind one cache (`cached`, `cachedStorage`) that `listen`
 * keeps fed with the store's change signal for as long as the scope lives (`follow`): how every
 * adapter wires it, so none copies it. With no signal (`listen` undefined: a store that cannot
 * report changes) or `options` false, both are returned as they are and every read goes to the store.
 *
 * @since 0.1.0 @category constructors
 */
export const wire = <E = never, R = never>(
  services: Cacheable,
  options: DirectoryCacheOptions | false | undefined,
  listen: ((cache: DirectoryCache) => Effect.Effect<unknown, E, R>) | undefined
): Effect.Effect<Cacheable, E, R> => {
  if (listen === undefined || options === false) return Effect.succeed(services)
  const cache = make(options)
  return Effect.as(listen(cache), { storage: cachedStorage(services.storage, cache), merchants: cached(services.merchants, cache) })
}

/** The query of `WebhookEndpoint.subscribed`, and no other: enabled endpoints of a scope, no window. */
const isSubscribed = (query: ListQuery<any>): boolean => {
  const where = query.where ?? {}
  const keys = Object.keys(where).filter((k) => where[k] !== undefined)
  return keys.length === 1 && where["status"] === "enabled" && query.after === undefined &&
    query.createdAfter === undefined && query.createdBefore === undefined
}

const writesEndpoint = (write: Write): boolean => (write._tag === "Insert" || write._tag === "Update") && write.table.name === WebhookEndpoint.table.name

/** What a change signal reports to the cache (`follow`). @since 0.1.0 @category models */
export interface Signal {
  /** Listening: changes from now on will be reported. */
  readonly up: () => void
  /** The store `name` of `watched` changed (no name: something changed); the cache drops what it read from it (`partOf`). */
  readonly change: (name?: string) => void
  /** The signal is lost: the cache stops serving until a new one is up. */
  readonly lost: (error: unknown) => void
}

/**
 * Keep `cache` fed by a change signal for as long as the scope lives: `open` starts one (a
 * listening connection, a change stream) and returns how to close it; after a loss the cache
 * serves nothing and a new one is opened (100 ms, doubling, at most `retryMillis` apart).
 *
 * @since 0.1.0 @category constructors
 */
export const follow = (cache: DirectoryCache, what: string, open: (signal: Signal) => () => void, retryMillis = 5_000) =>
  Effect.async<never, Error>((resume) => {
    let over = false
    let close = () => {}
    const lost = (error: unknown) => {
      if (over) return
      over = true
      cache.connected(false)
      close()
      resume(Effect.fail(error instanceof Error ? error : new Error(String(error))))
    }
    close = open({ up: () => over || cache.connected(true), change: (name) => cache.invalidate(partOf(name)), lost })
    return Effect.sync(() => {
      over = true
      cache.connected(false)
      close()
    })
  }).pipe(
    Effect.tapError((error) => Effect.logDebug(`tender: ${what} lost; reading the store until it is back`, error.message)),
    Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced(retryMillis)))),
    Effect.forkScoped,
    // Its retries never hold the host's process open (Background).
    Background.unrefTimers
  )
