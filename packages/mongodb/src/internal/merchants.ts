/**
 * The merchant directory (`Merchants`) on MongoDB: one document per merchant and per API key
 * (the secret only as its hash, D2). Every process sharing the database sees one directory, so
 * a revocation in one reaches all.
 */
import { Merchants } from "@tender/core"
import { Effect, Option } from "effect"
import type { Collection, Document } from "mongodb"
import { jsonValue } from "./documents.js"
import { fold } from "./errors.js"

/** A merchant as stored; team policy and routes as embedded arrays, in the order given. */
export const merchantDocument = (m: Merchants.Merchant): Document => ({
  id: m.id,
  name: m.name,
  allowed_checkout_modes: jsonValue(m.allowedCheckoutModes),
  routes: jsonValue(m.routes),
  // D12's balance settings; a merchant stored before them reads as without (no fees, no delay).
  fees: jsonValue(m.fees ?? {}),
  settlement_delay_days: m.settlementDelayDays ?? 0,
  // Sealed credentials only (D13).
  provider_accounts: jsonValue(m.providerAccounts ?? [])
})

/** @internal */
export const toMerchant = (doc: Document): Merchants.Merchant => {
  const fees = (doc["fees"] ?? {}) as NonNullable<Merchants.Merchant["fees"]>
  const delay = Number(doc["settlement_delay_days"] ?? 0)
  return {
    id: String(doc["id"]),
    name: String(doc["name"]),
    allowedCheckoutModes: doc["allowed_checkout_modes"],
    routes: doc["routes"],
    ...(Object.keys(fees).length === 0 ? {} : { fees }),
    ...(delay === 0 ? {} : { settlementDelayDays: delay }),
    // None (or a merchant stored before D13): the field is absent, as put.
    ...(Array.isArray(doc["provider_accounts"]) && doc["provider_accounts"].length > 0 ? { providerAccounts: doc["provider_accounts"] } : {})
  }
}

/** The merchants holding a provider account `id`, from their documents. */
export const toAccountOwners = (docs: ReadonlyArray<Document>, id: string): ReadonlyArray<Merchants.AccountOwner> =>
  docs.flatMap((doc) => {
    const merchant = toMerchant(doc)
    const account = Merchants.accountOf(merchant, id)
    return account === undefined ? [] : [{ merchant, account }]
  })

const millis = (value: unknown): number => (value instanceof Date ? value.getTime() : Number(value))

/** An API key as stored, without its revocation (which `putApiKeyUpdate` keeps). */
export const apiKeyFields = (k: Merchants.ApiKey): Document => ({
  id: k.id,
  merchant_id: k.merchantId,
  environment: k.environment,
  public_key: k.publicKey,
  secret_hash: k.secretHash,
  created_at: new Date(k.createdAt),
  seeded: k.seeded === true
})

/** @internal */
export const toApiKey = (doc: Document): Merchants.ApiKey => ({
  id: String(doc["id"]),
  merchantId: String(doc["merchant_id"]),
  environment: doc["environment"] as Merchants.ApiKey["environment"],
  publicKey: String(doc["public_key"]),
  secretHash: String(doc["secret_hash"]),
  revokedAt: doc["revoked_at"] === null || doc["revoked_at"] === undefined ? null : millis(doc["revoked_at"]),
  createdAt: millis(doc["created_at"]),
  ...(doc["seeded"] === true ? { seeded: true as const } : {})
})

/**
 * Insert or replace by public key, keeping a stored revocation (revocation is permanent): an
 * update pipeline, so the new `revoked_at` is the stored one when there is one. Every value is
 * a `$literal`, so a string starting with `$` is never read as a field path.
 */
export const putApiKeyUpdate = (k: Merchants.ApiKey): ReadonlyArray<Document> => [{
  $set: {
    ...Object.fromEntries(Object.entries(apiKeyFields(k)).map(([name, value]) => [name, { $literal: value }])),
    revoked_at: { $ifNull: ["$revoked_at", { $literal: k.revokedAt === null ? null : new Date(k.revokedAt) }] }
  }
}]

/** Revoking keeps the first time. */
export const revokeUpdate = (at: number): ReadonlyArray<Document> => [
  { $set: { revoked_at: { $ifNull: ["$revoked_at", { $literal: new Date(at) }] } } }
]

/**
 * The seed-managed keys not yet revoked whose public key the seed no longer declares (`null`
 * matches a missing `revoked_at`, as on documents written before it existed).
 */
