/**
 * Migration 0024 (D13): merchants stored before it keep their rows and accounts, their account
 * ids move into the key table that makes them unique across merchants, and from then on the
 * database refuses an id another merchant holds.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Merchants } from "@tender/core"
import { PgMigrations, PgStorage } from "@tender/postgres"
import { Effect, Exit, Option } from "effect"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, migratedUpTo, runSql, skipReason } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
afterAll(() => (skipReason === undefined ? runSql(dropTables(prefix)) : undefined))

/** The schema as the version before 0024 left it. */
const previousSchema = migratedUpTo(prefix, 22)

const account = (id: string) => ({ id, provider: "stripe", environment: "test", credentials: `tv1.k1.${id}` }) as const

describeOnPostgres("PgMigrations 0024: provider account ids", () => {
  it.layer(client, { timeout: 60_000 })((it) => {
    it.effect("D13 merchants stored before 0024 keep their rows and accounts; their ids become unique, the first merchant keeping an id two held", () =>
      Effect.gen(function*() {
        yield* previousSchema
        const sql = yield* SqlClient
        const put = (id: string, accounts: ReadonlyArray<ReturnType<typeof account>>) =>
          sql`INSERT INTO ${sql(`${prefix}merchants`)} (id, name, allowed_checkout_modes, routes, fees, settlement_delay_days, provider_accounts)
            VALUES (${id}, ${`Shop ${id}`}, '["hosted"]', '[]', '{}', 2, ${JSON.stringify(accounts)}::jsonb)`
        yield* put("mch_a", [account("acct_1"), account("acct_2")])
        // A race before 0024 left one id with two merchants.
        yield* put("mch_b", [account("acct_2"), account("acct_3")])
        yield* put("mch_c", [])
        const ran = yield* PgMigrations.run({ tablePrefix: prefix })
        assert.include(ran.map(([, name]) => name), "provider_account_ids")
        // Since 0028 the key table is `provider_accounts`, the keys of `Merchants.accountTable`.
        const keyed = yield* sql<{ id: string; merchant_id: string }>`SELECT id, merchant_id FROM ${sql(`${prefix}provider_accounts`)} ORDER BY id`
        assert.deepStrictEqual(keyed.map((r) => [r.id, r.merchant_id]), [["acct_1", "mch_a"], ["acct_2", "mch_a"], ["acct_3", "mch_b"]])

        const { merchants } = yield* PgStorage.make({ tablePrefix: prefix, directoryCache: false })
        const a = yield* merchants.findMerchant("mch_a")
        const stored = Option.getOrThrow(a)
        assert.deepStrictEqual([stored.name, stored.settlementDelayDays, stored.providerAccounts], ["Shop mch_a", 2, [account("acct_1"), account("acct_2")]])
        assert.deepStrictEqual(Option.map(yield* merchants.findMerchant("mch_c"), (m) => m.providerAccounts), Option.some(undefined))
        // Written again, a merchant still holding another's id is refused and left as it was.
        const b = Option.getOrThrow(yield* merchants.findMerchant("mch_b"))
        const refused = yield* Effect.exit(merchants.putMerchant({ ...b, name: "renamed" }))
        assert.isTrue(Exit.isFailure(refused) && Exit.causeOption(refused).pipe(Option.exists((c) => String(c).includes("UniqueViolation"))))
        assert.strictEqual(Option.getOrThrow(yield* merchants.findMerchant("mch_b")).name, "Shop mch_b")
        // Once it gives the id up, it is written; the id then passes on only when its holder drops it.
        yield* merchants.putMerchant({ ...b, providerAccounts: [account("acct_3")] })
        const a2: Merchants.Merchant = { ...Option.getOrThrow(a), providerAccounts: [account("acct_1")] }
        yield* merchants.putMerchant(a2)
        yield* merchants.putMerchant({ ...b, providerAccounts: [account("acct_2"), account("acct_3")] })
        assert.deepStrictEqual((yield* merchants.findProviderAccount("acct_2")).map((o) => o.merchant.id), ["mch_b"])
      }).pipe(Effect.scoped))
  })
})
