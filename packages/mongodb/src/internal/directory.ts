/**
 * The directory cache on MongoDB (docs/performance.md, "Caches across processes"): one change
 * stream on the database, filtered to the collections the cache reads (`DirectoryCache.watched`),
 * tells the process's `DirectoryCache` of every change and the collection it changed. The cache serves only while the stream is open; an
 * error or close drops it whole and the stream is opened again. Needs a replica set or sharded
 * cluster (change streams); otherwise no cache.
 *
 * When is it open? The driver's `ChangeStream` (mongodb 7.9, `change_stream.js`) forwards only
 * `resumeTokenChanged`, `end` and `close` from its cursor, and emits `change` and `error` itself;
 * the cursor's `init` (its aggregate answered) is never forwarded. `resumeTokenChanged` is: the
 * cursor sets its resume token from the first answer's `postBatchResumeToken` (an empty first
 * batch, as a new stream's is) or from the first change, so it is the first sign the stream is
 * open on the server. It comes again with each later answer; being up again changes nothing.
 */
import { DirectoryCache } from "@tender/core"
import { ChangeStream, type ChangeStreamDocument, type Db, type Document } from "mongodb"

/** The change stream's pipeline: only the directory's collections. */
export const pipeline = (collections: ReadonlyArray<string>): ReadonlyArray<Document> => [
  { $match: { "ns.coll": { $in: [...collections] } } }
]

/**
 * Whether an event of the stream changes what the cache holds. Writes, deletes, a collection
 * dropped or renamed all do; so does an event of a kind this code does not know (safe side).
 */
export const invalidates = (event: Pick<ChangeStreamDocument, "operationType">): boolean =>
  event.operationType !== "createIndexes" && event.operationType !== "dropIndexes" && event.operationType !== "create"

/**
 * Whether the stream ends with this event: after `invalidate` (its collection dropped or renamed,
 * or the database dropped) MongoDB closes it, so the listener opens a new one.
 */
export const ends = (event: Pick<ChangeStreamDocument, "operationType">): boolean =>
  event.operationType === "invalidate" || event.operationType === "dropDatabase"

/**
 * The collection an event changed, without `prefix` (undefined when it names none, as a
 * database dropped does): core decides what a change to it drops (`DirectoryCache.partOf`).
 */
export const changed = (event: ChangeStreamDocument | { readonly ns?: unknown }, prefix: string): string | undefined => {
  const ns = "ns" in event ? event.ns as { readonly coll?: unknown } | undefined : undefined
  return typeof ns?.coll === "string" && ns.coll.startsWith(prefix) ? ns.coll.slice(prefix.length) : undefined
}

/**
 * Watch the collections the cache reads (`DirectoryCache.watched`, under `prefix`) for as long as
 * the scope lives, feeding `cache` (`DirectoryCache.follow`).
 */
export const listen = (db: Db, prefix: string, cache: DirectoryCache.DirectoryCache) =>
  DirectoryCache.follow(cache, "directory cache change stream", (signal) => {
    const stream = db.watch([...pipeline(DirectoryCache.watched.map((name) => `${prefix}${name}`))])
    stream.on(ChangeStream.RESUME_TOKEN_CHANGED, signal.up)
    stream.on(ChangeStream.CHANGE, (event) => {
      if (invalidates(event)) signal.change(changed(event, prefix))
      if (ends(event)) signal.lost(new Error("the directory change stream was invalidated"))
    })
    stream.on(ChangeStream.ERROR, signal.lost)
    stream.on(ChangeStream.CLOSE, () => signal.lost(new Error("the directory change stream closed")))
    return () => {
      stream.removeAllListeners(ChangeStream.CLOSE)
      stream.close().catch(() => {})
    }
  })
