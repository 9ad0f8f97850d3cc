/**
 * D12: upgrading a deployment with history. A database is migrated to just before the ledger (up
 * to 0020; the ledger's migrations are the last ones) and filled by the flows without the ledger,
 * as the previous version ran them: payments,
 * refunds that succeed and fail, a late payment's refund, a test top-up, a payout canceled and one
 * failed. The upgrade (0021, 0022) then writes the transactions of that history, and the balance is
 * right at the first read after it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import {
  BalanceTransaction,
  Ids,
  PaymentIntent,
  PaymentIntentCancel,
  PaymentIntents,
  PayoutIntent,
  PayoutIntents,
  Refund,
  Refunds,
  Seed,
  Simulator,
  Storage,
  Table,
  Tender,
  TopupIntent,
  TopupIntents,
  Workers
} from "@tender/core"
import { PgMigrations, PgStorage } from "@tender/postgres"
import { promptpayFor } from "@tender/repo-test-support"
import { Clock, Effect, Layer, Logger, LogLevel, Schema } from "effect"
import { afterAll, assert, it } from "vitest"
import { checkoutOptions, keys, login, seed } from "../../core/test/fixtures.js"
import { dropTables, freshPrefix, migratedUpTo, runSql } from "./database.js"
import { describeOnPostgres } from "./onPostgres.js"

const prefix = freshPrefix()
afterAll(() => runSql(dropTables(prefix)))

/** Every migration before the ledger's (0021, 0022): the schema the flows below fill without the ledger. */
const previousSchema = migratedUpTo(prefix, 20)

/**
 * Today's code writes the history, and its top-ups carry `provider_account`, which 0027 adds
 * after the ledger's migrations: the column is there while the history is written and gone again
 * before the upgrade, as the previous version's schema had it (the rows keep what they hold).
 */
const topupAccountColumn = (change: "ADD" | "DROP") =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql.unsafe(`ALTER TABLE "${prefix}topup_intents" ${change} COLUMN provider_account${change === "ADD" ? " text" : ""}`)
  )

/** The services as the previous version wired them: no ledger in front of the store's commits. */
const previousServices = Layer.mergeAll(
  Tender.layerWithoutStorage({ seed, hostedCheckout: checkoutOptions }),
  PgStorage.layerWithoutMigrations({ tablePrefix: prefix, directoryCache: false }),
  // Its merchant directory had no balance settings: the seed's merchants, in memory.
  Seed.layer(seed)
)

const drain = Effect.repeatN(Workers.drain({ owner: "previous" }), 3)
const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => Effect.orDie(Schema.decodeUnknown(schema)(value))

const history = Effect.gen(function*() {
  const principal = yield* login(keys.demoTest)
  const ctx = { principal, requestId: "req_old" }
  const intent = (amount: string) =>
    Effect.flatMap(
      decode(PaymentIntent.CreateParams, promptpayFor(amount)),
      (params) => Effect.map(PaymentIntents.create(ctx, params), (r) => JSON.parse(r.body).id as string)
    )
  const paid = yield* intent("150000")
  yield* PaymentIntents.confirm(ctx, paid)
  yield* drain
  yield* Refunds.create(ctx, yield* decode(Refund.CreateParams, { payment_intent: paid, amount: "100" }))
  yield* Refunds.create(ctx, yield* decode(Refund.CreateParams, { payment_intent: paid, amount: Simulator.magicAmounts.refundFails }))
  const late = yield* intent(Simulator.magicAmounts.paidAfterCancel)
  yield* PaymentIntentCancel.cancel(ctx, late, {})
  yield* TopupIntents.create(
    { ...ctx, idempotencyKey: "old-topup" },
    yield* decode(TopupIntent.CreateParams, {
      destination_amount: "70000",
      destination_currency: "THB",
      source: { type: "test_funding" }
    })
  )
  // The previous version's payout create, which read no balance: the record written as it wrote it.
  const payout = (amount: string, reference: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const record = Table.construct(PayoutIntent.PayoutIntentRecord, {
        id: Ids.prefixes.payoutIntent + Ids.randomBase62(),
        merchantId: "mch_demo",
        environment: "test",
        status: "requires_approval",
        amount,
        currency: "THB",
        merchantReference: reference,
        destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "Somchai Jaidee" },
        description: null,
        metadata: null,
        fingerprint: reference,
        createdAt: now,
        updatedAt: now,
        version: 1
      })
      yield* (yield* Storage.Storage).commit([Storage.Write.insert(PayoutIntent.table, record)])
      return record.id
    })
  const canceled = yield* payout("10000", "old-1")
  yield* PayoutIntents.cancel(ctx, canceled)
  const failing = yield* payout(Simulator.magicAmounts.payoutFails, "old-2")
  yield* PayoutIntents.approve({ merchantId: "mch_demo", environment: "test" }, failing)
  yield* drain
  return { paid, late, canceled, failing }
})

describeOnPostgres("D12 upgrading a deployment with history", () => {
  it("D12 the upgrade writes the transactions of what happened before it: balances are right at the first read", async () => {
    const ids = await runSql(Effect.zipRight(
      Effect.zipRight(previousSchema, topupAccountColumn("ADD")),
      Effect.zipLeft(Effect.provide(history, previousServices).pipe(Logger.withMinimumLogLevel(LogLevel.None)), topupAccountColumn("DROP"))
    ))
    await runSql(PgMigrations.run({ tablePrefix: prefix }))
    const rows = await runSql(Effect.provide(
      Effect.flatMap(Storage.Storage, (s) => s.list(BalanceTransaction.table, { merchantId: "mch_demo", environment: "test", limit: 100 })),
      PgStorage.layerWithoutMigrations({ tablePrefix: prefix, directoryCache: false })
    ))
    const by = (source: string) => rows.filter((r) => r.source === source).map((r) => `${r.type} ${r.amount}`).sort()
    assert.deepStrictEqual(by(ids.paid), ["payment 150000"])
    assert.deepStrictEqual(by(ids.late), ["payment 40901"])
    assert.deepStrictEqual(by(ids.canceled), ["payout -10000", "payout_cancel 10000"])
    assert.deepStrictEqual(by(ids.failing), ["payout -40004", "payout_failure 40004"])
    const types = rows.map((r) => `${r.type} ${r.amount}`).sort()
    assert.includeMembers(types, ["refund -100", "refund -40005", "refund_failure 40005", "refund -40901", "topup 70000"])
    assert.lengthOf(rows, 11)
    for (const r of rows) assert.strictEqual(r.postings.reduce((s, p) => s + BigInt(p.amount), 0n), 0n)
    // The first read after the upgrade, through the ledger-keeping services.
    const [balance] = await runSql(Effect.provide(
      Effect.flatMap(Storage.Storage, (s) => s.balances({ merchantId: "mch_demo", environment: "test", now: Date.now() })),
      PgStorage.layerWithoutMigrations({ tablePrefix: prefix, directoryCache: false })
    ))
    assert.deepStrictEqual(balance, { currency: "THB", available: String(150000 - 100 + 70000), pending: "0", fees: "0" })
    // Migrating again writes nothing twice.
    assert.deepStrictEqual(await runSql(PgMigrations.run({ tablePrefix: prefix })), [])
  }, 120_000)
})
