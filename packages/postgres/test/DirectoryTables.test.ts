/**
 * Migration 0028 (issue 49): the directory's rows written by the schema before it (merchants,
 * API keys, provider account ids, the host's word on routes and providers) read back through
 * the directory core implements over `Storage`, and are written again through it.
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { assert, it } from "@effect/vitest"
import { Merchants } from "@tender/core"
import { PgMigrations, PgStorage } from "@tender/postgres"
import { Effect, Option } from "effect"
import { afterAll } from "vitest"
import { client, dropTables, freshPrefix, migratedUpTo, runSql, skipReason } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
afterAll(() => (skipReason === undefined ? runSql(dropTables(prefix)) : undefined))

const account = { id: "acct_old_1", provider: "stripe", environment: "test", credentials: "tv1.k1.sealed" } as const
const route = { id: "rt_1", method: "th_promptpay", provider: "simulator", environments: ["test"], priority: 1 }

describeOnPostgres("PgMigrations 0028: the directory as tables", () => {
  it.layer(client, { timeout: 60_000 })((it) => {
    it.effect("issue 49 rows written by the schema before 0028 read back through Merchants over Storage, and are written again", () =>
      Effect.gen(function*() {
        yield* migratedUpTo(prefix, 27)
        const sql = yield* SqlClient
        yield* sql`INSERT INTO ${sql(`${prefix}merchants`)} (id, name, allowed_checkout_modes, routes, fees, settlement_delay_days, provider_accounts)
          VALUES ('mch_old', 'Old Shop', '["hosted","merchant"]', ${JSON.stringify([route])}, '{"th_promptpay":{"rateBps":150,"fixedAmount":"0"}}', 2,
            ${JSON.stringify([account])}::jsonb),
            ('mch_plain', 'Plain', '["merchant"]', '[]', '{}', 0, '[]')`
        yield* sql`INSERT INTO ${sql(`${prefix}api_keys`)} (id, merchant_id, environment, public_key, secret_hash, revoked_at, created_at, seeded)
          VALUES ('key_old', 'mch_old', 'test', 'pk_test_old', 'abc', NULL, '2026-11-22T00:00:00.007Z', true),
                 ('key_gone', 'mch_old', 'live', 'pk_live_gone', 'def', '2026-11-23T00:00:00.000Z', '2026-11-22T00:00:00.000Z', false)`
        yield* sql`INSERT INTO ${sql(`${prefix}route_availability`)} (kind, id, available) VALUES ('route', 'rt_1', false), ('provider', 'acme', true)`
        const ran = yield* PgMigrations.run({ tablePrefix: prefix })
        assert.deepStrictEqual(ran.map(([, name]) => name), ["directory_tables"])

        const { merchants } = yield* PgStorage.make({ tablePrefix: prefix, directoryCache: false })
        assert.deepStrictEqual(Option.getOrUndefined(yield* merchants.findMerchant("mch_old")), {
          id: "mch_old",
          name: "Old Shop",
          allowedCheckoutModes: ["hosted", "merchant"],
          routes: [route],
          fees: { th_promptpay: { rateBps: 150, fixedAmount: "0" } },
          settlementDelayDays: 2,
          providerAccounts: [account]
        } as Merchants.Merchant)
        assert.deepStrictEqual(Option.getOrUndefined(yield* merchants.findMerchant("mch_plain")), {
          id: "mch_plain",
          name: "Plain",
          allowedCheckoutModes: ["merchant"],
          routes: []
        })
        const credentials = Option.getOrThrow(yield* merchants.findCredentials("pk_test_old"))
        assert.deepStrictEqual(credentials.apiKey, {
          id: "key_old",
          merchantId: "mch_old",
          environment: "test",
          publicKey: "pk_test_old",
          secretHash: "abc",
          revokedAt: null,
          createdAt: Date.UTC(2026, 10, 22) + 7,
          seeded: true
        })
        assert.strictEqual(credentials.merchant.id, "mch_old")
        assert.strictEqual(Option.getOrThrow(yield* merchants.findKeyByPublicKey("pk_live_gone")).revokedAt, Date.UTC(2026, 10, 23))
        assert.deepStrictEqual((yield* merchants.findProviderAccount("acct_old_1")).map((o) => o.merchant.id), ["mch_old"])
        const words = yield* merchants.findAvailability
        assert.deepStrictEqual([[...words.routes], [...words.providers]], [[["rt_1", false]], [["acme", true]]])
        assert.deepStrictEqual((yield* merchants.listMerchants(null, 10)).map((m) => m.id), ["mch_old", "mch_plain"])

        // Written again through the tables: versions move on, the old rows' words are replaced.
        yield* merchants.setAvailability({ kind: "route", id: "rt_1" }, true)
        yield* merchants.putMerchant({
          id: "mch_plain",
          name: "Plain 2",
          allowedCheckoutModes: ["merchant"],
          routes: [],
          providerAccounts: [{ ...account, id: "acct_new" }]
        })
        assert.deepStrictEqual((yield* merchants.findAvailability).routes.get("rt_1"), true)
        assert.deepStrictEqual((yield* merchants.findProviderAccount("acct_new")).map((o) => o.merchant.name), ["Plain 2"])
        assert.deepStrictEqual(yield* merchants.revokeSeededKeysExcept([], Date.UTC(2026, 10, 24)), ["key_old"])
      }).pipe(Effect.scoped))
  })
})
