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
  readonly fees: string
  readonly settlement_delay_days: number
  readonly provider_accounts: string
}

/** The select list of a merchant row. */
const merchantColumns = `id, name, allowed_checkout_modes::text AS allowed_checkout_modes, routes::text AS routes,
  fees::text AS fees, settlement_delay_days, provider_accounts::text AS provider_accounts`

export const toMerchant = (r: MerchantRow): Merchants.Merchant => {
  const fees = JSON.parse(r.fees) as NonNullable<Merchants.Merchant["fees"]>
  return {
    id: r.id,
    name: r.name,
    allowedCheckoutModes: JSON.parse(r.allowed_checkout_modes),
    routes: JSON.parse(r.routes),
    // D12's balance settings, left out when they are the defaults (as a seed without them makes a merchant).
    ...(Object.keys(fees).length === 0 ? {} : { fees }),
    ...(r.settlement_delay_days === 0 ? {} : { settlementDelayDays: r.settlement_delay_days }),
    // Sealed credentials (D13): the store never holds them in clear. None: the field is absent, as put.
    ...(r.provider_accounts === "[]" ? {} : { providerAccounts: JSON.parse(r.provider_accounts) })
  }
}

export interface ApiKeyRow {
  readonly id: string
  readonly merchant_id: string
  readonly environment: string
  readonly public_key: string
  readonly secret_hash: string
  readonly revoked_at: string | null
  readonly created_at: string
  readonly seeded: boolean
}

/** The select list of an API key row, optionally qualified by a table alias. */
const apiKeyColumnsOf = (alias = "") => {
  const q = alias === "" ? "" : `${alias}.`
  return `${q}id, ${q}merchant_id, ${q}environment, ${q}public_key, ${q}secret_hash,
  ${millisColumn(`${q}revoked_at`, "revoked_at")}, ${millisColumn(`${q}created_at`, "created_at")}, ${q}seeded`
}

export const apiKeyColumns = apiKeyColumnsOf()

export const toApiKey = (r: ApiKeyRow): Merchants.ApiKey => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment as Merchants.ApiKey["environment"],
  publicKey: r.public_key,
  secretHash: r.secret_hash,
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  createdAt: Number(r.created_at),
  ...(r.seeded ? { seeded: true as const } : {})
})

/** A key and its merchant, from `api_keys AS k` and `merchants AS m`. */
export const credentialColumns = `${apiKeyColumnsOf("k")},
  m.id AS m_id, m.name AS m_name, m.allowed_checkout_modes::text AS m_modes, m.routes::text AS m_routes,
  m.provider_accounts::text AS m_accounts`

/** One row of the credentials lookup; the merchant's columns are NULL for a key without a merchant. */
export type CredentialRow = ApiKeyRow & {
  readonly m_id: string | null
  readonly m_name: string | null
  readonly m_modes: string | null
  readonly m_routes: string | null
  readonly m_accounts: string | null
}

/**
 * The merchant of a credentials row, its JSON parsed only when first read. Authentication
 * refuses a wrong secret before it reads the merchant, so a refused known key parses nothing
 * an unknown one does not (D2: the time of a 401 must not tell whether the public key exists).
 */
const lazyMerchant = (id: string, name: string, modes: string, routes: string, accounts: string): Merchants.Merchant => {
  let parsedModes: Merchants.Merchant["allowedCheckoutModes"] | undefined
  let parsedRoutes: Merchants.Merchant["routes"] | undefined
  let parsedAccounts: Merchants.Merchant["providerAccounts"] | undefined
  const merchant: Merchants.Merchant = {
    id,
    name,
    get allowedCheckoutModes() {
      return (parsedModes ??= JSON.parse(modes))
    },
    get routes() {
      return (parsedRoutes ??= JSON.parse(routes))
    }
  }
  if (accounts === "[]") return merchant
  return Object.defineProperty(merchant, "providerAccounts", { enumerable: true, get: () => (parsedAccounts ??= JSON.parse(accounts)) })
}

/**
 * The credentials of `publicKey` from its lookup row. The row is built into credentials
 * whichever key it holds (the same work either way), and answered only when it is the key
 * asked for and has its merchant.
 */
export const toCredentials = (publicKey: string, r: CredentialRow | undefined): Option.Option<Merchants.Credentials> => {
  if (r === undefined) return Option.none()
  const credentials: Merchants.Credentials = {
    apiKey: toApiKey(r),
    merchant: lazyMerchant(r.m_id ?? "", r.m_name ?? "", r.m_modes ?? "[]", r.m_routes ?? "[]", r.m_accounts ?? "[]")
  }
  return r.public_key === publicKey && r.m_id !== null ? Option.some(credentials) : Option.none()
}

