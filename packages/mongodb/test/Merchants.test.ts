import { describe, expect, it } from "@effect/vitest"
import type { Merchants } from "@tender/core"
import { BSON } from "mongodb"
import * as Store from "../src/internal/merchants.js"
import { matches } from "./fake.js"

const t0 = Date.UTC(2026, 10, 22)
const merchant: Merchants.Merchant = {
  id: "mch_a",
  name: "ร้าน A",
  allowedCheckoutModes: ["merchant", "hosted"],
  routes: [{ id: "rt_1", method: "th_promptpay", provider: "simulator", environments: ["test", "live"], priority: 1 }]
}
const apiKey: Merchants.ApiKey = {
  id: "key_1",
  merchantId: "mch_a",
  environment: "test",
  publicKey: "pk_test_1",
  secretHash: "$".concat("a".repeat(63)),
  revokedAt: null,
  createdAt: t0
}
const throughBson = (doc: BSON.Document) => BSON.deserialize(BSON.serialize(doc))

describe("merchants: documents", () => {
  it("a merchant round trips with its policy and routes in order", () => {
    expect(Store.toMerchant(throughBson(Store.merchantDocument(merchant)))).toStrictEqual(merchant)
  })

  it("D13 a merchant's provider accounts round trip sealed, and an account's id finds its merchant and that account only", () => {
    const withAccounts: Merchants.Merchant = {
      ...merchant,
      routes: [{ ...merchant.routes[0]!, providerAccount: "acct_a" }],
      providerAccounts: [
        { id: "acct_a", provider: "stripe", environment: "test", credentials: "tv1.k1.aaa.bbb.ccc" },
        { id: "acct_b", provider: "adyen", environment: "live", credentials: "tv1.k1.ddd.eee.fff" }
      ]
    }
    const doc = throughBson(Store.merchantDocument(withAccounts))
    expect(Store.toMerchant(doc)).toStrictEqual(withAccounts)
    expect(Store.toAccountOwners([doc], "acct_b")).toStrictEqual([{ merchant: withAccounts, account: withAccounts.providerAccounts![1] }])
    expect(Store.toAccountOwners([doc], "acct_c")).toStrictEqual([])
    // A merchant stored before D13 (no field) reads back with none.
    const { provider_accounts: _, ...before } = doc
    expect(Store.toMerchant(before).providerAccounts).toBeUndefined()
  })

  it("D2 an API key round trips, secret only as its hash, revoked or not", () => {
    const doc = { ...Store.apiKeyFields(apiKey), revoked_at: null }
    expect(Store.toApiKey(throughBson(doc))).toStrictEqual(apiKey)
    expect(Store.toApiKey(throughBson({ ...doc, revoked_at: new Date(t0 + 5) })).revokedAt).toBe(t0 + 5)
  })

  it("putting a key keeps a stored revocation (revocation is permanent), every value a literal", () => {
    expect(Store.putApiKeyUpdate({ ...apiKey, revokedAt: t0 })).toStrictEqual([{
      $set: {
        id: { $literal: "key_1" },
        merchant_id: { $literal: "mch_a" },
        environment: { $literal: "test" },
        public_key: { $literal: "pk_test_1" },
        // A hash that happened to start with $ is never read as a field path.
        secret_hash: { $literal: apiKey.secretHash },
        created_at: { $literal: new Date(t0) },
        seeded: { $literal: false },
        revoked_at: { $ifNull: ["$revoked_at", { $literal: new Date(t0) }] }
      }
    }])
  })

  it("Seed a key a seed declared round trips as seed-managed; an issued key (or one stored before the flag) is not", () => {
    const seeded: Merchants.ApiKey = { ...apiKey, seeded: true }
    expect(Store.toApiKey(throughBson({ ...Store.apiKeyFields(seeded), revoked_at: null }))).toStrictEqual(seeded)
    expect(Store.toApiKey(throughBson({ ...Store.apiKeyFields(apiKey), revoked_at: null }))).toStrictEqual(apiKey)
    const { seeded: _, ...legacy } = Store.apiKeyFields(apiKey)
    expect(Store.toApiKey(throughBson({ ...legacy, revoked_at: null }))).toStrictEqual(apiKey)
  })

  it("Seed removing a key from the seed selects exactly the seed-managed, unrevoked keys it no longer declares", () => {
    const doc = (publicKey: string, fields: BSON.Document) => ({ ...Store.apiKeyFields({ ...apiKey, id: publicKey, publicKey }), revoked_at: null, ...fields })
    const docs = [
      doc("pk_test_kept", { seeded: true }),
      doc("pk_test_removed", { seeded: true }),
      doc("pk_test_removed_revoked", { seeded: true, revoked_at: new Date(t0) }),
      doc("pk_test_issued", { seeded: false }),
      doc("pk_test_legacy", { seeded: undefined })
    ].map(throughBson)
    const filter = Store.seededKeysOutside(["pk_test_kept"])
    expect(docs.filter((d) => matches(d, filter)).map((d) => d["public_key"])).toStrictEqual(["pk_test_removed"])
  })

  it("revoking twice keeps the first time", () => {
    expect(Store.revokeUpdate(t0)).toStrictEqual([{ $set: { revoked_at: { $ifNull: ["$revoked_at", { $literal: new Date(t0) }] } } }])
  })

  it("credentials are the key and its merchant in one aggregation", () => {
    expect(Store.credentialsPipeline("pk_test_1", "tender_merchants")).toStrictEqual([
      { $match: { public_key: "pk_test_1" } },
      { $limit: 1 },
      { $lookup: { from: "tender_merchants", localField: "merchant_id", foreignField: "id", as: "merchant" } },
      { $project: { _id: 0, "merchant._id": 0 } }
    ])
  })
})
