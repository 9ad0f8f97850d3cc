/**
 * `settingsFromEnv(env, defaults)`: the settings a host reads from its environment before it
 * calls `createTender`, read once and checked, so a host's start-up script is not a page of
 * `process.env[…] ?? …` (docs/server.md, "Settings from the environment"). Pure: it reads `env`,
 * opens nothing.
 *
 * @since 0.1.0
 */
import type { CredentialVault } from "@tender/core"
import type { PgPoolLike } from "./internal/storage.js"
import type { SeedInput, TenderOptions } from "./PromiseTender.js"
import { TenderError } from "./TenderError.js"

/** What the host uses where a variable is unset (or empty). @since 0.1.0 @category options */
export interface EnvDefaults {
  /** Where the host listens without PORT. */
  readonly port: number
  /** The PostgreSQL without DATABASE_URL; none by default. */
  readonly databaseUrl?: string | undefined
  /** The checkout secret without TENDER_CHECKOUT_SECRET; none by default, so the variable must be set. */
  readonly checkoutSecret?: string | undefined
  /** The seed without TENDER_SEED: an object or a file path (docs/seed-format.md). */
  readonly merchants?: SeedInput | string | undefined
  /** Tender's mount path in the default public URL `http://127.0.0.1:PORT/payments`. Default `/payments`. */
  readonly path?: string | undefined
}

/** The settings, checked. @since 0.1.0 @category models */
export interface EnvSettings {
  /** PORT: a whole number from 0 to 65535. */
  readonly port: number
  /** DATABASE_URL: for the host's own `pg.Pool`. */
  readonly databaseUrl: string | undefined
  /** PUBLIC_URL (an http or https URL), else `http://127.0.0.1:PORT` followed by the mount path. */
  readonly publicUrl: string
  /** TENDER_CHECKOUT_SECRET. */
  readonly checkoutSecret: string
  /** TENDER_TABLE_PREFIX; unset, Tender's default `tender_`. */
  readonly tablePrefix: string | undefined
  /** TENDER_SEED, a seed file's path. */
  readonly merchants: SeedInput | string | undefined
  /** TENDER_PROVIDER_ACCOUNT_KEYS (`id:base64,id:base64`, newest first): the keys provider account credentials are sealed with (D13). */
  readonly providerAccountKeys: ReadonlyArray<CredentialVault.AccountKey> | undefined
  /** `createTender`'s options on the host's pool: `createTender({ ...settings.onPool(pool), logger })`. */
  readonly onPool: (pool: PgPoolLike) => TenderOptions
}

const invalid = (param: string, message: string) => new TenderError({ code: "validation_failed", status: 400, param, message: `tender: ${message}` })

/**
 * The host keys of `TENDER_PROVIDER_ACCOUNT_KEYS` (D13, docs/provider-accounts.md): comma-separated
 * `id:key` pairs, newest first, each key 32 random bytes in base64. Undefined when unset; a pair
 * without its `:` throws naming the variable (never its value).
 *
 * @since 0.1.0 @category constructors
 */
export const accountKeysOf = (text: string | undefined): ReadonlyArray<CredentialVault.AccountKey> | undefined => {
  if (text === undefined || text.trim() === "") return undefined
  return text.split(",").map((pair, i) => {
    const at = pair.indexOf(":")
    if (at <= 0) throw invalid("TENDER_PROVIDER_ACCOUNT_KEYS", `TENDER_PROVIDER_ACCOUNT_KEYS: entry ${i + 1} is not id:key`)
    return { id: pair.slice(0, at).trim(), key: pair.slice(at + 1).trim() }
  })
}

/**
 * Read PORT, DATABASE_URL, PUBLIC_URL, TENDER_CHECKOUT_SECRET, TENDER_TABLE_PREFIX,
 * TENDER_SEED and TENDER_PROVIDER_ACCOUNT_KEYS from `env`, each falling back on `defaults` when unset or empty. A value Tender
 * cannot use (a PORT that is not a port, a PUBLIC_URL that is not an http URL, no checkout
 * secret at all) throws a `TenderError` `validation_failed` whose `param` names the variable.
 *
 * @since 0.1.0 @category constructors
 */
export const settingsFromEnv = (env: Readonly<Record<string, string | undefined>>, defaults: EnvDefaults): EnvSettings => {
  const read = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name])
  const rawPort = read("PORT")
  const port = rawPort === undefined ? defaults.port : /^[0-9]{1,5}$/.test(rawPort.trim()) ? Number(rawPort) : Number.NaN
  if (!(port >= 0 && port <= 65535)) throw invalid("PORT", `PORT must be a port number from 0 to 65535; got ${JSON.stringify(rawPort)}`)
  const publicUrl = read("PUBLIC_URL") ?? `http://127.0.0.1:${port}${defaults.path ?? "/payments"}`
  if (!URL.canParse(publicUrl) || !/^https?:$/.test(new URL(publicUrl).protocol)) {
    throw invalid("PUBLIC_URL", `PUBLIC_URL must be an http or https URL; got ${JSON.stringify(publicUrl)}`)
  }
  const checkoutSecret = read("TENDER_CHECKOUT_SECRET") ?? defaults.checkoutSecret
  if (checkoutSecret === undefined) throw invalid("TENDER_CHECKOUT_SECRET", "TENDER_CHECKOUT_SECRET is not set: it signs hosted-checkout links")
  const tablePrefix = read("TENDER_TABLE_PREFIX")
  const merchants = read("TENDER_SEED") ?? defaults.merchants
  const providerAccountKeys = accountKeysOf(read("TENDER_PROVIDER_ACCOUNT_KEYS"))
  return {
    port,
    databaseUrl: read("DATABASE_URL") ?? defaults.databaseUrl,
    publicUrl,
    checkoutSecret,
    tablePrefix,
    merchants,
    providerAccountKeys,
    onPool: (pool) => ({
      storage: { postgres: pool, tablePrefix },
      publicUrl,
      checkoutSecret,
      merchants,
      ...(providerAccountKeys === undefined ? {} : { providerAccountKeys })
    })
  }
}
