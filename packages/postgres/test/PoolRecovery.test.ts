/**
 * Tender's own pool after its server vanished without a word (docs/postgres.md, "High
 * availability"): the address in front of the test database (address.ts) freezes, so every new
 * connection is taken and never answered, as a powered-off host's or a partitioned network's
 * would be, and then moves back to a server that answers, as a failover moves it. The calls
 * meanwhile answer 503 at the statement timeout; once the address leads to a server again, the
 * next calls are served, with no restart, whatever the connections begun while it was dark do.
 */
import { assert, it } from "@effect/vitest"
import { PaymentIntent, Storage, StorageError } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Fixtures } from "@tender/testing"
import { Effect, Exit, Layer } from "effect"
import { type Address, address } from "./address.js"
import { dropTables, freshPrefix, runSql, url } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
/** Short, so the test is quick: every call answers within it. */
const statementTimeoutMillis = 300

describeOnPostgres("Tender's pool when its server vanishes and the address moves", () => {
  it.live(
    "D1 connections begun while the server was dark give their place in the pool back: calls answer 503 meanwhile, and are served once the address leads to a server again",
    () =>
      Effect.gen(function*() {
        const server = new URL(url)
        const front: Address = yield* Effect.acquireRelease(
          Effect.promise(() => address(Number(server.port || "5432"))),
          (a) => Effect.promise(() => a.close())
        )
        yield* Effect.addFinalizer(() => Effect.promise(() => runSql(dropTables(prefix))))
        const through = new URL(url)
        through.hostname = "127.0.0.1"
        through.port = String(front.port)
        const store = yield* Layer.build(PgStorage.layerFromUrl({
          url: through.toString(),
          tablePrefix: prefix,
          statementTimeout: statementTimeoutMillis,
          // Two connections, both to be caught connecting while the address is dark.
          maxConnections: 2,
          directoryCache: false
        }))
        const scope = Fixtures.freshScope()
        const intent = Fixtures.intent(scope)
        const get = Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, scope, intent.id)).pipe(Effect.provide(store), Effect.exit)
        yield* Fixtures.commit([Storage.Write.insert(PaymentIntent.table, intent)]).pipe(Effect.provide(store))

        // Dark: the pool's connections are reset, and the new ones it opens are never answered.
        front.freeze()
        const dark = yield* Effect.all([get, get, get, get], { concurrency: "unbounded" })
        for (const exit of dark) {
          assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof StorageError.StorageUnavailable, String(exit))
        }

        // The address leads to a server again; the connections begun in the dark are never answered.
        front.moveTo(Number(server.port || "5432"))
        let served = yield* get
        // A bound on a hang (each call answers within the statement timeout), not a measure.
        for (let i = 0; i < 100 && Exit.isFailure(served); i++) served = yield* get
        assert.isTrue(Exit.isSuccess(served), `the pool never served again: ${String(served)}`)
      }).pipe(Effect.scoped),
    60_000
  )
})
