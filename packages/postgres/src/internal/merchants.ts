/**
 * The merchant directory (`Merchants`) on PostgreSQL: merchants with their team policy and
 * routes, and API keys with the secret hashed (D2). Every process sharing the database sees
 * one directory, so a revocation in one reaches all.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import { Merchants } from "@tender/core"
import { Effect, Option } from "effect"
import { fold } from "./errors.js"
import { millisColumn, timestamp } from "./records.js"
import type { Tables } from "./tables.js"

export interface MerchantRow {
  readonly id: string
  readonly name: string
  readonly allowed_checkout_modes: string
  readonly routes: string
}

export const toMerchant = (r: MerchantRow): Merchants.Merchant => ({
  id: r.id,
  name: r.name,
  allowedCheckoutModes: JSON.parse(r.allowed_checkout_modes),
  routes: JSON.parse(r.routes)
})

export interface ApiKeyRow {
  readonly id: string
  readonly merchant_id: string
  readonly environment: string
  readonly public_key: string
  readonly secret_hash: string
  readonly revoked_at: string | null
  readonly created_at: string
}

/** The select list of an API key row, optionally qualified by a table alias. */
const apiKeyColumnsOf = (alias = "") => {
  const q = alias === "" ? "" : `${alias}.`
  return `${q}id, ${q}merchant_id, ${q}environment, ${q}public_key, ${q}secret_hash,
  ${millisColumn(`${q}revoked_at`, "revoked_at")}, ${millisColumn(`${q}created_at`, "created_at")}`
}

export const apiKeyColumns = apiKeyColumnsOf()

export const toApiKey = (r: ApiKeyRow): Merchants.ApiKey => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment as Merchants.ApiKey["environment"],
  publicKey: r.public_key,
  secretHash: r.secret_hash,
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  createdAt: Number(r.created_at)
})

/** A key and its merchant, from `api_keys AS k JOIN merchants AS m`. */
export const credentialColumns = `${apiKeyColumnsOf("k")},
  m.id AS m_id, m.name AS m_name, m.allowed_checkout_modes::text AS m_modes, m.routes::text AS m_routes`

/** The directory of one adapter instance, on its client (without name transforms) and tables. */
export const make = (sql: SqlClient, t: Tables) => {
  const MER = sql(t.merchants)
  const APIKEY = sql(t.apiKeys)
  return Merchants.Merchants.of({
    findMerchant: (id) =>
      sql<MerchantRow>`SELECT id, name, allowed_checkout_modes::text AS allowed_checkout_modes, routes::text AS routes
        FROM ${MER} WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toMerchant)),
        Effect.mapError(fold("find merchant"))
      ),
    findKeyByPublicKey: (publicKey) =>
      sql<ApiKeyRow>`SELECT ${sql.literal(apiKeyColumns)} FROM ${APIKEY} WHERE public_key = ${publicKey}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
        Effect.mapError(fold("find API key"))
      ),
    findCredentials: (publicKey) =>
      sql<ApiKeyRow & { readonly m_id: string; readonly m_name: string; readonly m_modes: string; readonly m_routes: string }>`
        SELECT ${sql.literal(credentialColumns)} FROM ${APIKEY} AS k JOIN ${MER} AS m ON m.id = k.merchant_id
        WHERE k.public_key = ${publicKey}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            apiKey: toApiKey(r),
            merchant: toMerchant({ id: r.m_id, name: r.m_name, allowed_checkout_modes: r.m_modes, routes: r.m_routes })
          }))
        ),
        Effect.mapError(fold("find credentials"))
      ),
    putMerchant: (m) =>
      sql`INSERT INTO ${MER} (id, name, allowed_checkout_modes, routes)
        VALUES (${m.id}, ${m.name}, ${JSON.stringify(m.allowedCheckoutModes)}, ${JSON.stringify(m.routes)})
        ON CONFLICT (id) DO UPDATE SET name = excluded.name,
          allowed_checkout_modes = excluded.allowed_checkout_modes, routes = excluded.routes`.pipe(
        Effect.asVoid,
        Effect.mapError(fold("put merchant"))
      ),
    putApiKey: (k) =>
      sql`INSERT INTO ${APIKEY} (id, merchant_id, environment, public_key, secret_hash, revoked_at, created_at)
        VALUES (${k.id}, ${k.merchantId}, ${k.environment}, ${k.publicKey}, ${k.secretHash},
          ${k.revokedAt === null ? null : timestamp(k.revokedAt)}, ${timestamp(k.createdAt)})
        ON CONFLICT (public_key) DO UPDATE SET id = excluded.id, merchant_id = excluded.merchant_id,
          environment = excluded.environment, secret_hash = excluded.secret_hash, created_at = excluded.created_at,
          revoked_at = COALESCE(${APIKEY}.revoked_at, excluded.revoked_at)`.pipe(
        Effect.asVoid,
        Effect.mapError(fold("put API key"))
      ),
    revokeApiKey: (keyId, at) =>
      sql`UPDATE ${APIKEY} SET revoked_at = COALESCE(revoked_at, ${timestamp(at)}) WHERE id = ${keyId} RETURNING 1 AS revoked`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(fold("revoke API key"))
      )
  })
}
