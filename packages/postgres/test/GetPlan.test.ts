/**
 * The get by id (docs/performance.md, "A get by the primary key alone"): the statement a get sends names the
 * primary key and nothing else, so no plan but the primary key's can serve it, whatever the
 * table's statistics say. With the merchant and environment in its WHERE clause, the planner took
 * a list index leading with them on a demo table of 10,000 intents not yet analyzed, and walked
 * the merchant's every row to the id (2.6 ms instead of 0.05); which index wins that tie depends
 * on how the table was written, so the statement itself is checked, then explained. The scope is
 * checked on the row: another merchant's or environment's intent reads as missing (4.2).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { PaymentIntent, Storage } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { Fixtures } from "@tender/testing"
import { Effect, Layer, Option } from "effect"
import Pg from "pg"
import { vi } from "vitest"
import { client, dropTables, freshPrefix } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
const scratch = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.orDie(dropTables(prefix))))
const store = PgStorage.layer({ tablePrefix: prefix, directoryCache: false, preparedStatements: false }).pipe(
  Layer.provideMerge(scratch),
  Layer.provideMerge(client)
)

/** The text and values of the statements the driver is asked to run while `effect` runs. */
const sent = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const query = Pg.Client.prototype.query
    const statements: Array<{ text: string; values: ReadonlyArray<unknown> }> = []
    const spy = vi.spyOn(Pg.Client.prototype, "query").mockImplementation(function(this: Pg.Client, ...args: Array<any>) {
      const [first, second] = args
      if (typeof first === "string") statements.push({ text: first, values: Array.isArray(second) ? second : [] })
      else if (first !== null && typeof first === "object" && typeof first.text === "string") statements.push({ text: first.text, values: first.values ?? [] })
      return Reflect.apply(query, this, args)
    })
    const result = yield* Effect.ensuring(effect, Effect.sync(() => spy.mockRestore()))
    return { result, statements }
  })

describeOnPostgres("a get by id on PostgreSQL", () => {
  layer(store, { timeout: 120_000 })((it) => {
    it.effect("4.2 a get reads its row by the primary key, on a table never analyzed, and another merchant's id is not found", () =>
      Effect.gen(function*() {
        const sql = (yield* SqlClient).withoutTransforms()
        const table = `${prefix}payment_intents`
        // No statistics, ever: the planner works from its defaults, as on a table just filled.
        yield* sql`ALTER TABLE ${sql(table)} SET (autovacuum_enabled = false)`
        const scope = Fixtures.freshScope()
        // Written as the adapter writes them, 100 to a commit (a table filled by a bulk INSERT had
        // its plans chosen differently, for this statement and the one before it alike).
        const ids: Array<string> = []
        for (let batch = 0; batch < 100; batch++) {
          const intents = Array.from({ length: 100 }, (_, i) =>
            Fixtures.intent(scope, { createdAt: Fixtures.t0 + batch * 100 + i, updatedAt: Fixtures.t0 + batch * 100 + i }))
          ids.push(...intents.map((i) =>
            i.id
          ))
          yield* Fixtures.commit(intents.map((i) => Storage.Write.insert(PaymentIntent.table, i)))
        }
        const id = ids[5000]!
        const storage = yield* Storage.Storage
        const { result, statements } = yield* sent(storage.get(PaymentIntent.table, scope, id))
        assert.isTrue(Option.isSome(result))
        const get = statements.find((s) => s.text.includes(`"${table}"`))
        assert.isDefined(get, statements.map((s) => s.text).join("\n"))
        assert.match(get!.text, /WHERE id = \$1\s*$/, "the row by its primary key alone")
        assert.deepStrictEqual(get!.values, [id])
        const plan = (yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${get!.text}`, get!.values as Array<any>))
          .map((r) => r["QUERY PLAN"]).join("\n")
        assert.match(plan, new RegExp(`Index Scan using ${prefix}payment_intents_pkey`), plan)
        assert.notMatch(plan, /_(list|country|currency|status)_idx/, plan)
        const other = yield* storage.get(PaymentIntent.table, Fixtures.freshScope(), id)
        assert.isTrue(Option.isNone(other), "4.2 another merchant's intent reads as missing")
        const live = yield* storage.get(PaymentIntent.table, { ...scope, environment: "live" }, id)
        assert.isTrue(Option.isNone(live), "4.2 the other environment's reads as missing")
      }))
  })
})