export const seededKeysOutside = (keep: ReadonlyArray<string>): Document => ({
  seeded: true,
  revoked_at: null,
  public_key: { $nin: [...keep] }
})

/** The key and its merchant in one round trip, as authentication needs them on every request. */
export const credentialsPipeline = (publicKey: string, merchants: string): ReadonlyArray<Document> => [
  { $match: { public_key: publicKey } },
  { $limit: 1 },
  { $lookup: { from: merchants, localField: "merchant_id", foreignField: "id", as: "merchant" } },
  { $project: { _id: 0, "merchant._id": 0 } }
]

const call = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })

/** The stored words on routes and providers, from their documents `{ kind, id, available }`. */
export const toAvailability = (docs: ReadonlyArray<Document>): Merchants.Availability => {
  const routes = new Map<string, boolean>()
  const providers = new Map<string, boolean>()
  for (const d of docs) (d["kind"] === "route" ? routes : providers).set(String(d["id"]), d["available"] === true)
  return { routes, providers }
}

/** The directory on its three collections. */
export const make = (merchants: Collection<Document>, apiKeys: Collection<Document>, availability: Collection<Document>) =>
  Merchants.Merchants.of({
    findMerchant: (id) =>
      call("find merchant", () => merchants.findOne({ id }, { projection: { _id: 0 } })).pipe(
        Effect.map((doc) => Option.map(Option.fromNullable(doc), toMerchant))
      ),
    findProviderAccount: (id) =>
      call("find provider account", () => merchants.find({ "provider_accounts.id": { $eq: id } }, { projection: { _id: 0 } }).limit(2).toArray()).pipe(
        Effect.map((docs) => toAccountOwners(docs, id))
      ),
    listMerchants: (after, limit) =>
      call("list merchants", () =>
        merchants.find(after === null ? {} : { id: { $gt: after } }, { projection: { _id: 0 } }).sort({ id: 1 }).limit(limit).toArray()).pipe(
          Effect.map((docs) =>
            docs.map(toMerchant)
          )
        ),
    findKeyByPublicKey: (publicKey) =>
      call("find API key", () => apiKeys.findOne({ public_key: publicKey }, { projection: { _id: 0 } })).pipe(
        Effect.map((doc) => Option.map(Option.fromNullable(doc), toApiKey))
      ),
    findCredentials: (publicKey) =>
      call("find credentials", () => apiKeys.aggregate([...credentialsPipeline(publicKey, merchants.collectionName)]).toArray()).pipe(
        Effect.map(([doc]) => {
          const merchant: unknown = Array.isArray(doc?.["merchant"]) ? doc["merchant"][0] : undefined
          return doc === undefined || merchant === undefined
            ? Option.none()
            : Option.some({ apiKey: toApiKey(doc), merchant: toMerchant(merchant as Document) })
        })
      ),
    putMerchant: (m) => Effect.asVoid(call("put merchant", () => merchants.replaceOne({ id: m.id }, merchantDocument(m), { upsert: true }))),
    putApiKey: (k) => Effect.asVoid(call("put API key", () => apiKeys.updateOne({ public_key: k.publicKey }, [...putApiKeyUpdate(k)], { upsert: true }))),
    revokeApiKey: (keyId, at) =>
      call("revoke API key", () => apiKeys.updateOne({ id: keyId }, [...revokeUpdate(at)])).pipe(
        Effect.map((r) => r.matchedCount > 0)
      ),
    // Read the ids, then revoke exactly those: a key revoked meanwhile keeps its first time.
    revokeSeededKeysExcept: (keep, at) =>
      call("revoke keys left out of the seed", async () => {
        const docs = await apiKeys.find(seededKeysOutside(keep), { projection: { _id: 0, id: 1 } }).toArray()
        const ids = docs.map((d) => String(d["id"]))
        if (ids.length > 0) await apiKeys.updateMany({ id: { $in: ids } }, [...revokeUpdate(at)])
        return ids
      }),
    setAvailability: (target, available) =>
      Effect.asVoid(call("set route availability", () =>
        availability.updateOne(
          { kind: target.kind, id: target.id },
          { $set: { available, updated_at: new Date() } },
          { upsert: true }
        ))),
    findAvailability: call("find route availability", () => availability.find({}, { projection: { _id: 0 } }).toArray()).pipe(
      Effect.map(toAvailability)
    )
  })
