/**
 * D13 at start-up: a seed whose provider account id another merchant of the store already holds
 * (a merchant onboarded at run time, or an earlier seed's) rejects `createTender` with one line
 * naming the id and the merchants, as a bad seed (`validation_failed`, option "merchants"), not
 * as an outage; nothing of the seed is written.
 */
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { randomBytes } from "node:crypto"
import { assert, describe, it } from "vitest"
import { createTender, type TenderOptions } from "../src/index.js"
import { rejection } from "./rejection.js"

const { pool, fresh } = prefixedPool(4)
const hostKey = { id: "k1", key: randomBytes(32).toString("base64") }
const account = {
  id: "acct_shared",
  provider: "simulator",
  environment: "test" as const,
  credentials: { notification_secret: "sim_account_secret_HELD_0001" }
}
const holding = (id: string) => ({ id, name: id, allowed_checkout_modes: ["merchant" as const], api_keys: [], routes: [], provider_accounts: [account] })

describe("a seed's provider account id held by another merchant (D13)", () => {
  it(
    "D13 start-up rejects with validation_failed naming the account id and both merchants; the holder is unchanged and the seed's merchant not written",
    async () => {
      const tablePrefix = fresh()
      const options = (merchantId: string): TenderOptions => ({
        publicUrl: "https://pay.example.test",
        checkoutSecret: "test-secret-held",
        storage: { postgres: pool, tablePrefix },
        merchants: { merchants: [holding(merchantId)] },
        providerAccountKeys: [hostKey],
        workers: false,
        logger: { info() {}, warn() {}, error() {} }
      })
      const first = await createTender(options("mch_first"))
      await first.close()
      const refused = await rejection(createTender(options("mch_later")))
      assert.strictEqual(refused.code, "validation_failed")
      assert.strictEqual(refused.param, "merchants")
      assert.strictEqual(
        refused.message,
        "createTender: option \"merchants\": seed: merchant mch_later's provider account id \"acct_shared\" is already held by merchant mch_first; " +
          "account ids are unique across merchants (each names its notification door): give one of them another id (docs/seed-format.md)"
      )
      const rows = await pool.query(`SELECT id FROM "${tablePrefix}merchants" ORDER BY id`)
      assert.deepStrictEqual(rows.rows.map((r) => r.id), ["mch_first"])
    },
    60_000
  )
})