/** The directory of one adapter instance, on its client (without name transforms) and tables. */
export const make = (sql: SqlClient, t: Tables) => {
  const MER = sql(t.merchants)
  const APIKEY = sql(t.apiKeys)
  const AVAIL = sql(t.routeAvailability)
  return Merchants.Merchants.of({
    findMerchant: (id) =>
      sql<MerchantRow>`SELECT ${sql.literal(merchantColumns)} FROM ${MER} WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toMerchant)),
        Effect.mapError(fold("find merchant"))
      ),
    // Containment on the jsonb column: the merchants holding an account with this id.
    findProviderAccount: (accountId) =>
      sql<MerchantRow>`SELECT ${sql.literal(merchantColumns)} FROM ${MER}
        WHERE provider_accounts @> ${JSON.stringify([{ id: accountId }])}::jsonb`.pipe(
        Effect.map((rows) =>
          rows.flatMap((r) => {
            const merchant = toMerchant(r)
            const account = Merchants.accountOf(merchant, accountId)
            return account === undefined ? [] : [{ merchant, account }]
          })
        ),
        Effect.mapError(fold("find provider account"))
      ),
    listMerchants: (after, limit) =>
      sql<MerchantRow>`SELECT ${sql.literal(merchantColumns)} FROM ${MER}
        WHERE ${after === null ? sql`TRUE` : sql`id > ${after}`} ORDER BY id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(toMerchant)),
        Effect.mapError(fold("list merchants"))
      ),
    findKeyByPublicKey: (publicKey) =>
      sql<ApiKeyRow>`SELECT ${sql.literal(apiKeyColumns)} FROM ${APIKEY} WHERE public_key = ${publicKey}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
        Effect.mapError(fold("find API key"))
      ),
    // D2, timing: an unknown public key must cost what a known one costs, or the time of a 401
    // tells which keys exist. So the lookup always reads one real key and its merchant with the
    // same statement: the key asked for if it exists, else its neighbour in the unique index (the
    // greatest key below it; the least key when none is below). Either way one row of one shape
    // is fetched, converted and built (a neighbour's is then dropped, never answered), and the
    // merchant's JSON is parsed only once the secret matched. A key holding U+0000, which no
    // text value holds, looks up its neighbour without it: same cost, and never its own row.
    findCredentials: (publicKey) =>
      sql<CredentialRow>`
        SELECT ${sql.literal(credentialColumns)}
        FROM ${APIKEY} AS k LEFT JOIN ${MER} AS m ON m.id = k.merchant_id
        WHERE k.public_key = COALESCE(
          (SELECT public_key FROM ${APIKEY} WHERE public_key <= ${publicKey.replaceAll("\u0000", "")} ORDER BY public_key DESC LIMIT 1),
          (SELECT min(public_key) FROM ${APIKEY}))`.pipe(
        Effect.map((rows) => toCredentials(publicKey, rows[0])),
        Effect.mapError(fold("find credentials"))
      ),
    putMerchant: (m) =>
      sql`INSERT INTO ${MER} (id, name, allowed_checkout_modes, routes, fees, settlement_delay_days, provider_accounts)
        VALUES (${m.id}, ${m.name}, ${JSON.stringify(m.allowedCheckoutModes)}, ${JSON.stringify(m.routes)},
          ${JSON.stringify(m.fees ?? {})}, ${m.settlementDelayDays ?? 0}, ${JSON.stringify(m.providerAccounts ?? [])}::jsonb)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name,
          allowed_checkout_modes = excluded.allowed_checkout_modes, routes = excluded.routes,
          fees = excluded.fees, settlement_delay_days = excluded.settlement_delay_days,
          provider_accounts = excluded.provider_accounts`.pipe(
        Effect.asVoid,
        Effect.mapError(fold("put merchant"))
      ),
    putApiKey: (k) =>
      sql`INSERT INTO ${APIKEY} (id, merchant_id, environment, public_key, secret_hash, revoked_at, created_at, seeded)
        VALUES (${k.id}, ${k.merchantId}, ${k.environment}, ${k.publicKey}, ${k.secretHash},
          ${k.revokedAt === null ? null : timestamp(k.revokedAt)}, ${timestamp(k.createdAt)}, ${k.seeded === true})
        ON CONFLICT (public_key) DO UPDATE SET id = excluded.id, merchant_id = excluded.merchant_id,
          environment = excluded.environment, secret_hash = excluded.secret_hash, created_at = excluded.created_at,
          seeded = excluded.seeded, revoked_at = COALESCE(${APIKEY}.revoked_at, excluded.revoked_at)`.pipe(
        Effect.asVoid,
        Effect.mapError(fold("put API key"))
      ),
    revokeApiKey: (keyId, at) =>
      sql`UPDATE ${APIKEY} SET revoked_at = COALESCE(revoked_at, ${timestamp(at)}) WHERE id = ${keyId} RETURNING 1 AS revoked`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(fold("revoke API key"))
      ),
    revokeSeededKeysExcept: (keep, at) =>
      sql<{ id: string }>`UPDATE ${APIKEY} SET revoked_at = ${timestamp(at)}
        WHERE seeded AND revoked_at IS NULL AND NOT (public_key = ANY(${keep as Array<string>}::text[]))
        RETURNING id`.pipe(
        Effect.map((rows) => rows.map((r) => r.id)),
        Effect.mapError(fold("revoke keys left out of the seed"))
      ),
    setAvailability: (target, available) =>
      sql`INSERT INTO ${AVAIL} (kind, id, available) VALUES (${target.kind}, ${target.id}, ${available})
        ON CONFLICT (kind, id) DO UPDATE SET available = excluded.available, updated_at = now()`.pipe(
        Effect.asVoid,
        Effect.mapError(fold("set route availability"))
      ),
    findAvailability: sql<{ kind: string; id: string; available: boolean }>`SELECT kind, id, available FROM ${AVAIL}`.pipe(
      Effect.map((rows) => {
        const routes = new Map<string, boolean>()
        const providers = new Map<string, boolean>()
        for (const r of rows) (r.kind === "route" ? routes : providers).set(r.id, r.available)
        return { routes, providers }
      }),
      Effect.mapError(fold("find route availability"))
    )
  })
}
